/** The admin command, run as a real process against the data directory of a running server (issue 2). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsm } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.close());

describe('npm run fsm', () => {
  it('user create --json prints the new id; the user can log in over HTTP', async () => {
    const r = fsm(s.dataDir, 'user', 'create', '--login', 'ops@example.com', '--password', 'Str0ng pw', '--time-zone', 'Europe/Paris', '--locale', 'fr', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ id: expect.any(Number) });
    const auth = await s.call('user/auth', { login: 'ops@example.com', password: 'Str0ng pw' });
    expect(auth.body.success).toBe(true);
    const info = await s.call('user/get_info', { hash: auth.body.hash });
    expect(info.body.user_info).toMatchObject({ id: r.json.id, time_zone: 'Europe/Paris', locale: 'fr' });
  });
  it('sub-user with rights; unknown rights and bad values are refused with a clear message', async () => {
    const r = fsm(s.dataDir, 'user', 'create', '--parent', 'ops@example.com', '--login', 'dispatch@example.com', '--password', 'pw', '--rights', 'task_update,place_update', '--json');
    expect(r.code).toBe(0);
    const auth = await s.call('user/auth', { login: 'dispatch@example.com', password: 'pw' });
    expect((await s.call('user/get_info', { hash: auth.body.hash })).body.privileges).toEqual({ rights: ['task_update', 'place_update'] });
    const bad = fsm(s.dataDir, 'user', 'create', '--parent', 'ops@example.com', '--login', 'x@example.com', '--password', 'pw', '--rights', 'fly');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown right(s) fly');
    expect(fsm(s.dataDir, 'user', 'create', '--login', 'y@example.com', '--password', 'pw', '--time-zone', 'Mars/Olympus').stderr).toContain('unknown time zone');
    expect(fsm(s.dataDir, 'user', 'create', '--login', 'ops@example.com', '--password', 'pw').stderr).toContain('exists already');
    expect(s.store.users.findByLogin('x@example.com')).toBeUndefined();
  });
  it('--demo and --unactivated', async () => {
    expect(fsm(s.dataDir, 'user', 'create', '--login', 'demo@example.com', '--password', 'pw', '--demo').code).toBe(0);
    const auth = await s.call('user/auth', { login: 'demo@example.com', password: 'pw' });
    expect((await s.call('user/get_info', { hash: auth.body.hash })).body.user_info.demo).toBe(true);
    const r = fsm(s.dataDir, 'user', 'create', '--login', 'wait@example.com', '--password', 'pw', '--unactivated');
    expect(r.stdout).toContain('activation link mailed');
    expect((await s.call('user/auth', { login: 'wait@example.com', password: 'pw' })).body.status.code).toBe(103);
  });
  it('tracker add, clone, block, unblock', async () => {
    const add = fsm(s.dataDir, 'tracker', 'add', '--user', 'ops@example.com', '--device-id', '356307042441013', '--protocol', 'teltonika', '--label', 'Truck 7', '--model', 'FMB920', '--phone', '4917000000001', '--json');
    expect(add.code).toBe(0);
    const id = add.json.id;
    const ops = (await s.call('user/auth', { login: 'ops@example.com', password: 'Str0ng pw' })).body.hash;
    const list = (await s.call('tracker/list', { hash: ops })).body.list;
    expect(list).toEqual([expect.objectContaining({ id, label: 'Truck 7', clone: false, source: expect.objectContaining({ device_id: '356307042441013', model: 'FMB920', phone: '4917000000001', blocked: false }) })]);
    expect(fsm(s.dataDir, 'tracker', 'add', '--user', 'ops@example.com', '--device-id', '356307042441013', '--protocol', 'teltonika').stderr).toContain('registered already');
    expect(fsm(s.dataDir, 'tracker', 'add', '--user', 'ops@example.com', '--device-id', '1', '--protocol', 'carrier-pigeon').stderr).toContain('unknown protocol carrier-pigeon');

    fsm(s.dataDir, 'user', 'create', '--login', 'partner@example.com', '--password', 'pw');
    const clone = fsm(s.dataDir, 'tracker', 'clone', '--tracker', String(id), '--to', 'partner@example.com', '--json');
    expect(clone.code).toBe(0);
    const partner = (await s.call('user/auth', { login: 'partner@example.com', password: 'pw' })).body.hash;
    expect((await s.call('tracker/list', { hash: partner })).body.list).toEqual([expect.objectContaining({ id: clone.json.id, clone: true, label: 'Truck 7' })]);

    expect(fsm(s.dataDir, 'tracker', 'block', String(id)).code).toBe(0);
    expect((await s.call('tracker/read', { hash: ops, tracker_id: id })).body.value.source.blocked).toBe(true);
    expect((await s.call('tracker/change_phone', { hash: ops, tracker_id: id, phone: '4917000000002' })).body.status.code).toBe(208);
    expect(fsm(s.dataDir, 'tracker', 'unblock', String(id)).code).toBe(0);
    expect((await s.call('tracker/read', { hash: ops, tracker_id: id })).body.value.source.blocked).toBe(false);
    expect(fsm(s.dataDir, 'tracker', 'block', '99999').stderr).toContain('no tracker 99999');
  });
  it('dealer block gives 11 to the user and its sub-users; unblock lifts it', async () => {
    expect(fsm(s.dataDir, 'dealer', 'block', '--user', 'ops@example.com').code).toBe(0);
    expect((await s.call('user/auth', { login: 'ops@example.com', password: 'Str0ng pw' })).body.status.code).toBe(11);
    expect((await s.call('user/auth', { login: 'dispatch@example.com', password: 'pw' })).body.status.code).toBe(11);
    expect(fsm(s.dataDir, 'dealer', 'unblock', '--user', 'ops@example.com').code).toBe(0);
    expect((await s.call('user/auth', { login: 'ops@example.com', password: 'Str0ng pw' })).body.success).toBe(true);
  });
  it('tariff set changes the user\'s own tariff only', async () => {
    const r = fsm(s.dataDir, 'tariff', 'set', '--user', 'ops@example.com', '--allowed-maps', 'osm,satellite', '--max-places', '5', '--has-reports', 'false');
    expect(r.code).toBe(0);
    const ops = (await s.call('user/auth', { login: 'ops@example.com', password: 'Str0ng pw' })).body.hash;
    expect((await s.call('user/get_tariff_restrictions', { hash: ops })).body.value).toEqual({ allowed_maps: ['osm', 'satellite'] });
    expect((await s.call('user/get_info', { hash: ops })).body.features).toEqual(['tasks', 'chat', 'statuses']);
    const partner = (await s.call('user/auth', { login: 'partner@example.com', password: 'pw' })).body.hash;
    expect((await s.call('user/get_tariff_restrictions', { hash: partner })).body.value).toEqual({ allowed_maps: ['osm'] });
    expect(fsm(s.dataDir, 'tariff', 'set', '--user', 'ops@example.com', '--max-places', 'many').stderr).toContain('--max-places takes a whole number');
  });
  it('app phone registers a phone tracker and prints its activation code; the app exchanges it over HTTP', async () => {
    const r = fsm(s.dataDir, 'app', 'phone', '--user', 'ops@example.com', '--label', 'Phone Eva', '--json');
    expect(r.code).toBe(0);
    expect(r.json).toEqual({ id: expect.any(Number), device_id: expect.stringMatching(/^app-\d{12}$/), code: expect.stringMatching(/^[2-9A-Z]{4}-[2-9A-Z]{4}$/), expires: expect.any(String) });
    expect(Date.parse(r.json.expires) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const t = s.store.trackers.getAny(r.json.id)!;
    expect([t.protocol, t.label, t.device_id]).toEqual(['osmand', 'Phone Eva', r.json.device_id]);
    const act = await s.call('app/activate', { code: r.json.code });
    expect(act.body).toMatchObject({ success: true, tracker_id: r.json.id, positions: { device_id: r.json.device_id } });
    // A new code for the same tracker, in plain text.
    const again = fsm(s.dataDir, 'app', 'code', String(r.json.id));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^activation code for tracker ${r.json.id}: [2-9A-Z]{4}-[2-9A-Z]{4}, valid until `));
    // Revoked: the token answers 4.
    const rev = fsm(s.dataDir, 'app', 'revoke', String(r.json.id), '--json');
    expect(rev.json).toEqual({ id: r.json.id, revoked: 1 });
    expect((await s.call('app/read', { hash: act.body.token })).body.status.code).toBe(4);
    // The code printed before the revocation is void too.
    expect((await s.call('app/activate', { code: again.stdout.split(': ')[1].split(',')[0] })).body.status.code).toBe(102);
  });
  it('app phone and app code refuse what cannot carry the app, with a clear message', () => {
    const taken = fsm(s.dataDir, 'app', 'phone', '--user', 'ops@example.com', '--device-id', '356307042441013');
    expect([taken.code, taken.stderr]).toEqual([2, expect.stringContaining('registered already')]);
    expect(fsm(s.dataDir, 'app', 'phone', '--user', 'nobody@example.com').stderr).toContain('no user with login nobody@example.com');
    const truck = s.sql.prepare("SELECT t.id FROM trackers t JOIN sources s ON s.id = t.source_id WHERE s.device_id = '356307042441013'").pluck().get() as number;
    const wrong = fsm(s.dataDir, 'app', 'code', String(truck));
    expect([wrong.code, wrong.stderr]).toEqual([2, expect.stringContaining('the field app reports with osmand')]);
    expect(fsm(s.dataDir, 'app', 'code', '999999').stderr).toContain('no tracker 999999');
    expect(s.sql.prepare('SELECT count(*) FROM app_activation_codes WHERE tracker_id = ?').pluck().get(truck)).toBe(0);
  });
  it('unknown commands and options: usage and exit code 2', () => {
    const r = fsm(s.dataDir, 'frobnicate');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: npm run fsm');
    expect(fsm(s.dataDir, 'user', 'create', '--bogus').code).toBe(2);
  });
});
