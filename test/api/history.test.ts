/**
 * history/tracker/list over real HTTP (issue 12; docs/events.md): exact bodies in the user's time
 * zone, types, limit, clones, and every error of the call. Events of the telemetry core are stored
 * here as fixtures (test/telemetry/events.test.ts derives them from fixes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let t1: number;
let t2: number;
let zoneId: number;
let address: string;
const P = { lat: 54.6872, lng: 25.2797 };
// 2026-11-20 06:00 UTC is 08:00 in Vilnius.
const T = Date.UTC(2026, 10, 20, 6, 0, 0);

function fixture(trackerId: number, type: string, time: number, extra: Record<string, unknown> | null, opts: { own?: boolean; located?: boolean } = {}): number {
  const source = s.store.trackers.getAny(trackerId)!.source_id;
  const loc = opts.located === false ? [null, null] : [P.lat, P.lng];
  return Number(
    s.sql
      .prepare('INSERT INTO events (source_id, tracker_id, type, time, decided, lat, lng, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(source, opts.own ? trackerId : null, type, time, opts.own ? null : time, ...loc, extra ? JSON.stringify(extra) : null).lastInsertRowid,
  );
}

const ids: Record<string, number> = {};
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'Europe/Vilnius' });
  bob = await s.user('bob@example.com');
  t1 = s.addTracker(ann.id, '352000000000001');
  t2 = s.addTracker(ann.id, '352000000000002');
  zoneId = (await s.call('zone/create', { hash: ann.hash, zone: { type: 'circle', label: 'Depot', address: 'x', radius: 200, center: P } })).body.id;
  address = (await s.call('geocoder/search_location', { hash: ann.hash, location: P, goal: 'ui' })).body.value;
  ids.enter = fixture(t1, 'zone_enter', T + 60_000, { zone_id: zoneId });
  ids.speedEnd = fixture(t1, 'speeding_end', T + 120_000, { start: T + 60_000, max_speed: 101.5, duration: 60, speed_limit: 90 });
  ids.sos = fixture(t2, 'alarm_sos', T + 90_000, null);
  ids.lost = fixture(t2, 'connection_lost', T + 180_000, { since: T }, { own: true, located: false });
  ids.outside = fixture(t1, 'ignition_on', T - 1000, null);
});
afterAll(() => s?.close());

/** The documented entry around our members: `type` "tracker", the event type as `event`, the label and emergency flag in `extra`. */
const ev = (e: { id: number; type: string; tracker_id: number; time: string; location: { address: string } | null; message: string; extra: Record<string, unknown> }) => ({
  id: e.id,
  type: 'tracker',
  event: e.type,
  is_read: false,
  tracker_id: e.tracker_id,
  rule_id: null,
  track_id: null,
  time: e.time,
  location: e.location,
  address: e.location?.address ?? '',
  message: e.message,
  extra: { ...e.extra, tracker_label: s.store.trackers.getAny(e.tracker_id)!.label, emergency: e.type.startsWith('alarm_') },
});

const call = (hash: string, p: Record<string, unknown>) => s.call('history/tracker/list', { hash, ...p });
const period = { from: '2026-11-20 08:00:00', to: '2026-11-20 09:00:00' };

