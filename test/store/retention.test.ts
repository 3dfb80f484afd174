/**
 * Retention over a real SQLite file processed by the real telemetry core (issue 15): trackers with
 * different tariffs, 20 days of trips, parkings and zone stays each; a pass deletes exactly what lies
 * before each device's kept-from time (the newest checkpoint at or before its horizon) and leaves
 * every other row identical (counts and a checksum); track/read and track/list over real HTTP answer
 * the kept days as before; forwarding log entries (and their fixes) an enabled retranslator still
 * needs stay; late data older than the horizon is stored, changes nothing derived, and goes next pass.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack } from '../../src/gateway/packing.ts';
import { FixStore } from '../../src/store/fixes.ts';
import { TrackPointStore } from '../../src/store/track-points.ts';
import { DAY_MS, keepDays, runRetention } from '../../src/retention/retention.ts';
import type { DeviceRecord } from '../../protocols/types.ts';
import { journey } from '../telemetry/journeys.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const NOW = Date.now();
const T0 = Math.floor(NOW / DAY_MS) * DAY_MS - 20 * DAY_MS;
const HOME = { lat: 52.5, lng: 13.4 };
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** 20 days: each morning 3 km north, two hours parked (inside the zone), back, silence until the next day. */
function history(days = 20): DeviceRecord[] {
  let j = journey({ ...HOME, time: T0 + 8 * 3_600_000 });
  for (let d = 0; d < days; d++) {
    j = j.drive({ km: 3, kmh: 40, every: 5, bearing: 0 }).stop({ minutes: 120, every: 60 }).drive({ km: 3, kmh: 40, every: 5, bearing: 180 }).gap({ minutes: 24 * 60 - 130 });
  }
  return j.build().points.map((p) => ({ time: p.time, lat: p.lat, lng: p.lng, speed: p.speed, course: p.course, satellites: 9, valid: true, attributes: { power: 12.5 } }));
}

let s: TestServer;
let owner: { id: number; hash: string };
const trackers: Record<string, { id: number; source: number }> = {};
let retranslatorOn: number;

function addTracker(name: string, days: number | null): void {
  const id = s.addTracker(owner.id, `ret-${name}`);
  const source = s.store.trackers.getAny(id)!.source_id;
  if (days !== null) {
    const tariff = s.store.tariffs.copy(1, `${days} days`);
    s.store.tariffs.update(tariff, { track_storage_days: days });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tariff, source);
  }
  trackers[name] = { id, source };
}

interface Rows {
  fixes: Array<Record<string, unknown>>;
  tracks: Array<Record<string, unknown>>;
  visits: Array<Record<string, unknown>>;
  checkpoints: Array<{ time: number; state: string }>;
  points: Array<[number, number, number, number]>;
  log: Array<{ seq: number; time: number }>;
}

/** Every row retention may touch, of one device (ids of derived rows left out: reprocessing renumbers them). */
function rows(source: number): Rows {
  const all = (sql: string) => s.sql.prepare(sql).all(source) as Array<Record<string, unknown>>;
  const p = new TrackPointStore(s.sql).read(source, -1e15, 1e15, true);
  return {
    fixes: all('SELECT * FROM fixes WHERE source_id = ? ORDER BY time'),
    tracks: all('SELECT type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, points, length_km, max_speed, avg_speed, gsm_lbs, events, extent_m, open FROM tracks WHERE source_id = ? ORDER BY start_time, gsm_lbs'),
    visits: all('SELECT kind, geo_id, enter_time, exit_time FROM visits WHERE source_id = ? ORDER BY enter_time'),
    checkpoints: all('SELECT time, state FROM telemetry_checkpoints WHERE source_id = ? ORDER BY time') as Rows['checkpoints'],
    points: Array.from({ length: p.n }, (_, i) => [p.time[i], p.lat[i], p.lng[i], p.flags[i]]),
    log: all('SELECT seq, time FROM forward_log WHERE source_id = ? ORDER BY seq') as Rows['log'],
  };
}

/** What must be left of `before` when history is kept from `keep` (fixes and log entries held by forwarding: `heldFrom`). */
function expected(before: Rows, keep: number, heldFrom = Infinity, logCursor = Infinity): Rows {
  const fixBound = Math.min(keep, heldFrom);
  return {
    fixes: before.fixes.filter((f) => (f.time as number) >= fixBound),
    tracks: before.tracks.filter((t) => t.open || (t.end_time as number) >= keep || (t.start_time as number) >= keep),
    visits: before.visits.filter((v) => v.exit_time === null || (v.exit_time as number) >= keep),
    checkpoints: before.checkpoints.filter((c) => c.time >= keep),
    points: before.points.filter((p) => p[0] >= keep),
    log: before.log.filter((l) => l.time >= keep || l.seq > logCursor),
  };
}

