/**
 * Retranslators over real HTTP (issue 13; spec: Retranslator and retranslator protocol, Retranslators
 * /retranslator; docs/retranslators.md): create|update|delete|list, protocol/list, the tracker
 * bindings, the status members, and every error code with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'Asia/Tokyo' });
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

let n = 0;
const count = (table: string) => s.sql.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const wialon = (o: Record<string, unknown> = {}) => ({ name: 'Gov', protocol_id: 1, address: '127.0.0.1', port: 20000 + n++, password: 'pw', enabled: false, ...o });
async function create(r: Record<string, unknown>, hash = ann.hash): Promise<number> {
  const res = await s.call('retranslator/create', { hash, retranslator: r });
  expect(res.body).toEqual({ success: true, id: expect.any(Number) });
  return res.body.id;
}
const list = async (hash = ann.hash) => (await s.call('retranslator/list', { hash })).body.list as any[];

describe('retranslator/protocol/list', () => {
  it('one entry per wire format and version, with the spec members', async () => {
    const r = await s.call('retranslator/protocol/list', { hash: ann.hash });
    expect(r.body.success).toBe(true);
    const byName = Object.fromEntries(r.body.list.map((p: any) => [p.name, p]));
    expect(byName['Wialon IPS 2.0']).toEqual({ id: 1, name: 'Wialon IPS 2.0', has_login: false, has_password: true, required_login: false, required_password: false, fake_device_id_pattern: '^[A-Za-z0-9_.-]{1,64}$', address_is_url: false, default_port: 20332 });
    expect(byName['Wialon IPS 1.1'].id).toBe(2);
    expect(byName['JSON over HTTP']).toMatchObject({ has_login: true, has_password: true, required_login: false, address_is_url: true });
    for (const name of ['OsmAnd HTTP (GET query)', 'OsmAnd HTTP (form POST)', 'MQTT 3.1.1', 'MQTT 5']) expect(byName[name], name).toBeDefined();
    expect(byName.EGTS).toMatchObject({ id: 8, has_login: true, has_password: false, required_login: true, required_password: false, address_is_url: false, default_port: 5162 });
    expect(byName['Wialon Retranslator']).toEqual({ id: 9, name: 'Wialon Retranslator', has_login: false, has_password: false, required_login: false, required_password: false, fake_device_id_pattern: '^[!-~]{1,64}$', address_is_url: false, default_port: 20163 });
    expect(new Set(r.body.list.map((p: any) => p.id)).size).toBe(r.body.list.length);
  });
});

describe('create, list, update, delete', () => {
  it('stores the object and lists it with its status; the password is not answered', async () => {
    const id = await create(wialon({ name: 'Insurer', port: 21001 }));
    const item = (await list()).find((r) => r.id === id);
    expect(item).toEqual({ id, name: 'Insurer', protocol_id: 1, address: '127.0.0.1', port: 21001, login: '', has_password: true, enabled: false, status: { connected: false, last_error: null, last_error_time: null, backlog: 0, last_forwarded: null } });
    expect(await list(bob.hash)).toEqual([]);
  });

  it('update names the retranslator by the id inside the object; a left-out password is kept', async () => {
    const id = await create(wialon({ port: 21002 }));
    const r = await s.call('retranslator/update', { hash: ann.hash, retranslator: { id, name: 'Renamed', protocol_id: 2, address: 'recv.example.com', port: 21003, enabled: false } });
    expect(r.body).toEqual({ success: true });
    expect((await list()).find((x) => x.id === id)).toMatchObject({ name: 'Renamed', protocol_id: 2, address: 'recv.example.com', port: 21003, has_password: true });
    expect(s.sql.prepare('SELECT password FROM retranslators WHERE id = ?').pluck().get(id)).toBe('pw');
  });

  it('HTTP protocols take a URL; the port comes from it', async () => {
    const id = await create({ name: 'Hook', protocol_id: 3, address: 'https://hooks.example.com/fsm', login: 'u', password: 'p', enabled: false });
    expect((await list()).find((x) => x.id === id)).toMatchObject({ address: 'https://hooks.example.com/fsm', port: 443, login: 'u' });
    const before = count('retranslators');
    for (const [r, parameter] of [
      [{ name: 'x', protocol_id: 3, address: 'hooks.example.com', enabled: false }, 'retranslator.address'],
      [{ name: 'x', protocol_id: 3, address: 'ftp://hooks.example.com/', enabled: false }, 'retranslator.address'],
      [{ name: 'x', protocol_id: 3, address: 'http://h.example.com:8080/x', port: 80, enabled: false }, 'retranslator.port'],
      [{ name: 'x', protocol_id: 99, address: 'h', port: 1, enabled: false }, 'retranslator.protocol_id'],
      [{ name: 'x', protocol_id: 1, address: 'h', enabled: false }, 'retranslator.port'],
      [{ name: 'x', protocol_id: 1, address: 'bad host', port: 1, enabled: false }, 'retranslator.address'],
      [{ name: '', protocol_id: 1, address: 'h', port: 1 }, 'retranslator.name'],
      [{ name: 'x', protocol_id: 1, address: 'h', port: 70000 }, 'retranslator.port'],
    ] as const) {
      const res = await s.call('retranslator/create', { hash: ann.hash, retranslator: r });
      expect(res.body.status?.code, JSON.stringify(r)).toBe(7);
      expect(res.body.status.description).toContain(parameter);
    }
    expect(count('retranslators')).toBe(before);
  });

  it('247 for the same address (any case), port and login; another login is another target', async () => {
    await create(wialon({ address: 'Dup.example.com', port: 22000 }));
    const before = count('retranslators');
    const r = await s.call('retranslator/create', { hash: ann.hash, retranslator: wialon({ address: 'dup.EXAMPLE.com', port: 22000 }) });
    expect(r.body.status.code).toBe(247);
    expect(count('retranslators')).toBe(before);
    // another user may send to the same target
    await create(wialon({ address: 'dup.example.com', port: 22000 }), bob.hash);
    // update onto an existing target: 247, nothing changed
    const other = await create(wialon({ address: 'other.example.com', port: 22000 }));
    const u = await s.call('retranslator/update', { hash: ann.hash, retranslator: { id: other, ...wialon({ address: 'dup.example.com', port: 22000 }) } });
    expect(u.body.status.code).toBe(247);
    expect((await list()).find((x) => x.id === other).address).toBe('other.example.com');
  });

  it('201 for another user\'s or a missing retranslator', async () => {
    const id = await create(wialon());
    for (const [path, p] of [
      ['retranslator/update', { retranslator: { id, ...wialon() } }],
      ['retranslator/delete', { retranslator_id: id }],
      ['retranslator/delete', { retranslator_id: 999999 }],
    ] as const) {
      const r = await s.call(path, { hash: bob.hash, ...p });
      expect(r.body.status?.code, path).toBe(201);
    }
    expect((await list()).some((x) => x.id === id)).toBe(true);
    expect((await s.call('retranslator/delete', { hash: ann.hash, retranslator_id: id })).body).toEqual({ success: true });
    expect((await list()).some((x) => x.id === id)).toBe(false);
  });

  it('268 over the tariff quota, nothing stored', async () => {
    const u = await s.user('quota@example.com');
    const t = s.store.tariffs.copy(1, 'two retranslators');
    s.store.tariffs.update(t, { max_retranslators: 2 });
    s.sql.prepare('UPDATE users SET tariff_id = ? WHERE id = ?').run(t, u.id);
    await create(wialon(), u.hash);
    await create(wialon(), u.hash);
    const before = count('retranslators');
    const r = await s.call('retranslator/create', { hash: u.hash, retranslator: wialon() });
    expect(r.body.status.code).toBe(268);
    expect(count('retranslators')).toBe(before);
  });
});

describe('required login (EGTS: the dispatcher id)', () => {
  const egts = (o: Record<string, unknown> = {}) => ({ name: 'Gov EGTS', protocol_id: 8, address: 'egts.example.com', port: 30000 + n++, login: '4242', enabled: false, ...o });

  it('7 naming retranslator.login when the login the protocol requires is empty or left out, on create and update; nothing stored', async () => {
    const before = count('retranslators');
    for (const r of [egts({ login: '' }), egts({ login: undefined }), egts({ login: 'dispatcher' }), egts({ login: '4294967296' })]) {
      const res = await s.call('retranslator/create', { hash: ann.hash, retranslator: r });
      expect(res.body.status?.code, JSON.stringify(r)).toBe(7);
      expect(res.body.status.description).toContain('retranslator.login');
    }
    expect(count('retranslators')).toBe(before);
    const id = await create(egts());
    const u = await s.call('retranslator/update', { hash: ann.hash, retranslator: { id, ...egts({ login: '' }) } });
    expect(u.body.status.code).toBe(7);
    expect(u.body.status.description).toContain('retranslator.login');
    // the same over a form body: the login member missing altogether
    const body = new URLSearchParams({ hash: ann.hash, retranslator: JSON.stringify({ id, name: 'x', protocol_id: 8, address: 'h', port: 1 }) }).toString();
    const form = await s.call('retranslator/update', {}, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(form.body.status?.code).toBe(7);
    expect((await list()).find((x) => x.id === id)).toMatchObject({ name: 'Gov EGTS', login: '4242' });
  });

  it('242 when the forwarded identity is not a 32-bit number: a fake id, or the device id of a tracker bound without one', async () => {
    const rid = await create(egts());
    const imeiTracker = s.addTracker(ann.id, `35391${n++}0000000`);
    const numeric = s.addTracker(ann.id, String(700000 + n++));
    const before = count('retranslator_bindings');
    for (const fake of [undefined, 'abc', '4294967296', '-1', '1.5']) {
      const r = await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: imeiTracker, retranslator_id: rid, fake_device_id: fake });
      expect(r.body.status?.code, String(fake)).toBe(242);
      expect(r.body.pattern).toEqual(expect.any(String));
    }
    expect(count('retranslator_bindings')).toBe(before);
    expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: imeiTracker, retranslator_id: rid, fake_device_id: '4294967295' })).body).toEqual({ success: true });
    expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: numeric, retranslator_id: rid })).body).toEqual({ success: true });
    // a Wialon IPS retranslator with an IMEI-bound tracker cannot become EGTS
    const w = await create(wialon());
    await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: imeiTracker, retranslator_id: w });
    const u = await s.call('retranslator/update', { hash: ann.hash, retranslator: { id: w, ...egts() } });
    expect(u.body.status.code).toBe(242);
    expect((await list()).find((x) => x.id === w).protocol_id).toBe(1);
  });
});

describe('tracker bindings', () => {
  it('bind, list, rebind with a fake id, unbind', async () => {
    const rid = await create(wialon());
    const tid = s.addTracker(ann.id, `3530${n++}`);
    expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid })).body).toEqual({ success: true });
    let l = await s.call('tracker/retranslator/list', { hash: ann.hash, tracker_id: tid });
    expect(l.body.list).toEqual([{ tracker_id: tid, retranslator_id: rid, fake_device_id: null, bound: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) }]);
    expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: 'CAR-7' })).body).toEqual({ success: true });
    l = await s.call('tracker/retranslator/list', { hash: ann.hash, retranslator_id: rid });
    expect(l.body.list).toMatchObject([{ tracker_id: tid, fake_device_id: 'CAR-7' }]);
    expect((await s.call('tracker/retranslator/unbind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid })).body).toEqual({ success: true });
    expect((await s.call('tracker/retranslator/unbind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid })).body.status.code).toBe(201);
    expect((await s.call('tracker/retranslator/list', { hash: ann.hash, tracker_id: tid })).body.list).toEqual([]);
  });

  it('242 when the fake id does not match the protocol pattern; 201 for others\' entities; nothing stored', async () => {
    const rid = await create(wialon());
    const tid = s.addTracker(ann.id, `3531${n++}`);
    const bobs = s.addTracker(bob.id, `3532${n++}`);
    const before = count('retranslator_bindings');
    const bad = await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: 'has;semicolon' });
    expect(bad.body.status.code).toBe(242);
    expect(bad.body.pattern).toBe('^[A-Za-z0-9_.-]{1,64}$');
    expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: bobs, retranslator_id: rid })).body.status.code).toBe(201);
    expect((await s.call('tracker/retranslator/bind', { hash: bob.hash, tracker_id: bobs, retranslator_id: rid })).body.status.code).toBe(201);
    expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: '' })).body.status.code).toBe(7);
    expect(count('retranslator_bindings')).toBe(before);
  });

  it('a sub-user may list but not change', async () => {
    const sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: [] });
    expect((await s.call('retranslator/list', { hash: sub.hash })).body.success).toBe(true);
    expect((await s.call('retranslator/create', { hash: sub.hash, retranslator: wialon() })).body.status.code).toBe(13);
  });
});
