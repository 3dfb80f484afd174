/**
 * Avatars and session renewal over real HTTP (issue 11; ours, docs/files.md): avatar/upload,
 * avatar/assign, the avatar download, every documented error with nothing changed, rights by
 * entity, ownership across two users, and user/session/renew.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { blobsOnDisk, jpeg } from '../files/fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let place: number;
let employee: number;
let tracker: number;
let bobPlace: number;
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
  place = (await s.call('place/create', { hash: ann.hash, place: { label: 'Depot', location: { lat: 1, lng: 2, radius: 100 } } })).body.id;
  employee = (await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Zoe' } })).body.id;
  tracker = s.addTracker(ann.id, '350000000000301');
  bobPlace = (await s.call('place/create', { hash: bob.hash, place: { label: 'Other', location: { lat: 1, lng: 2, radius: 100 } } })).body.id;
});
afterAll(() => s.close());

const fail = (code: number) => ({ success: false, status: { code, description: expect.any(String) } });
const rows = () => s.sql.prepare('SELECT count(*) FROM files').pluck().get() as number;

async function avatarUpload(fields: Record<string, string | number>, data?: Buffer | string, hash = ann.hash) {
  const form = new FormData();
  form.append('hash', hash);
  for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
  if (data !== undefined) form.append('file', new Blob([typeof data === 'string' ? data : new Uint8Array(data)], { type: 'image/jpeg' }), 'me.jpg');
  const res = await fetch(`${s.url}/v2/fsm/avatar/upload`, { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as any };
}

const readAvatar = async (kind: string, id: number, hash = ann.hash) => {
  const r = await s.call(`${kind}/read`, { hash, [`${kind}_id`]: id });
  return { avatar: r.body.value.avatar_file_name ?? null, icon: r.body.value.icon_id ?? null };
};

describe('avatar/upload', () => {
  it('stores an upright square JPEG as the avatar of a place, an employee, a tracker; served by its name', async () => {
    for (const [kind, id] of [['place', place], ['employee', employee], ['tracker', tracker]] as const) {
      const r = await avatarUpload({ entity_type: kind, entity_id: id }, await jpeg(400, 200, 6));
      expect(r.body).toEqual({ success: true, value: expect.stringMatching(/^[0-9a-f]{24}\.jpg$/) });
      expect((await readAvatar(kind, id)).avatar).toBe(r.body.value);
      const img = await fetch(`${s.url}/v2/file/avatar/${r.body.value}`);
      expect(img.status).toBe(200);
      expect(img.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 256, 256]);
    }
    expect((await fetch(`${s.url}/v2/file/avatar/${'0'.repeat(24)}.jpg`)).status).toBe(404);
    expect((await fetch(`${s.url}/v2/file/avatar/..%2F..%2Ffsm.sqlite`)).status).toBe(404);
  });

  it('a new avatar replaces the old one, whose row and blob go', async () => {
    const first = (await avatarUpload({ entity_type: 'place', entity_id: place }, await jpeg())).body.value;
    expect(blobsOnDisk(s.dataDir)).toContain(first);
    const second = (await avatarUpload({ entity_type: 'place', entity_id: place }, await jpeg())).body.value;
    expect(second).not.toBe(first);
    expect(blobsOnDisk(s.dataDir)).not.toContain(first);
    expect(s.sql.prepare('SELECT count(*) FROM files WHERE storage_key = ?').pluck().get(first)).toBe(0);
  });

  it('refuses, storing nothing: 201 foreign or unknown entity, 233 no file, 234 not an image, 7 bad entity type, 13 without the entity\'s right', async () => {
    const n = rows();
    const blobs = blobsOnDisk(s.dataDir).length;
    const img = await jpeg();
    expect((await avatarUpload({ entity_type: 'place', entity_id: bobPlace }, img)).body).toEqual(fail(201));
    expect((await avatarUpload({ entity_type: 'tracker', entity_id: 999_999 }, img)).body).toEqual(fail(201));
    expect((await avatarUpload({ entity_type: 'place', entity_id: place })).body).toEqual(fail(233));
    expect((await avatarUpload({ entity_type: 'place', entity_id: place }, 'not a picture')).body).toEqual(fail(234));
    expect((await avatarUpload({ entity_type: 'zone', entity_id: place }, img)).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'entity_type' }] });
    const sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: ['employee_update'] });
    expect((await avatarUpload({ entity_type: 'place', entity_id: place }, img, sub.hash)).body).toEqual(fail(13));
    expect(rows()).toBe(n);
    expect(blobsOnDisk(s.dataDir).length).toBe(blobs);
    // The right it holds is enough for its entity.
    expect((await avatarUpload({ entity_type: 'employee', entity_id: employee }, img, sub.hash)).body.success).toBe(true);
  });
});

describe('avatar/assign', () => {
  it('sets and clears icon_id; sets another uploaded avatar; null clears it and the unused avatar goes', async () => {
    expect((await s.call('avatar/assign', { hash: ann.hash, entity_type: 'place', entity_id: place, icon_id: 42 })).body).toEqual({ success: true });
    expect((await readAvatar('place', place)).icon).toBe(42);
    expect((await s.call('avatar/assign', { hash: ann.hash, entity_type: 'employee', entity_id: employee, icon_id: 7 })).body).toEqual({ success: true });
    expect((await readAvatar('employee', employee)).icon).toBe(7);
    expect((await s.call('avatar/assign', { hash: ann.hash, entity_type: 'place', entity_id: place, icon_id: null })).body).toEqual({ success: true });
    expect((await readAvatar('place', place)).icon).toBe(null);
    // The tracker's avatar on the place too; then cleared on the tracker: still shown by the place, kept.
    const name = (await readAvatar('tracker', tracker)).avatar!;
    expect((await s.call('avatar/assign', { hash: ann.hash, entity_type: 'place', entity_id: place, avatar_file_name: name })).body).toEqual({ success: true });
    expect((await readAvatar('place', place)).avatar).toBe(name);
    expect((await s.call('avatar/assign', { hash: ann.hash, entity_type: 'tracker', entity_id: tracker, avatar_file_name: null })).body).toEqual({ success: true });
    expect((await readAvatar('tracker', tracker)).avatar).toBe(null);
    expect(blobsOnDisk(s.dataDir)).toContain(name);
    expect((await s.call('avatar/assign', { hash: ann.hash, entity_type: 'place', entity_id: place, avatar_file_name: null })).body).toEqual({ success: true });
    expect(blobsOnDisk(s.dataDir)).not.toContain(name);
  });

  it('errors: 230 icon on a tracker, 201 foreign avatar or entity, 7 neither or both or out of range', async () => {
    const bobs = (await avatarUpload({ entity_type: 'place', entity_id: bobPlace }, await jpeg(), bob.hash)).body.value;
    const a = (p: Record<string, unknown>) => s.call('avatar/assign', { hash: ann.hash, entity_type: 'place', entity_id: place, ...p });
    expect((await a({ entity_type: 'tracker', entity_id: tracker, icon_id: 3 })).body).toEqual(fail(230));
    expect((await a({ avatar_file_name: bobs })).body).toEqual(fail(201));
    expect((await a({ avatar_file_name: 'nope.jpg' })).body).toEqual(fail(201));
    expect((await a({ entity_id: bobPlace, icon_id: 3 })).body).toEqual(fail(201));
    expect((await a({})).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'icon_id' }] });
    expect((await a({ icon_id: 3, avatar_file_name: bobs })).body).toMatchObject(fail(7));
    expect((await a({ icon_id: 0 })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'icon_id' }] });
    expect((await a({ icon_id: 256 })).body).toMatchObject(fail(7));
    expect((await readAvatar('place', bobPlace, bob.hash)).avatar).toBe(bobs);
  });
});

describe('user/session/renew', () => {
  it('answers the same hash and starts the session\'s lifetime again', async () => {
    const u = await s.user('renew@example.com');
    const old = Date.now() - 29 * 86_400_000;
    s.sql.prepare('UPDATE sessions SET last_used = ? WHERE hash = ?').run(old, u.hash);
    const r = await s.call('user/session/renew', { hash: u.hash });
    expect(r.body).toEqual({ success: true, hash: u.hash });
    expect(s.sql.prepare('SELECT last_used FROM sessions WHERE hash = ?').pluck().get(u.hash)).toBeGreaterThan(Date.now() - 60_000);
    expect((await s.call('user/session/renew', { hash: 'f'.repeat(32) })).body).toEqual(fail(4));
  });
});
