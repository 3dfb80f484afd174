/**
 * Check-ins over real HTTP (issue 11; spec: Check-in, Check-ins base path /checkin;
 * docs/checkins.md): createCheckin (the field app's domain call) binding files and a form,
 * checkin/read|list|delete with every filter, condition and sort field, the nearby places and
 * zones, every documented error, and ownership across two users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckin, type CheckinDeps } from '../../src/checkins/checkins.ts';
import { formatDateTime, parseDateTime } from '../../src/core/time.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addForm, blobsOnDisk, jpeg, upload } from '../files/fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const TZ = 'Asia/Tokyo';
const geocoder: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: `Street ${lat.toFixed(3)}` }), search: async () => [] };
let deps: CheckinDeps;
let t1: number;
let t2: number;
let bobTracker: number;
let emp: number;
let place: number;
let zone: number;
const ids: Record<string, number> = {};
const at = (s: string) => parseDateTime(s, TZ)!;
const fail = (code: number) => ({ success: false, status: { code, description: expect.any(String) } });

async function checkinFile(hash = ann.hash, type: 'image' | 'file' = 'image'): Promise<number> {
  const r = await s.call('checkin/file/create', { hash, size: 100_000, filename: 'p.jpg', type });
  const u = await upload(r.body.url, r.body.fields, await jpeg(40, 20, 1), { filename: 'p.jpg', type: 'image/jpeg' });
  expect(u.body.value.state).toBe('uploaded');
  return r.body.file_id;
}

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
  deps = { store: s.store, geocoder, now: Date.now };
  t1 = s.addTracker(ann.id, '350000000000201', { label: 'Van 1' });
  t2 = s.addTracker(ann.id, '350000000000202', { label: 'Van 2' });
  bobTracker = s.addTracker(bob.id, '350000000000203');
  const e = await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Zoe', last_name: 'Adams', tracker_id: t1 } });
  emp = e.body.id;
  place = (await s.call('place/create', { hash: ann.hash, place: { label: 'Depot', location: { lat: 35.0, lng: 139.0, radius: 200 } } })).body.id;
  zone = (await s.call('zone/create', { hash: ann.hash, zone: { type: 'circle', label: 'Yard', radius: 500, center: { lat: 35.0, lng: 139.0 } } })).body.id;
  const form = addForm(s, ann.id, { label: 'Audit', templateId: null });
  s.sql.prepare('INSERT INTO form_templates (id, user_id, label, fields, created, updated) VALUES (77, ?, ?, ?, 0, 0)').run(ann.id, 'Audit', '[]');
  s.sql.prepare('UPDATE forms SET template_id = 77 WHERE id = ?').run(form);
  ids.a = await createCheckin(deps, { trackerId: t1, time: at('2026-03-01 10:00:00'), location: { lat: 35.0, lng: 139.0, precision: 12 }, comment: 'Gate is open', fileIds: [await checkinFile()], formId: form });
  ids.b = await createCheckin(deps, { trackerId: t2, time: at('2026-03-02 11:00:00'), location: { lat: 35.1, lng: 139.1 }, comment: 'all fine', fileIds: [] });
  ids.c = await createCheckin(deps, { trackerId: t2, time: at('2026-03-03 12:00:00'), location: { lat: 36.0, lng: 140.0 }, fileIds: [] });
  ids.bob = await createCheckin(deps, { trackerId: bobTracker, time: at('2026-03-01 10:00:00'), location: { lat: 35.0, lng: 139.0 }, fileIds: [] });
  ids.form = form;
});
afterAll(() => s.close());

const list = (p: Record<string, unknown> = {}, hash = ann.hash) => s.call('checkin/list', { hash, ...p });
const listed = async (p: Record<string, unknown>) => {
  const r = await list(p);
  expect(r.body.success, JSON.stringify(r.body)).toBe(true);
  return r.body.list.map((c: { id: number }) => c.id);
};

describe('checkin/read', () => {
  it('answers the check-in exactly as the spec shapes it, with its files', async () => {
    const r = await s.call('checkin/read', { hash: ann.hash, checkin_id: ids.a });
    expect(r.body).toEqual({
      success: true,
      value: {
        id: ids.a,
        marker_time: '2026-03-01 10:00:00',
        user_id: ann.id,
        tracker_id: t1,
        employee_id: emp,
        location: { lat: 35.0, lng: 139.0, address: 'Street 35.000', precision: 12 },
        comment: 'Gate is open',
        files: [
          {
            id: expect.any(Number),
            storage_id: expect.any(Number),
            user_id: ann.id,
            type: 'image',
            created: expect.any(String),
            uploaded: expect.any(String),
            name: 'p.jpg',
            size: expect.any(Number),
            mime_type: 'image/jpeg',
            metadata: { orientation: 1 },
            state: 'uploaded',
            download_url: expect.stringMatching(/\/v2\/file\/download\/\d+$/),
          },
        ],
        form_id: ids.form,
        form_label: 'Audit',
      },
    });
    const c = await s.call('checkin/read', { hash: ann.hash, checkin_id: ids.c });
    expect(c.body.value).toEqual({ id: ids.c, marker_time: '2026-03-03 12:00:00', user_id: ann.id, tracker_id: t2, location: { lat: 36, lng: 140, address: 'Street 36.000', precision: null }, files: [], form_id: null, form_label: null });
  });
  it('204 for an unknown or foreign check-in, 7 for a bad id', async () => {
    expect((await s.call('checkin/read', { hash: ann.hash, checkin_id: ids.bob })).body).toEqual(fail(204));
    expect((await s.call('checkin/read', { hash: ann.hash, checkin_id: 999_999 })).body).toEqual(fail(204));
    expect((await s.call('checkin/read', { hash: ann.hash })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'checkin_id' }] });
  });
});

describe('checkin/list', () => {
  it('lists the user\'s check-ins with the count, paging ignored by the count', async () => {
    const r = await list();
    expect(r.body.count).toBe(3);
    expect(r.body.list.map((c: { id: number }) => c.id)).toEqual([ids.a, ids.b, ids.c]);
    const page = await list({ limit: 1, offset: 1 });
    expect(page.body).toMatchObject({ count: 3, list: [{ id: ids.b }] });
    expect((await list({}, bob.hash)).body).toMatchObject({ count: 1, list: [{ id: ids.bob }] });
  });

  it('trackers, from and to', async () => {
    expect(await listed({ trackers: [t2] })).toEqual([ids.b, ids.c]);
    expect(await listed({ from: '2026-03-02 00:00:00', to: '2026-03-02 23:59:59' })).toEqual([ids.b]);
    expect(await listed({ from: '2026-03-02 11:00:00', to: '2026-03-03 12:00:00' })).toEqual([ids.b, ids.c]);
  });

  it('conditions on every field', async () => {
    const c = (cond: Record<string, unknown>) => listed({ conditions: [cond] });
    expect(await c({ type: 'eq', field: 'employee', value: emp })).toEqual([ids.a]);
    expect(await c({ type: 'eq', field: 'employee', value: null })).toEqual([ids.b, ids.c]);
    expect(await c({ type: 'eq', field: 'tracker_id', value: t1 })).toEqual([ids.a]);
    expect(await c({ type: 'period', field: 'marker_time', value: { from: '2026-03-01 00:00:00', to: '2026-03-02 12:00:00' } })).toEqual([ids.a, ids.b]);
    expect(await c({ type: 'contains', field: 'location', value: '36.0' })).toEqual([ids.c]);
    expect(await c({ type: 'contains', field: 'comment', value: 'GATE' })).toEqual([ids.a]);
    expect(await c({ type: 'eq', field: 'comment', value: null })).toEqual([ids.c]);
    expect(await c({ type: 'eq', field: 'form', value: 77 })).toEqual([ids.a]);
    expect(await listed({ conditions: [{ type: 'or', conditions: [{ type: 'eq', field: 'tracker_id', value: t1 }, { type: 'contains', field: 'comment', value: 'fine' }] }] })).toEqual([ids.a, ids.b]);
  });

  it('sort on every field, both ways', async () => {
    expect(await listed({ sort: ['marker_time=desc'] })).toEqual([ids.c, ids.b, ids.a]);
    expect(await listed({ sort: ['tracker_id=desc', 'marker_time=asc'] })).toEqual([ids.b, ids.c, ids.a]);
    expect(await listed({ sort: ['location=desc'] })).toEqual([ids.c, ids.b, ids.a]);
    // Nulls first ascending (SQLite order); full name, label.
    expect(await listed({ sort: ['comment=asc'] })).toEqual([ids.c, ids.b, ids.a]);
    expect(await listed({ sort: ['employee=desc'] })).toEqual([ids.a, ids.b, ids.c]);
    expect(await listed({ sort: ['form=desc'] })).toEqual([ids.a, ids.b, ids.c]);
  });

  it('pages sorted by employee or form (read by groups) equal the same slices of the whole sorted list', async () => {
    const form2 = addForm(s, ann.id, { label: 'audit' });
    const more = [];
    for (let i = 0; i < 7; i++) more.push(await createCheckin(deps, { trackerId: i % 2 ? t1 : t2, time: at(`2026-03-0${1 + (i % 3)} 09:00:00`), location: { lat: 10, lng: 10 }, comment: i % 3 ? `c${i % 2}` : null, fileIds: [], formId: i === 3 ? form2 : null }));
    const e2 = await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'adam', last_name: 'zed', tracker_id: t2 }, force_reassign: true });
    more.push(await createCheckin(deps, { trackerId: t2, location: { lat: 10, lng: 10 }, fileIds: [], formId: addForm(s, ann.id, { label: 'AUDIT' }) }));
    expect(e2.body.success).toBe(true);
    for (const sort of [['employee=asc'], ['employee=desc'], ['form=asc'], ['form=desc'], ['employee=asc', 'marker_time=desc'], ['form=desc', 'comment=asc', 'tracker_id=desc']]) {
      const all = await listed({ sort });
      for (const [offset, limit] of [[0, 3], [2, 4], [5, 100], [9, 2], [0, 0]]) expect(await listed({ sort, offset, limit }), `${sort} ${offset} ${limit}`).toEqual(all.slice(offset, offset + limit));
    }
    await s.call('checkin/delete', { hash: ann.hash, checkin_ids: more });
    await s.call('employee/delete', { hash: ann.hash, employee_id: e2.body.id });
  });

  it('the employee and form sorts follow a renamed or deleted employee and a deleted form', async () => {
    const e2 = await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Bea', last_name: 'Able', tracker_id: t2 }, force_reassign: true });
    const f2 = addForm(s, ann.id, { label: 'Zulu' });
    const mine = await createCheckin(deps, { trackerId: t2, location: { lat: 10, lng: 10 }, fileIds: [], formId: f2 });
    const first = async (sort: string) => (await listed({ sort: [sort], limit: 1 }))[0];
    expect([await first('employee=asc'), await first('form=desc')]).toEqual([ids.b, mine]); // no employee first; 'Zulu' last
    const upd = await s.call('employee/update', { hash: ann.hash, employee: { id: e2.body.id, first_name: 'Zyta', last_name: 'Zimmer', tracker_id: t2 } });
    expect(upd.body.success).toBe(true);
    expect(await first('employee=desc')).toBe(mine);
    await s.call('employee/delete', { hash: ann.hash, employee_id: e2.body.id });
    expect(await first('employee=desc')).toBe(ids.a); // mine has no employee name now
    s.sql.prepare('DELETE FROM forms WHERE id = ?').run(f2);
    expect(await first('form=desc')).toBe(ids.a);
    expect((await listed({ sort: ['form=asc'], limit: 1 }))[0]).toBe(ids.b);
    await s.call('checkin/delete', { hash: ann.hash, checkin_ids: [mine] });
  });

  it('contains on location and comment (full-text index or LIKE, whichever reads less) finds what LIKE finds, with its count and pages', async () => {
    const texts = ['Šilo gatvė 5', 'ŠILO GATVĖ 7', 'Main Street 12', 'main street 14', 'Old mill 100%', 'Ąžuolų g. 1', 'depot_north', 'depot-south'];
    const made: number[] = [];
    for (let i = 0; i < 40; i++) {
      const t = texts[i % texts.length];
      made.push(await createCheckin(deps, { trackerId: i % 2 ? t1 : t2, time: at('2026-04-01 10:00:00') + i * 60_000, location: { lat: 10, lng: 10 }, comment: i % 3 ? `note ${t}` : null, fileIds: [] }));
      s.sql.prepare('UPDATE checkins SET address = ? WHERE id = ?').run(t, made[i]);
    }
    const like = (col: string, v: string) =>
      s.sql.prepare(`SELECT id FROM checkins WHERE user_id = ? AND ${col} LIKE ? ESCAPE '\\' ORDER BY id`).pluck().all(ann.id, `%${v.replace(/[\\%_]/g, (m) => `\\${m}`)}%`) as number[];
    // 'note': most comments match, so the page walks the sort order testing LIKE; rare ones come from the index
    for (const v of ['street', 'STREET 1', 'šilo', 'ŠILO', 'gatvė', 'ąžuolų', 'Ąžuolų', '100%', 'h_', 'depot_', 'mill 1', 'zzz', 'et', 'note main', 'note', 'NOTE ', 'o g']) {
      for (const [field, col] of [['location', 'address'], ['comment', 'comment']]) {
        const expected = like(col, v);
        const r = await list({ conditions: [{ type: 'contains', field, value: v }], limit: 5 });
        expect([r.body.count, r.body.list.map((c: { id: number }) => c.id)], `${field} ${v}`).toEqual([expected.length, expected.slice(0, 5)]);
        const page = await list({ conditions: [{ type: 'contains', field, value: v }], offset: 3, limit: 4 });
        expect(page.body.list.map((c: { id: number }) => c.id), `${field} ${v} page`).toEqual(expected.slice(3, 7));
      }
    }
    // A changed address and a deleted check-in leave the index with them.
    s.sql.prepare("UPDATE checkins SET address = 'Harbour 1' WHERE id = ?").run(made[2]);
    await s.call('checkin/delete', { hash: ann.hash, checkin_ids: [made[3]] });
    expect(await listed({ conditions: [{ type: 'contains', field: 'location', value: 'harbour' }] })).toEqual([made[2]]);
    expect(await listed({ conditions: [{ type: 'contains', field: 'location', value: 'main street' }] })).toEqual(like('address', 'main street'));
    expect((await list({ conditions: [{ type: 'contains', field: 'location', value: 'harbour' }] }, bob.hash)).body.count).toBe(0); // another user's rowid range
    await s.call('checkin/delete', { hash: ann.hash, checkin_ids: made.filter((id) => id !== made[3]) });
  });

  it('the location radius and the nearby places and zones (from the geofence index)', async () => {
    expect(await listed({ location: { lat: 35.0, lng: 139.0, radius: 20_000 } })).toEqual([ids.a, ids.b]);
    expect(await listed({ location: { lat: 35.0, lng: 139.0, radius: 10 } })).toEqual([ids.a]);
    const r = await list({ show_nearby_geo_entities: true });
    expect(r.body.list.map((c: Record<string, unknown>) => [c.places, c.zones])).toEqual([
      [[{ id: place, label: 'Depot' }], [{ id: zone, label: 'Yard' }]],
      [[], []],
      [[], []],
    ]);
    // A new place at the third check-in shows at once (the index follows the geo version).
    const p2 = (await s.call('place/create', { hash: ann.hash, place: { label: 'Far', location: { lat: 36.0, lng: 140.0, radius: 50 } } })).body.id;
    const again = await list({ show_nearby_geo_entities: true, trackers: [t2] });
    expect(again.body.list[1].places).toEqual([{ id: p2, label: 'Far' }]);
    expect((await list()).body.list[0]).not.toHaveProperty('places');
  });

  it('errors: 7 (bad to, bad condition, bad sort, unknown format; pdf and xlsx files: test/api/checkin-export.test.ts), 211 over the span, 217 foreign or blocked trackers, 221 too many', async () => {
    expect((await list({ from: '2026-03-02 00:00:00', to: '2026-03-01 00:00:00' })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'to' }] });
    expect((await list({ from: 'yesterday' })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'from' }] });
    expect((await list({ conditions: [{ type: 'eq', field: 'label', value: 'x' }] })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'conditions.0.field' }] });
    expect((await list({ conditions: [{ type: 'contains', field: 'marker_time', value: 'x' }] })).body).toMatchObject(fail(7));
    expect((await list({ sort: ['label=asc'] })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'sort.0' }] });
    expect((await list({ sort: ['marker_time'] })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'sort.0' }] });
    expect((await list({ format: 'doc' })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'format' }] });
    const span = await list({ from: '2026-01-01 00:00:00', to: '2026-03-01 00:00:00' });
    expect(span.body).toEqual({ ...fail(211), max_time_span: 'P31D' });
    expect((await list({ from: formatDateTime(Date.now() - 40 * 86_400_000, TZ) })).body).toMatchObject(fail(211));
    expect((await list({ trackers: [t1, bobTracker, 999_999] })).body).toEqual({ ...fail(217), ids: [bobTracker, 999_999] });
    s.sql.prepare('UPDATE sources SET blocked = 1 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(t2);
    expect((await list({ trackers: [t2] })).body).toEqual({ ...fail(217), ids: [t2] });
    s.sql.prepare('UPDATE sources SET blocked = 0 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(t2);
    const many = Array.from({ length: 10_001 }, (_, i) => i + 1);
    expect((await list({ trackers: many })).body).toEqual({ ...fail(221), limit: 10_000 });
  });
});

describe('createCheckin (the field app\'s call)', () => {
  const count = () => s.sql.prepare('SELECT count(*) FROM checkins').pluck().get() as number;
  it('refuses files that are not the owner\'s uploaded, unbound files, and stores nothing', async () => {
    const n = count();
    const bound = s.sql.prepare('SELECT id FROM files WHERE checkin_id = ?').pluck().get(ids.a) as number;
    const bobs = await checkinFile(bob.hash);
    const waiting = (await s.call('checkin/file/create', { hash: ann.hash, size: 10, type: 'file' })).body.file_id;
    const free = await checkinFile();
    for (const f of [bound, bobs, waiting, 999_999]) {
      await expect(createCheckin(deps, { trackerId: t1, location: { lat: 1, lng: 2 }, fileIds: [free, f] })).rejects.toMatchObject({ code: 7, extra: { errors: [{ parameter: 'file_ids' }] } });
    }
    expect(count()).toBe(n);
    expect(s.sql.prepare('SELECT checkin_id FROM files WHERE id = ?').pluck().get(free)).toBe(null);
    await expect(createCheckin(deps, { trackerId: 999_999, location: { lat: 1, lng: 2 }, fileIds: [] })).rejects.toMatchObject({ code: 201 });
    await expect(createCheckin(deps, { trackerId: t1, location: { lat: 91, lng: 2 }, fileIds: [] })).rejects.toMatchObject({ code: 7 });
    await expect(createCheckin(deps, { trackerId: t1, location: { lat: 1, lng: 2 }, fileIds: [], formId: addForm(s, bob.id) })).rejects.toMatchObject({ code: 201 });
    s.sql.prepare('UPDATE sources SET blocked = 1 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(t1);
    await expect(createCheckin(deps, { trackerId: t1, location: { lat: 1, lng: 2 }, fileIds: [] })).rejects.toMatchObject({ code: 208 });
    s.sql.prepare('UPDATE sources SET blocked = 0 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(t1);
    expect(count()).toBe(n);
  });
});

describe('checkin/delete', () => {
  it('201 when any id is not the user\'s (nothing deleted); deletes with the form, the file rows and their blobs', async () => {
    const f = await checkinFile();
    const form = addForm(s, ann.id);
    const id = await createCheckin(deps, { trackerId: t1, location: { lat: 1, lng: 2 }, fileIds: [f], formId: form });
    const key = s.sql.prepare('SELECT storage_key FROM files WHERE id = ?').pluck().get(f) as string;
    expect(blobsOnDisk(s.dataDir)).toContain(key);
    expect((await s.call('checkin/delete', { hash: ann.hash, checkin_ids: [id, ids.bob] })).body).toEqual({ ...fail(201), ids: [ids.bob] });
    expect((await s.call('checkin/read', { hash: ann.hash, checkin_id: id })).body.success).toBe(true);
    expect((await s.call('checkin/delete', { hash: ann.hash, checkin_ids: [] })).body).toMatchObject(fail(7));
    expect((await s.call('checkin/delete', { hash: ann.hash, checkin_ids: [id] })).body).toEqual({ success: true });
    expect((await s.call('checkin/read', { hash: ann.hash, checkin_id: id })).body).toEqual(fail(204));
    expect(s.sql.prepare('SELECT count(*) FROM files WHERE id = ?').pluck().get(f)).toBe(0);
    expect(s.sql.prepare('SELECT count(*) FROM forms WHERE id = ?').pluck().get(form)).toBe(0);
    expect(blobsOnDisk(s.dataDir)).not.toContain(key);
    expect((await s.call('checkin/read', { hash: bob.hash, checkin_id: ids.bob })).body.success).toBe(true);
  });
});
