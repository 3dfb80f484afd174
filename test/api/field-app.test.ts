/**
 * The field app's API over real HTTP (issue 11, "The field app's API"; docs/field-app.md):
 * activation codes and device tokens, the split between device and user calls, the task feed
 * with its cursor and its server-sent events, chat and the employee's own status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allCalls } from '../../src/api/server.ts';
import { CODE_ALPHABET } from '../../src/fieldapp/activation.ts';
import { MAX_WATCHES_PER_TRACKER } from '../../src/api/app-watch.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { openSse, until } from '../helpers/sse.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const TZ = 'Europe/Berlin';
beforeAll(async () => {
  s = await startTestServer({ FSM_OSMAND_PORT: '0', FSM_APP_HEARTBEAT_SECONDS: '1', FSM_APP_WATCH_POLL_MS: '50' });
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

let n = 0;
const phone = (userId = ann.id, protocol = 'osmand') => s.addTracker(userId, `phone-${++n}`, { protocol, label: `Phone ${n}` });
const CODE = new RegExp(`^[${CODE_ALPHABET}]{4}-[${CODE_ALPHABET}]{4}$`);
const count = (table: string) => s.sql.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

async function code(trackerId: number, hash = ann.hash): Promise<string> {
  const r = await s.call('tracker/app/activation/create', { hash, tracker_id: trackerId });
  expect(r.body).toEqual({ success: true, code: expect.stringMatching(CODE), expires: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
  return r.body.code;
}
async function activated(trackerId: number): Promise<string> {
  const r = await s.call('app/activate', { code: await code(trackerId), label: 'Pixel 8, app 1.0' });
  expect(r.body.success).toBe(true);
  return r.body.token;
}
const app = (path: string, token: string, params: Record<string, unknown> = {}) => s.call(path, { hash: token, ...params });
const fail = (code: number) => ({ success: false, status: { code, description: expect.any(String) } });

describe('activation', () => {
  it('a code (typeable, expiring) becomes a device token once; the tracker lists the device', async () => {
    const t = phone();
    const c = await code(t);
    // Case and separators do not matter when typing it.
    const r = await s.call('app/activate', { code: ` ${c.toLowerCase().replace('-', ' ')} `, label: 'Pixel 8' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      tracker_id: t,
      label: `Phone ${n}`,
      // The configured port (this test server's is ephemeral: null, the app then keeps what it was told).
      positions: { protocol: 'osmand', device_id: `phone-${n}`, port: null },
    });
    // Only the token's SHA-256 is stored.
    expect(s.sql.prepare('SELECT token_hash FROM app_tokens WHERE tracker_id = ?').pluck().get(t)).toMatch(/^[0-9a-f]{64}$/);
    const again = await s.call('app/activate', { code: c });
    expect(again.status).toBe(401);
    expect(again.body).toEqual(fail(102));
    const read = await s.call('tracker/app/read', { hash: ann.hash, tracker_id: t });
    expect(read.body).toEqual({ success: true, activation: null, devices: [{ id: expect.any(Number), label: 'Pixel 8', created: expect.any(String), last_used: expect.any(String) }] });
  });

  it('a newer code replaces the unused one; read shows its expiry 24 hours on', async () => {
    const t = phone();
    const old = await code(t);
    const fresh = await code(t);
    expect((await s.call('app/activate', { code: old })).body).toEqual(fail(102));
    const read = await s.call('tracker/app/read', { hash: ann.hash, tracker_id: t });
    const expires = s.sql.prepare('SELECT expires - created FROM app_activation_codes WHERE tracker_id = ?').pluck().get(t);
    expect(expires).toBe(24 * 3_600_000);
    expect(read.body.activation).toEqual({ expires: expect.any(String) });
    expect((await s.call('app/activate', { code: fresh })).body.success).toBe(true);
  });

  it('an expired code is refused (102) and forgotten; garbage is 102 too and stores nothing', async () => {
    const t = phone();
    const c = await code(t);
    s.sql.prepare('UPDATE app_activation_codes SET expires = ? WHERE tracker_id = ?').run(Date.now() - 1, t);
    expect((await s.call('app/activate', { code: c })).body).toEqual(fail(102));
    expect(s.store.fieldApp.codeOf(t)).toBeUndefined();
    const tokens = count('app_tokens');
    for (const bad of ['', 'AAAA', '0000-0000', 'ABCD-EFGH-JK']) expect((await s.call('app/activate', { code: bad })).body).toEqual(fail(102));
    expect(count('app_tokens')).toBe(tokens);
  });

  it('refused for a blocked tracker (208, the code stays) and a deleted one (201)', async () => {
    const t = phone();
    const c = await code(t);
    s.store.trackers.setBlocked(s.store.trackers.getAny(t)!.source_id, true);
    expect((await s.call('app/activate', { code: c })).body).toEqual(fail(208));
    s.store.trackers.setBlocked(s.store.trackers.getAny(t)!.source_id, false);
    expect((await s.call('app/activate', { code: c })).body.success).toBe(true);

    const d = phone();
    const dc = await code(d);
    s.store.trackers.markDeleted(d);
    const r = await s.call('app/activate', { code: dc });
    expect(r.status).toBe(404);
    expect(r.body).toEqual(fail(201));
  });

  it('codes only for own, original, unblocked osmand trackers (201, 219, 208, 214) and nothing is stored', async () => {
    const before = count('app_activation_codes');
    const create = (tracker_id: number) => s.call('tracker/app/activation/create', { hash: ann.hash, tracker_id });
    expect((await create(phone(bob.id))).body).toEqual(fail(201));
    expect((await create(999_999)).body).toEqual(fail(201));
    expect((await create(phone(ann.id, 'teltonika'))).body).toEqual(fail(214));
    const orig = phone(bob.id);
    const clone = s.store.trackers.clone(s.store.trackers.getAny(orig)!, ann.id, 'Clone');
    expect((await create(clone)).body).toEqual(fail(219));
    const blocked = phone();
    s.store.trackers.setBlocked(s.store.trackers.getAny(blocked)!.source_id, true);
    expect((await create(blocked)).body).toEqual(fail(208));
    expect((await s.call('tracker/app/activation/create', { hash: ann.hash, tracker_id: 'x' })).body.errors).toEqual([{ parameter: 'tracker_id', error: expect.any(String) }]);
    expect(count('app_activation_codes')).toBe(before);
  });
});

describe('the device token', () => {
  let t: number;
  let token: string;
  beforeAll(async () => {
    t = phone();
    token = await activated(t);
  });

  it('opens app calls, as the parameter or the Authorization header', async () => {
    const r = await app('app/read', token);
    expect(r.body).toEqual({ success: true, tracker: expect.objectContaining({ id: t, label: `Phone ${n}` }), employee: null, time_zone: TZ });
    const h = await s.call('app/read', {}, { headers: { 'content-type': 'application/json', authorization: `NVX ${token}` } });
    expect(h.body.success).toBe(true);
    expect((await s.call('app/read', {})).body).toEqual(fail(4));
  });

  it('every user call refuses it (4), every app call refuses a user session (4)', async () => {
    const userCalls = allCalls.filter((c) => c.access !== 'device' && c.access !== 'public');
    const deviceCalls = allCalls.filter((c) => c.access === 'device');
    expect(deviceCalls.map((c) => c.path).sort()).toEqual(expect.arrayContaining(['app/chat/list', 'app/chat/send', 'app/read', 'app/status/assign', 'app/status/read', 'app/task/list', 'app/task/watch']));
    for (const c of userCalls) {
      const r = await s.call(c.path, { hash: token });
      expect([c.path, r.body.status?.code]).toEqual([c.path, 4]);
    }
    for (const c of deviceCalls) {
      const r = await s.call(c.path, { hash: ann.hash });
      expect([c.path, r.status, r.body.status?.code]).toEqual([c.path, 403, 4]);
    }
  });

  it('a blocked tracker answers 208, a revoked token 4, one token revoked leaves the others', async () => {
    const t2 = phone();
    const a = await activated(t2);
    const b = await activated(t2);
    s.store.trackers.setBlocked(s.store.trackers.getAny(t2)!.source_id, true);
    expect((await app('app/read', a)).body).toEqual(fail(208));
    s.store.trackers.setBlocked(s.store.trackers.getAny(t2)!.source_id, false);
    const devices = (await s.call('tracker/app/read', { hash: ann.hash, tracker_id: t2 })).body.devices;
    expect(devices).toHaveLength(2);
    expect((await s.call('tracker/app/revoke', { hash: ann.hash, tracker_id: t2, token_id: devices[0].id })).body).toEqual({ success: true, revoked: 1 });
    expect((await app('app/read', a)).body).toEqual(fail(4));
    expect((await app('app/read', b)).body.success).toBe(true);
    expect((await s.call('tracker/app/revoke', { hash: ann.hash, tracker_id: t2, token_id: devices[0].id })).body).toEqual(fail(201));
    // Bob cannot revoke Ann's app.
    expect((await s.call('tracker/app/revoke', { hash: bob.hash, tracker_id: t2 })).body).toEqual(fail(201));
    expect((await s.call('tracker/app/revoke', { hash: ann.hash, tracker_id: t2 })).body).toEqual({ success: true, revoked: 1 });
    expect((await app('app/read', b)).body).toEqual(fail(4));
  });

  it('a deleted tracker: its tokens answer 4', async () => {
    const t3 = phone();
    const k = await activated(t3);
    s.store.trackers.markDeleted(t3);
    expect((await app('app/read', k)).body).toEqual(fail(4));
  });
});

// ---- task feed

const berlin = { lat: 52.52, lng: 13.405, address: 'Alexanderplatz 1', radius: 150 };
async function task(trackerId: number | null, label = 'Visit'): Promise<number> {
  const r = await s.call('task/create', { hash: ann.hash, task: { label, location: berlin, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', ...(trackerId ? { tracker_id: trackerId } : {}) } });
  expect(r.body.success).toBe(true);
  return r.body.id;
}

describe('app/task/list', () => {
  it('the whole list without a cursor, then only changes: created, updated, unassigned, reassigned, deleted', async () => {
    const t = phone();
    const other = phone();
    const token = await activated(t);
    const token2 = await activated(other);
    const kept = await task(t, 'Kept');
    const first = await app('app/task/list', token);
    expect(first.body).toEqual({ success: true, list: [expect.objectContaining({ id: kept, label: 'Kept', tracker_id: t, from: '2030-01-10 09:00:00', status: 'assigned' })], removed: [], cursor: expect.any(Number), reset: true, more: false });
    let cursor = first.body.cursor;
    const none = await app('app/task/list', token, { cursor });
    expect(none.body).toEqual({ success: true, list: [], removed: [], cursor, reset: false, more: false });

    const a = await task(t, 'A');
    await task(null, 'Not ours');
    const b = await task(other, 'B');
    let r = await app('app/task/list', token, { cursor });
    expect(r.body.list.map((x: { id: number }) => x.id)).toEqual([a]);
    expect(r.body.cursor).toBeGreaterThan(cursor);
    cursor = r.body.cursor;

    expect((await s.call('task/update', { hash: ann.hash, task: { id: a, label: 'A2', location: berlin, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00' } })).body.success).toBe(true);
    r = await app('app/task/list', token, { cursor });
    expect(r.body.list).toEqual([expect.objectContaining({ id: a, label: 'A2' })]);
    cursor = r.body.cursor;

    // Reassigned: gone from this tracker's feed, new in the other's.
    const c2 = (await app('app/task/list', token2)).body.cursor;
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: other })).body.success).toBe(true);
    r = await app('app/task/list', token, { cursor });
    expect(r.body).toMatchObject({ list: [], removed: [a] });
    cursor = r.body.cursor;
    expect((await app('app/task/list', token2, { cursor: c2 })).body.list.map((x: { id: number }) => x.id)).toEqual([a]);

    // Assigned here, then unassigned, then deleted.
    expect((await s.call('task/assign', { hash: ann.hash, task_id: b, tracker_id: t })).body.success).toBe(true);
    r = await app('app/task/list', token, { cursor });
    expect(r.body).toMatchObject({ list: [expect.objectContaining({ id: b, tracker_id: t })], removed: [] });
    cursor = r.body.cursor;
    expect((await s.call('task/assign', { hash: ann.hash, task_id: b, tracker_id: null })).body.success).toBe(true);
    expect((await s.call('task/delete', { hash: ann.hash, task_id: kept })).body.success).toBe(true);
    r = await app('app/task/list', token, { cursor });
    expect(r.body).toMatchObject({ list: [], removed: [b, kept], reset: false });
  });

  it('a cursor ahead of the feed is 7 naming it; a pruned one answers the whole list again', async () => {
    const t = phone();
    const token = await activated(t);
    const head = s.store.fieldApp.feedHead();
    const r = await app('app/task/list', token, { cursor: head + 1000 });
    expect(r.body).toEqual({ ...fail(7), errors: [{ parameter: 'cursor', error: expect.any(String) }] });
    expect((await app('app/task/list', token, { cursor: -1 })).body.errors[0].parameter).toBe('cursor');
    const id = await task(t);
    s.sql.prepare("UPDATE versions SET value = ? WHERE name = 'app_task_feed_pruned'").run(head + 1);
    try {
      const again = await app('app/task/list', token, { cursor: head });
      expect(again.body).toMatchObject({ list: [expect.objectContaining({ id })], reset: true });
    } finally {
      s.sql.prepare("UPDATE versions SET value = 0 WHERE name = 'app_task_feed_pruned'").run();
    }
  });

  it("the telemetry core's outcome writes reach the feed too", async () => {
    const t = phone();
    const token = await activated(t);
    const id = await task(t);
    const cursor = (await app('app/task/list', token)).body.cursor;
    s.store.tasks.setOutcome(id, { status: 'arrived', at: Date.now(), arrival_date: Date.now() });
    const r = await app('app/task/list', token, { cursor });
    expect(r.body.list).toEqual([expect.objectContaining({ id, status: 'arrived' })]);
  });
});

describe('app/task/watch (server-sent events)', () => {
  const watchUrl = (token: string, q = '') => `${s.url}/v2/fsm/app/task/watch?hash=${encodeURIComponent(token)}${q}`;

  it('starts with the list, pushes each change, beats its heart, and closes when the token is revoked', async () => {
    const t = phone();
    const token = await activated(t);
    const w = await openSse(watchUrl(token));
    try {
      expect(w.status).toBe(200);
      expect(w.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const first = await w.next((e) => e.event === 'tasks');
      expect(first.data).toMatchObject({ list: [], removed: [], reset: true });
      expect(first.id).toBe(String(first.data.cursor));
      const at = w.events.length;
      const id = await task(t, 'Pushed');
      const pushed = await w.next((e) => e.event === 'tasks', at);
      expect(pushed.data).toMatchObject({ list: [expect.objectContaining({ id, label: 'Pushed' })], removed: [], reset: false });
      expect(Number(pushed.id)).toBeGreaterThan(first.data.cursor);
      await w.next((e) => e.comment === 'heartbeat', 0, 3000);
      const before = w.events.length;
      expect((await s.call('task/delete', { hash: ann.hash, task_id: id })).body.success).toBe(true);
      expect((await w.next((e) => e.event === 'tasks', before)).data).toMatchObject({ list: [], removed: [id] });
      // Another tracker's task is not pushed here.
      const mark = w.events.filter((e) => e.event === 'tasks').length;
      await task(phone());
      await new Promise((r) => setTimeout(r, 300));
      expect(w.events.filter((e) => e.event === 'tasks').length).toBe(mark);
      expect((await s.call('tracker/app/revoke', { hash: ann.hash, tracker_id: t })).body.success).toBe(true);
      await w.next((e) => e.event === 'revoked');
      await w.closed();
    } finally {
      w.close();
    }
  });

  it('resumes from Last-Event-ID; a bad cursor is an ordinary error answer', async () => {
    const t = phone();
    const token = await activated(t);
    const cursor = (await app('app/task/list', token)).body.cursor;
    const id = await task(t);
    const w = await openSse(watchUrl(token), { 'last-event-id': String(cursor) });
    try {
      expect((await w.next((e) => e.event === 'tasks')).data).toMatchObject({ list: [expect.objectContaining({ id })], reset: false });
    } finally {
      w.close();
    }
    const bad = await openSse(watchUrl(token, '&cursor=99999999'));
    expect(bad.status).toBe(400);
    expect(bad.body.status.code).toBe(7);
    const user = await openSse(watchUrl(ann.hash));
    expect(user.status).toBe(403);
    expect(user.body.status.code).toBe(4);
  });

  it(`at most ${MAX_WATCHES_PER_TRACKER} watches per tracker: a newer one replaces the oldest`, async () => {
    const t = phone();
    const token = await activated(t);
    const ws = [];
    try {
      for (let i = 0; i <= MAX_WATCHES_PER_TRACKER; i++) {
        const w = await openSse(watchUrl(token));
        await w.next((e) => e.event === 'tasks');
        ws.push(w);
      }
      await ws[0].next((e) => e.event === 'replaced');
      await ws[0].closed();
      for (const w of ws.slice(1)) expect(w.ended).toBe(false);
      // A blocked tracker closes its watches too.
      s.store.trackers.setBlocked(s.store.trackers.getAny(t)!.source_id, true);
      for (const w of ws.slice(1)) await w.closed();
    } finally {
      s.store.trackers.setBlocked(s.store.trackers.getAny(t)!.source_id, false);
      for (const w of ws) w.close();
    }
  });
});

// ---- chat

describe('chat', () => {
  it("the operator's message reaches the app (DELIVERED), the app's message is INCOMING from the employee", async () => {
    const t = phone();
    const token = await activated(t);
    const emp = await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Eva', last_name: 'Field', tracker_id: t } });
    expect(emp.body.success).toBe(true);
    const sent = await s.call('tracker/chat/send', { hash: ann.hash, tracker_id: t, message: 'Call the office' });
    expect(sent.body).toEqual({ success: true, id: expect.any(Number) });
    expect(s.store.chat.get(sent.body.id)!.status).toBe('PENDING');
    const list = await app('app/chat/list', token);
    expect(list.body).toEqual({ success: true, list: [{ id: sent.body.id, submit_time: expect.any(String), update_time: expect.any(String), text: 'Call the office', type: 'OUTGOING', status: 'DELIVERED' }] });
    expect(s.store.chat.get(sent.body.id)!.status).toBe('DELIVERED');
    const reply = await app('app/chat/send', token, { message: 'On my way' });
    expect(reply.body).toEqual({ success: true, id: expect.any(Number) });
    const ops = await s.call('tracker/chat/list', { hash: ann.hash, tracker_id: t });
    expect(ops.body.list.map((m: { text: string; type: string; status: string; employee_id: number | null }) => [m.text, m.type, m.status, m.employee_id])).toEqual([
      ['Call the office', 'OUTGOING', 'DELIVERED', null],
      ['On my way', 'INCOMING', 'DELIVERED', emp.body.id],
    ]);
    expect((await s.call('tracker/chat/unread/count', { hash: ann.hash })).body.value[t]).toBe(1);
  });

  it('empty or oversized messages are 7 and store nothing; a bad period is 7', async () => {
    const t = phone();
    const token = await activated(t);
    const before = count('chat_messages');
    expect((await app('app/chat/send', token, { message: '  ' })).body.errors[0].parameter).toBe('message');
    expect((await app('app/chat/send', token, { message: 'x'.repeat(20_001) })).body.errors[0].parameter).toBe('message');
    expect((await app('app/chat/list', token, { from: 'yesterday' })).body.errors[0].parameter).toBe('from');
    expect(count('chat_messages')).toBe(before);
  });
});

// ---- own status

describe('own status', () => {
  async function listing(employeeControlled: boolean): Promise<{ l: number; a: number; b: number }> {
    const l = (await s.call('status/listing/create', { hash: ann.hash, listing: { label: 'Shift', employee_controlled: employeeControlled } })).body.id;
    const a = (await s.call('status/create', { hash: ann.hash, listing_id: l, status: { label: 'Busy', color: 'ff0000' } })).body.id;
    const b = (await s.call('status/create', { hash: ann.hash, listing_id: l, status: { label: 'Free', color: '00ff00' } })).body.id;
    return { l, a, b };
  }

  it('the employee changes it when the listing is employee-controlled (origin employee); the supervisor sees it', async () => {
    const t = phone();
    const token = await activated(t);
    expect((await app('app/status/read', token)).body).toEqual({ success: true, listing: null, current_status: null, last_change: null });
    expect((await app('app/status/assign', token, { new_status_id: 1 })).body).toEqual(fail(204));
    const { l, a, b } = await listing(true);
    expect((await s.call('status/listing/tracker/assign', { hash: ann.hash, tracker_id: t, listing_id: l })).body.success).toBe(true);
    const foreign = await listing(true);
    expect((await app('app/status/assign', token, { new_status_id: foreign.a })).body).toEqual(fail(204));
    const r = await app('app/status/assign', token, { new_status_id: a });
    expect(r.body).toEqual({ success: true, last_change: { id: expect.any(Number), old_status_id: null, new_status_id: a, location: null, changed: expect.any(String), origin: 'employee' } });
    expect((await app('app/status/assign', token, { new_status_id: a })).body).toEqual(fail(263));
    expect((await s.call('status/tracker/assign', { hash: ann.hash, tracker_id: t, new_status_id: b })).body.last_change.origin).toBe('supervisor');
    const read = await app('app/status/read', token);
    expect(read.body).toEqual({
      success: true,
      listing: { id: l, label: 'Shift', employee_controlled: true, statuses: [{ id: a, label: 'Busy', color: 'FF0000' }, { id: b, label: 'Free', color: '00FF00' }] },
      current_status: { id: b, label: 'Free', color: '00FF00' },
      last_change: expect.objectContaining({ old_status_id: a, new_status_id: b, origin: 'supervisor' }),
    });
    const history = s.sql.prepare('SELECT origin FROM status_changes WHERE tracker_id = ? ORDER BY id').pluck().all(t);
    expect(history).toEqual(['employee', 'supervisor']);
  });

  it('13 when the listing is not employee-controlled, 7 for a bad id, and nothing is recorded', async () => {
    const t = phone();
    const token = await activated(t);
    const { l, a } = await listing(false);
    expect((await s.call('status/listing/tracker/assign', { hash: ann.hash, tracker_id: t, listing_id: l })).body).toEqual({ success: true });
    const before = count('status_changes');
    const r = await app('app/status/assign', token, { new_status_id: a });
    expect(r.status).toBe(403);
    expect(r.body).toEqual(fail(13));
    expect((await app('app/status/assign', token, { new_status_id: 'busy' })).body.errors[0].parameter).toBe('new_status_id');
    expect(count('status_changes')).toBe(before);
  });
});

// ---- positions

describe('positions through the OsmAnd listener', () => {
  it("the app reports with the device id activation answered; the tracker's state moves", async () => {
    const t = phone();
    const act = await s.call('app/activate', { code: await code(t) });
    const { device_id } = act.body.positions;
    const port = s.running.gateway.ports.osmand.http;
    const body = JSON.stringify({ location: { timestamp: '2026-01-05T10:00:00.000Z', coords: { latitude: 52.52, longitude: 13.405, accuracy: 5, speed: 2, heading: 90, altitude: 40 }, is_moving: true, odometer: 10, event: '', battery: { level: 0.5, is_charging: false }, activity: { type: 'in_vehicle' }, extras: {} }, device_id });
    const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(200);
    await until(() => s.store.deviceState.get(s.store.trackers.getAny(t)!.source_id)?.lat === 52.52);
  });

  it('the batch body (three locations) and the form-encoded POST (knots) are stored as sent', async () => {
    const t = phone();
    const { device_id } = (await s.call('app/activate', { code: await code(t) })).body.positions;
    const url = `http://127.0.0.1:${s.running.gateway.ports.osmand.http}/`;
    const base = Math.floor(Date.now() / 1000) - 600;
    const iso = (sec: number) => new Date(sec * 1000).toISOString();
    const loc = (sec: number, lat: number, speed: number) =>
      `{"timestamp":"${iso(sec)}","coords":{"latitude":${lat},"longitude":13.405,"accuracy":8.5,"speed":${speed},"heading":181.5,"altitude":41.2},"is_moving":true,"odometer":1520.4,"event":"","battery":{"level":0.87,"is_charging":true},"activity":{"type":"in_vehicle"},"extras":{},"_":"&id=${device_id}&lat=${lat}&lon=13.405&timestamp=${iso(sec)}&"}`;
    const batch = `{"location":[${loc(base, 52.52, 10)},${loc(base + 30, 52.523, 12.5)},${loc(base + 60, 52.526, 0)}],"device_id":"${device_id}"}`;
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: batch })).status).toBe(200);
    const android = `${url}?id=${device_id}&timestamp=${base + 90}&lat=52.529&lon=13.405&speed=10.5&bearing=273.4&altitude=12.0&accuracy=4.5&batt=87.0&charge=true`;
    expect((await fetch(android, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status).toBe(200);
    const source = s.store.trackers.getAny(t)!.source_id;
    const rows = s.sql.prepare('SELECT time, lat, speed, course FROM fixes WHERE source_id = ? ORDER BY time').all(source);
    expect(rows).toEqual([
      { time: base * 1000, lat: 52.52, speed: 36, course: 181.5 },
      { time: (base + 30) * 1000, lat: 52.523, speed: 45, course: 181.5 },
      { time: (base + 60) * 1000, lat: 52.526, speed: 0, course: 181.5 },
      { time: (base + 90) * 1000, lat: 52.529, speed: 19.446, course: 273.4 },
    ]);
  });
});

describe('activation attempts are limited per address', () => {
  it('105 with Retry-After after too many wrong codes; nothing stored', async () => {
    const limited = await startTestServer({ FSM_LOGIN_MAX_FAILURES: '3' });
    try {
      const tokens = () => limited.sql.prepare('SELECT count(*) FROM app_tokens').pluck().get();
      for (let i = 0; i < 3; i++) expect((await limited.call('app/activate', { code: 'AAAA-AAAA' })).body.status.code).toBe(102);
      const r = await limited.call('app/activate', { code: 'AAAA-AAAA' });
      expect(r.status).toBe(429);
      expect(r.body.status.code).toBe(105);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(tokens()).toBe(0);
    } finally {
      await limited.close();
    }
  });
});

describe('the feed carries real changes only', () => {
  it('an update that changes nothing writes no feed row', async () => {
    const t = phone();
    const token = await activated(t);
    const id = await task(t);
    const cursor = (await app('app/task/list', token)).body.cursor;
    s.sql.prepare('UPDATE tasks SET label = label, status = status WHERE id = ?').run(id);
    expect((await app('app/task/list', token, { cursor })).body).toMatchObject({ list: [], removed: [] });
    s.sql.prepare("UPDATE tasks SET description = 'changed' WHERE id = ?").run(id);
    expect((await app('app/task/list', token, { cursor })).body.list).toEqual([expect.objectContaining({ id, description: 'changed' })]);
  });
});
