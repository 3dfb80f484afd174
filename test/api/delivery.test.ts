/**
 * Delivery tracking over real HTTP (issue 11; spec: Delivery info, Delivery calls, DELIVERY
 * session; decisions: docs/delivery.md): the master's delivery session, what the delivery hash
 * may call, which tasks the search finds, the answer's shape, estimated_time, ownership, errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distanceM } from '../../src/core/geo.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let sub: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
  sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: ['task_update'] });
});
afterAll(() => s.close());

let imei = 353000000000000;
const tracker = (userId = ann.id, label = 'Van 1') => s.addTracker(userId, String(imei++), { label });
const loc = { lat: 52.52, lng: 13.405, address: 'Unter den Linden 1, Berlin', radius: 100 };
const PAST = { from: '2020-01-01 08:00:00', to: '2099-01-01 10:00:00' };
const FUTURE = { from: '2099-01-01 08:00:00', to: '2099-01-02 10:00:00' };
const task = async (external_id: string, over: Record<string, unknown> = {}, hash = ann.hash) => {
  const r = await s.call('task/create', { hash, task: { label: `Parcel ${external_id}`, description: 'Box', location: loc, external_id, ...PAST, ...over } });
  if (!r.body.success) throw new Error(JSON.stringify(r.body));
  return r.body.id as number;
};
const taskValue = async (id: number) => (await s.call('task/read', { hash: ann.hash, task_id: id })).body.value;
const trackerValue = async (id: number) => (await s.call('tracker/read', { hash: ann.hash, tracker_id: id })).body.value;
/** A device_state row as the gateway's writer keeps it. */
const fix = (trackerId: number, f: { time: number; lat: number; lng: number; speed: number }) => {
  const source = s.store.trackers.getAny(trackerId)!.source_id;
  s.sql
    .prepare('INSERT OR REPLACE INTO device_state (source_id, fix_time, lat, lng, alt, speed, course, satellites, precision, last_time, attrs, updated) VALUES (?, ?, ?, ?, 0, ?, 0, 9, NULL, ?, ?, ?)')
    .run(source, f.time, f.lat, f.lng, f.speed, f.time, '{}', Date.now());
};
const deliveryHash = async () => (await s.call('user/session/delivery/create', { hash: ann.hash })).body.value as string;
const sessions = (userId: number) => s.sql.prepare("SELECT COUNT(*) FROM sessions WHERE user_id = ? AND type = 'delivery'").pluck().get(userId);