const checksum = (r: Rows) => createHash('sha256').update(JSON.stringify(r)).digest('hex');
const counts = (r: Rows) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v.length]));
const keptFrom = (source: number, horizon: number) => s.sql.prepare('SELECT max(time) FROM telemetry_checkpoints WHERE source_id = ? AND time <= ?').pluck().get(source, horizon) as number;
const pass = (days = 0) => runRetention({ store: s.store, now: () => NOW }, { days, stepRows: 97, pauseMs: 0 });

beforeAll(async () => {
  s = await startTestServer({ FSM_RETENTION_INTERVAL_MINUTES: '0' });
  owner = await s.user('keeper@example.com', { timeZone: 'UTC' });
  // The parking spot of every day: stays there are zone visits.
  const zone = await s.call('zone/create', { hash: owner.hash, zone: { type: 'circle', label: 'Depot', radius: 300, center: { lat: 52.527, lng: 13.4 } } });
  expect(zone.body.success).toBe(true);
  addTracker('ten', 10);
  addTracker('five', 5);
  addTracker('forever', 0);
  addTracker('status', 10);
  addTracker('held', 10);
  addTracker('disabled', 10);
  addTracker('forwarded', 10);
  // Retranslators to a port nobody answers: what is logged for them stays pending.
  const target = { name: 'sink', protocolId: 3, address: '127.0.0.1', port: 1, login: '', password: '' };
  retranslatorOn = s.store.retranslators.create(owner.id, { ...target, enabled: true });
  const off = s.store.retranslators.create(owner.id, { ...target, name: 'off', enabled: false });
  s.store.retranslators.bind(retranslatorOn, trackers.held.id, trackers.held.source, null, NOW);
  s.store.retranslators.bind(retranslatorOn, trackers.forwarded.id, trackers.forwarded.source, null, NOW);
  s.store.retranslators.bind(off, trackers.disabled.id, trackers.disabled.source, null, NOW);

  const fixes = new FixStore(s.sql);
  const data = history();
  for (const name of ['ten', 'five', 'forever', 'held', 'disabled', 'forwarded']) {
    for (let i = 0; i < data.length; i += 2000) fixes.write([pack(trackers[name].source, data.slice(i, i + 2000), NOW)], NOW);
  }
  // Status records only (no position): nothing is derived from them.
  const status = Array.from({ length: 20 * 24 }, (_, h): DeviceRecord => ({ time: T0 + h * 3_600_000, valid: false, attributes: { power: 12 } }));
  fixes.write([pack(trackers.status.source, status, NOW)], NOW);
  expect(await s.running.telemetry.idle(120_000)).toBe(true);
  // "forwarded": its receiver acknowledged everything (the cursor at the log's end).
  s.sql.prepare('UPDATE retranslator_bindings SET cursor = (SELECT max(seq) FROM forward_log) WHERE tracker_id = ?').run(trackers.forwarded.id);
}, 180_000);
afterAll(() => s?.close());

describe('the storage period', () => {
  it('is the shorter of the tariff and FSM_RETENTION_DAYS; 0 is no limit for either', () => {
    expect(keepDays(365, 0)).toBe(365);
    expect(keepDays(365, 30)).toBe(30);
    expect(keepDays(10, 30)).toBe(10);
    expect(keepDays(0, 30)).toBe(30);
    expect(keepDays(0, 0)).toBeUndefined();
  });
});