describe('history/tracker/list', () => {
  it('lists the events of the trackers in the period, in time order, in the user time zone', async () => {
    const r = await call(ann.hash, { trackers: [t1, t2], ...period });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      list: [
        ev({ id: ids.enter, type: 'zone_enter', tracker_id: t1, time: '2026-11-20 08:01:00', location: { ...P, address }, message: 'Entered zone Depot', extra: { zone_id: zoneId, zone_label: 'Depot' } }),
        ev({ id: ids.sos, type: 'alarm_sos', tracker_id: t2, time: '2026-11-20 08:01:30', location: { ...P, address }, message: 'Alarm: SOS', extra: {} }),
        ev({
          id: ids.speedEnd,
          type: 'speeding_end',
          tracker_id: t1,
          time: '2026-11-20 08:02:00',
          location: { ...P, address },
          message: 'Speeding ended after 1 min: max 101.5 km/h, limit 90 km/h',
          extra: { start: '2026-11-20 08:01:00', max_speed: 101.5, duration: 60, speed_limit: 90 },
        }),
        ev({ id: ids.lost, type: 'connection_lost', tracker_id: t2, time: '2026-11-20 08:03:00', location: null, message: 'Connection lost', extra: { since: '2026-11-20 08:00:00' } }),
      ],
      limit_exceeded: false,
      total: 4,
      total_unread: 4,
    });
  });

  it('types and limit', async () => {
    const typed = await call(ann.hash, { trackers: [t1, t2], ...period, types: ['alarm_sos', 'connection_lost'] });
    expect(typed.body.list.map((e: { id: number }) => e.id)).toEqual([ids.sos, ids.lost]);
    const limited = await call(ann.hash, { trackers: [t1, t2], ...period, limit: 2 });
    expect(limited.body.list.map((e: { id: number }) => e.id)).toEqual([ids.enter, ids.sos]);
    expect(limited.body).toMatchObject({ limit_exceeded: true, total: 4, total_unread: 4 });
    const one = await call(ann.hash, { trackers: [t2], ...period });
    expect(one.body.list.map((e: { id: number }) => e.id)).toEqual([ids.sos, ids.lost]);
  });

  it('the store read API for reports: by types, in time order, paged by (time, id)', () => {
    const q = { trackerIds: [t1, t2], from: T, to: T + 3600_000, limit: 2 };
    const first = s.store.events.list(q);
    expect(first.map((e) => e.id)).toEqual([ids.enter, ids.sos]);
    const last = first[first.length - 1];
    expect(s.store.events.list({ ...q, after: { time: last.time, id: last.id } }).map((e) => e.id)).toEqual([ids.speedEnd, ids.lost]);
    expect(s.store.events.list({ ...q, types: ['speeding_end'] })).toEqual([
      { id: ids.speedEnd, tracker_id: t1, type: 'speeding_end', time: T + 120_000, lat: P.lat, lng: P.lng, extra: { start: T + 60_000, max_speed: 101.5, duration: 60, speed_limit: 90 } },
    ]);
  });

  it("a clone lists its device's events as its own, not the other tracker's own events", async () => {
    const clone = s.store.trackers.clone(s.store.trackers.getAny(t2)!, bob.id, 'clone');
    const r = await call(bob.hash, { trackers: [clone], from: '2026-11-20 06:00:00', to: '2026-11-20 07:00:00' });
    expect(r.body.list).toEqual([ev({ id: ids.sos, type: 'alarm_sos', tracker_id: clone, time: '2026-11-20 06:01:30', location: { ...P, address }, message: 'Alarm: SOS', extra: {} })]);
  });

  it('7 naming the parameter: from, to, types, limit, trackers', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ trackers: [t1], from: '2026-11-20', to: period.to }, 'from'],
      [{ trackers: [t1], from: period.from, to: '2026-13-40 25:00:00' }, 'to'],
      [{ trackers: [t1], from: period.to, to: period.from }, 'to'],
      [{ trackers: [t1], ...period, types: ['zone_enter', 'teleport'] }, 'types'],
      [{ trackers: [t1], ...period, limit: 0 }, 'limit'],
      [{ trackers: [t1], ...period, limit: 10_001 }, 'limit'],
      [{ ...period }, 'trackers'],
      [{ trackers: [], ...period }, 'trackers'],
      [{ trackers: ['x'], ...period }, 'trackers.0'],
    ];
    for (const [p, parameter] of bad) {
      const r = await call(ann.hash, p);
      expect(r.body.status.code, JSON.stringify(p)).toBe(7);
      expect(r.body.errors[0].parameter, JSON.stringify(p)).toBe(parameter);
    }
  });

  it("217 for another user's, deleted or blocked trackers, naming them", async () => {
    const bobs = s.addTracker(bob.id, '352000000000003');
    const r = await call(ann.hash, { trackers: [t1, bobs, 999_999], ...period });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, status: { code: 217 }, ids: [bobs, 999_999] });
    const gone = s.addTracker(ann.id, '352000000000004');
    s.store.trackers.markDeleted(gone);
    expect((await call(ann.hash, { trackers: [gone], ...period })).body).toMatchObject({ status: { code: 217 }, ids: [gone] });
    const blocked = s.addTracker(ann.id, '352000000000005');
    s.store.trackers.setBlocked(s.store.trackers.getAny(blocked)!.source_id, true);
    expect((await call(ann.hash, { trackers: [blocked], ...period })).body).toMatchObject({ status: { code: 217 }, ids: [blocked] });
  });

  it('211 for a period over 31 days; 31 days exactly is fine', async () => {
    const r = await call(ann.hash, { trackers: [t1], from: '2026-11-01 00:00:00', to: '2026-12-02 00:00:01' });
    expect(r.body).toMatchObject({ success: false, status: { code: 211 }, max_time_span: 'P31D' });
    expect((await call(ann.hash, { trackers: [t1], from: '2026-11-01 00:00:00', to: '2026-12-02 00:00:00' })).body.success).toBe(true);
  });

  it('needs a session', async () => {
    expect((await s.call('history/tracker/list', { trackers: [t1], ...period })).body.status.code).toBe(4);
  });
});