describe('the delivery session', () => {
  it('create answers one hash per master (the existing one again), read answers it, revoke deletes it', async () => {
    expect((await s.call('user/session/delivery/read', { hash: bob.hash })).body.status.code).toBe(201);
    const c = await s.call('user/session/delivery/create', { hash: bob.hash });
    expect(c.body).toEqual({ success: true, value: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(c.body.value).not.toBe(bob.hash);
    expect((await s.call('user/session/delivery/create', { hash: bob.hash })).body).toEqual({ success: true, value: c.body.value });
    expect((await s.call('user/session/delivery/read', { hash: bob.hash })).body).toEqual({ success: true, value: c.body.value });
    expect(sessions(bob.id)).toBe(1);
    expect((await s.call('user/session/delivery/revoke', { hash: bob.hash })).body).toEqual({ success: true });
    expect(sessions(bob.id)).toBe(0);
    const gone = await s.call('delivery/list', { hash: c.body.value, external_id: 'x' });
    expect(gone.body.status.code).toBe(4);
    expect((await s.call('user/session/delivery/read', { hash: bob.hash })).body.status.code).toBe(201);
    expect((await s.call('user/session/delivery/revoke', { hash: bob.hash })).body.status.code).toBe(201);
    // A new one after a revoke is a different hash.
    const again = (await s.call('user/session/delivery/create', { hash: bob.hash })).body.value;
    expect(again).not.toBe(c.body.value);
    await s.call('user/session/delivery/revoke', { hash: bob.hash });
  });

  it('an ended delivery session (unused past the session lifetime) is replaced by the next create', async () => {
    const old = (await s.call('user/session/delivery/create', { hash: bob.hash })).body.value;
    s.sql.prepare('UPDATE sessions SET last_used = 0 WHERE hash = ?').run(old);
    expect((await s.call('user/session/delivery/read', { hash: bob.hash })).body.status.code).toBe(201);
    const fresh = (await s.call('user/session/delivery/create', { hash: bob.hash })).body.value;
    expect(fresh).not.toBe(old);
    expect(sessions(bob.id)).toBe(1);
    expect((await s.call('delivery/list', { hash: old, external_id: 'x' })).body.status.code).toBe(4);
    expect((await s.call('delivery/list', { hash: fresh, external_id: 'x' })).body.status.code).toBe(201);
    await s.call('user/session/delivery/revoke', { hash: bob.hash });
  });

  it('sub-users get 13 from the session calls; the delivery hash itself cannot manage sessions (4)', async () => {
    for (const path of ['user/session/delivery/create', 'user/session/delivery/read', 'user/session/delivery/revoke']) {
      const r = await s.call(path, { hash: sub.hash });
      expect(r.body.status.code, path).toBe(13);
      expect((await s.call(path, { hash: await deliveryHash() })).body.status.code, path).toBe(4);
    }
    expect(sessions(sub.id)).toBe(0);
  });

  it('the delivery hash is accepted by delivery/read and delivery/list only: other calls answer as for an unknown session (4)', async () => {
    const t = await task('D-only');
    const h = await deliveryHash();
    await s.call('task/assign', { hash: ann.hash, task_id: t, tracker_id: tracker() });
    expect((await s.call('delivery/read', { hash: h, external_id: 'D-only' })).body.success).toBe(true);
    expect((await s.call('delivery/list', { hash: h, external_id: 'D-only' })).body.success).toBe(true);
    const unknown = await s.call('tracker/list', { hash: 'f'.repeat(32) });
    for (const path of ['tracker/list', 'task/list', 'user/get_info', 'user/logout']) {
      const r = await s.call(path, { hash: h });
      expect(r.status, path).toBe(unknown.status);
      expect(r.body, path).toEqual(unknown.body);
    }
    // Also through the Authorization header.
    const viaHeader = await s.call('delivery/read', { external_id: 'D-only' }, { headers: { 'content-type': 'application/json', authorization: `NVX ${h}` } });
    expect(viaHeader.body.success).toBe(true);
    // user/logout with it did nothing: the session still works.
    expect((await s.call('delivery/list', { hash: h, external_id: 'D-only' })).body.success).toBe(true);
  });
});

describe('delivery/read and delivery/list', () => {
  it('answers the task, its tracker, the employee names, the vehicle label, restrictions and user_id', async () => {
    const tr = tracker(ann.id, 'Van 7');
    const emp = await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Jon', middle_name: 'Q', last_name: 'Public', tracker_id: tr } });
    expect(emp.body.success).toBe(true);
    s.sql.prepare('INSERT INTO vehicles (user_id, label, tracker_id) VALUES (?, ?, ?)').run(ann.id, 'VW Crafter B-AB 123', tr);
    const t = await task('1001', { tracker_id: tr });
    const expected = {
      task: await taskValue(t),
      tracker: await trackerValue(tr),
      first_name: 'Jon',
      middle_name: 'Q',
      last_name: 'Public',
      vehicle_label: 'VW Crafter B-AB 123',
      estimated_time: null,
    };
    expect(expected.task).toMatchObject({ status: 'assigned', external_id: '1001' });
    const restrictions = { allowed_maps: ['osm'] };
    const h = await deliveryHash();
    // external_id as a number (the spec's type) or as a string.
    for (const external_id of [1001, '1001']) {
      expect((await s.call('delivery/read', { hash: h, external_id })).body).toEqual({ success: true, user_id: ann.id, ...expected, restrictions });
      expect((await s.call('delivery/list', { hash: h, external_id })).body).toEqual({ success: true, list: [expected], user_id: ann.id, restrictions });
    }
    // GET with the parameters in the query string, as a tracking page would link it.
    const get = await fetch(`${s.url}/v2/fsm/delivery/read?hash=${h}&external_id=1001`);
    expect(await get.json()).toEqual({ success: true, user_id: ann.id, ...expected, restrictions });
    // A user session works too, a sub-user's answering for its master.
    expect((await s.call('delivery/read', { hash: ann.hash, external_id: 1001 })).body).toEqual({ success: true, user_id: ann.id, ...expected, restrictions });
    expect((await s.call('delivery/list', { hash: sub.hash, external_id: 1001 })).body).toEqual({ success: true, list: [expected], user_id: ann.id, restrictions });
  });

  it('a task without employee or vehicle answers null names and label', async () => {
    const tr = tracker();
    const t = await task('bare', { tracker_id: tr });
    const r = await s.call('delivery/read', { hash: ann.hash, external_id: 'bare' });
    expect(r.body).toEqual({
      success: true, user_id: ann.id, task: await taskValue(t), tracker: await trackerValue(tr),
      first_name: null, middle_name: null, last_name: null, vehicle_label: null, estimated_time: null, restrictions: { allowed_maps: ['osm'] },
    });
  });

  it('finds only tasks started at or before now in status arrived, assigned or delayed', async () => {
    const tr = tracker();
    const assigned = await task('S-1', { tracker_id: tr });
    const arrived = await task('S-1', { tracker_id: tr });
    const delayed = await task('S-1', { tracker_id: tr });
    const done = await task('S-1', { tracker_id: tr });
    const failed = await task('S-1', { tracker_id: tr });
    await task('S-1', { tracker_id: tr, ...FUTURE });
    await task('S-1'); // unassigned
    s.store.tasks.setOutcome(arrived, { status: 'arrived', at: Date.now(), arrival_date: Date.now() });
    s.store.tasks.setOutcome(delayed, { status: 'delayed', at: Date.now() });
    s.store.tasks.setOutcome(done, { status: 'done', at: Date.now() });
    s.store.tasks.setOutcome(failed, { status: 'failed', at: Date.now() });
    const h = await deliveryHash();
    const list = (await s.call('delivery/list', { hash: h, external_id: 'S-1' })).body.list;
    expect(list.map((d: any) => [d.task.id, d.task.status])).toEqual([[assigned, 'assigned'], [arrived, 'arrived'], [delayed, 'delayed']]);
    // Only a future task and a done task: nothing is current.
    await task('S-2', { tracker_id: tr, ...FUTURE });
    const d2 = await task('S-2', { tracker_id: tr });
    s.store.tasks.setOutcome(d2, { status: 'done', at: Date.now() });
    for (const path of ['delivery/read', 'delivery/list']) {
      const r = await s.call(path, { hash: h, external_id: 'S-2' });
      expect(r.status).toBe(404);
      expect(r.body.status.code, path).toBe(201);
    }
  });

  it('read answers the first task before any checkpoint; list answers every match, tasks first', async () => {
    const tr = tracker();
    const cp = (label: string) => ({ label, location: loc, external_id: 'R-9', ...PAST });
    const route = await s.call('task/route/create', { hash: ann.hash, route: { label: 'Round', external_id: 'R-9', tracker_id: tr }, checkpoints: [cp('A'), cp('B')] });
    expect(route.body.success).toBe(true);
    const [a, b] = route.body.result.checkpoint_ids;
    const h = await deliveryHash();
    // Only checkpoints: read answers the first one.
    expect((await s.call('delivery/read', { hash: h, external_id: 'R-9' })).body.task.id).toBe(a);
    const t1 = await task('R-9', { tracker_id: tr });
    const t2 = await task('R-9', { tracker_id: tr });
    const read = (await s.call('delivery/read', { hash: h, external_id: 'R-9' })).body;
    expect(read.task).toEqual(await taskValue(t1));
    const list = (await s.call('delivery/list', { hash: h, external_id: 'R-9' })).body.list;
    expect(list.map((d: any) => [d.task.id, d.task.type])).toEqual([[t1, 'task'], [t2, 'task'], [a, 'checkpoint'], [b, 'checkpoint']]);
  });

  it("another user's external id is 201, by a user session and by the delivery hash", async () => {
    await task('BOB-1', { tracker_id: tracker(bob.id) }, bob.hash);
    expect((await s.call('delivery/read', { hash: bob.hash, external_id: 'BOB-1' })).body.success).toBe(true);
    const h = await deliveryHash();
    for (const hash of [ann.hash, h, sub.hash]) {
      for (const path of ['delivery/read', 'delivery/list']) {
        const r = await s.call(path, { hash, external_id: 'BOB-1' });
        expect(r.body, path).toEqual({ success: false, status: { code: 201, description: expect.any(String) } });
      }
    }
  });

  it('estimated_time: null without a fix, seconds from the last fix at its speed (at least 10 km/h), null for an old fix', async () => {
    const tr = tracker();
    await task('ETA', { tracker_id: tr });
    const h = await deliveryHash();
    const eta = async () => (await s.call('delivery/read', { hash: h, external_id: 'ETA' })).body.estimated_time;
    expect(await eta()).toBeNull();
    const lat = 52.6;
    const distance = distanceM(lat, 13.405, loc.lat, loc.lng) - loc.radius;
    fix(tr, { time: Date.now() - 60_000, lat, lng: 13.405, speed: 54 });
    expect(await eta()).toBe(Math.round(distance / 15));
    expect((await s.call('delivery/list', { hash: h, external_id: 'ETA' })).body.list[0].estimated_time).toBe(Math.round(distance / 15));
    // Standing still: the floor speed.
    fix(tr, { time: Date.now() - 60_000, lat, lng: 13.405, speed: 0 });
    expect(await eta()).toBe(Math.round(distance / (10 / 3.6)));
    // Inside the task's zone: 0.
    fix(tr, { time: Date.now(), lat: loc.lat, lng: loc.lng, speed: 30 });
    expect(await eta()).toBe(0);
    // Offline for more than 15 minutes: unknown.
    fix(tr, { time: Date.now() - 16 * 60_000, lat, lng: 13.405, speed: 54 });
    expect(await eta()).toBeNull();
  });

  it('bad inputs answer 7 naming external_id', async () => {
    const h = await deliveryHash();
    for (const path of ['delivery/read', 'delivery/list']) {
      for (const bad of [undefined, '', 1.5, -1, true, null, { a: 1 }, 'x'.repeat(257)]) {
        const r = await s.call(path, { hash: h, external_id: bad });
        expect(r.status, `${path} ${JSON.stringify(bad)}`).toBe(400);
        expect(r.body.status.code).toBe(7);
        expect(r.body.errors[0].parameter).toBe('external_id');
      }
    }
    expect((await s.call('delivery/read', { external_id: 1 })).body.status.code).toBe(4);
  });
});