describe('a retention pass', () => {
  const before: Record<string, Rows> = {};
  const keep: Record<string, number> = {};
  const apiBefore: Record<string, unknown> = {};
  const keptDays = [12, 15, 19]; // days of the history wholly after the 10-day horizon

  const dayCalls = (day: number) => {
    const from = fmt(T0 + day * DAY_MS);
    const to = fmt(T0 + (day + 1) * DAY_MS - 1000);
    return [
      s.call('track/list', { hash: owner.hash, tracker_id: trackers.ten.id, from, to }),
      s.call('track/read', { hash: owner.hash, tracker_id: trackers.ten.id, from, to }),
      s.call('track/list', { hash: owner.hash, tracker_id: trackers.ten.id, from, to, filter: false }),
    ];
  };

  beforeAll(async () => {
    for (const [name, t] of Object.entries(trackers)) before[name] = rows(t.source);
    for (const name of ['ten', 'held', 'disabled', 'forwarded']) keep[name] = keptFrom(trackers[name].source, NOW - 10 * DAY_MS);
    keep.five = keptFrom(trackers.five.source, NOW - 5 * DAY_MS);
    for (const d of keptDays) apiBefore[d] = (await Promise.all(dayCalls(d))).map((r) => r.body);
    const result = await pass();
    expect(result.done).toBe(Object.keys(trackers).length + 0);
  }, 120_000);

  it('the fixture has what retention deletes: trips, parkings, stays, checkpoints, packed points, log entries', () => {
    const b = before.ten;
    expect(b.fixes.length).toBeGreaterThan(4000);
    expect(b.tracks.filter((t) => t.type === 'trip').length).toBeGreaterThanOrEqual(38);
    expect(b.tracks.filter((t) => t.type === 'parking').length).toBeGreaterThanOrEqual(19);
    expect(b.visits.length).toBeGreaterThanOrEqual(19);
    expect(b.checkpoints.length).toBeGreaterThan(40);
    expect(b.points.length).toBeGreaterThan(4000);
    expect(before.held.log.length).toBe(before.held.fixes.length);
    // kept-from is a checkpoint at or before the horizon, less than a day before it here
    expect(keep.ten).toBeLessThanOrEqual(NOW - 10 * DAY_MS);
    expect(keep.ten).toBeGreaterThan(NOW - 11 * DAY_MS);
    expect(keep.five).toBeGreaterThan(keep.ten);
  });

  it('deletes exactly the rows before each device kept-from time; every other row is identical', () => {
    for (const name of ['ten', 'five', 'forwarded', 'disabled']) {
      const after = rows(trackers[name].source);
      const want = expected(before[name], keep[name]);
      expect(counts(after), name).toEqual(counts(want));
      expect(checksum(after), name).toBe(checksum(want));
      expect(counts(after).fixes, name).toBeLessThan(counts(before[name]).fixes);
      expect(s.store.retention.keptFrom(trackers[name].source)).toBe(keep[name]);
    }
    // forwarded: every old log entry went with its fix; disabled: a disabled retranslator holds nothing
    expect(rows(trackers.forwarded.source).log.every((l) => l.time >= keep.forwarded)).toBe(true);
    expect(rows(trackers.disabled.source).log.every((l) => l.time >= keep.disabled)).toBe(true);
  });

  it('a tariff without a limit keeps everything', () => {
    expect(checksum(rows(trackers.forever.source))).toBe(checksum(before.forever));
    expect(s.store.retention.keptFrom(trackers.forever.source)).toBeUndefined();
  });

  it('status records with nothing derived from them go at the horizon itself', () => {
    const after = rows(trackers.status.source);
    const horizon = NOW - 10 * DAY_MS;
    expect(after.fixes).toEqual(before.status.fixes.filter((f) => (f.time as number) >= horizon));
    expect(after.fixes.length).toBeLessThan(before.status.fixes.length);
  });

  it('keeps the log entries an enabled retranslator has not forwarded, and their fixes; derived data still goes', () => {
    const after = rows(trackers.held.source);
    const want = expected(before.held, keep.held, -Infinity, 0);
    expect(after.log).toEqual(before.held.log);
    expect(after.fixes).toEqual(before.held.fixes);
    expect(checksum(after)).toBe(checksum(want));
    expect(after.tracks.length).toBeLessThan(before.held.tracks.length);
  });

  it('track/list and track/read of kept days answer exactly as before, over HTTP', async () => {
    for (const d of keptDays) expect((await Promise.all(dayCalls(d))).map((r) => r.body), `day ${d}`).toEqual(apiBefore[d]);
    // a day before the horizon is outside the tariff's storage window, as it was before the pass
    const [list] = await Promise.all(dayCalls(2));
    expect(list.body).toMatchObject({ success: true, limit_exceeded: true, list: [] });
  });

  it('a second pass deletes nothing more', async () => {
    const snap = Object.fromEntries(Object.entries(trackers).map(([n, t]) => [n, checksum(rows(t.source))]));
    const again = await pass();
    expect(again.trimmed).toBe(0);
    for (const [n, t] of Object.entries(trackers)) expect(checksum(rows(t.source)), n).toBe(snap[n]);
  });

  it('late data older than the horizon is stored, changes nothing derived, and goes in the next pass', async () => {
    const src = trackers.ten.source;
    const kept = rows(src);
    const late = keep.ten - 3 * DAY_MS + 7 * 60_000;
    new FixStore(s.sql).write([pack(src, [{ time: late, lat: 52.51, lng: 13.41, speed: 30, course: 0, satellites: 9, valid: true, attributes: {} }], NOW)], NOW);
    expect(await s.running.telemetry.idle(60_000)).toBe(true);
    const now = rows(src);
    expect(now.fixes.map((f) => f.time)).toContain(late);
    // processing restarted from the kept checkpoint: tracks, stays, checkpoints and points as they were
    expect({ ...now, fixes: [] }).toEqual({ ...kept, fixes: [] });
    await pass();
    expect(rows(src)).toEqual(kept);
  });

  it('FSM_RETENTION_DAYS shorter than the tariffs applies to every tracker, also those without a limit', async () => {
    const forever = rows(trackers.forever.source);
    const k = keptFrom(trackers.forever.source, NOW - 3 * DAY_MS);
    const kTen = keptFrom(trackers.ten.source, NOW - 3 * DAY_MS);
    const ten = rows(trackers.ten.source);
    await pass(3);
    expect(checksum(rows(trackers.forever.source))).toBe(checksum(expected(forever, k)));
    expect(checksum(rows(trackers.ten.source))).toBe(checksum(expected(ten, kTen)));
  });
});
