/**
 * Track calls over real HTTP (issue 5; spec: Tracks, Track descriptions, Limits): track/list,
 * track/read and track/download with every parameter, error and shape, exact bodies for a small
 * known day, and the pure parts (simplification against a brute-force Douglas–Peucker, interval
 * membership, KML text). `tracks` and `fixes` rows are written directly, as the telemetry core
 * and the gateway's writer would. The API runs with a scripted geocoder and a fixed clock.
 */
import type { FastifyInstance } from 'fastify';
import { unzipSync, strFromU8 } from 'fflate';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../../src/api/kernel.ts';
import { buildApi } from '../../src/api/server.ts';
import { loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { formatDateTime } from '../../src/core/time.ts';
import { xmlText } from '../../src/tracks/kml.ts';
import { membership } from '../../src/tracks/points.ts';
import { simplifyLine } from '../../src/tracks/simplify.ts';
import { ScriptedGeocoder } from '../imports/harness.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const DAY = 86_400_000;
const NOW = Date.now();
const DAY0 = Math.floor((NOW - 10 * DAY) / DAY) * DAY; // midnight UTC ten days ago
const at = (h: number, m = 0, sec = 0) => DAY0 + h * 3_600_000 + m * 60_000 + sec * 1000;
const TZ = 'Asia/Tokyo';
const local = (ms: number) => formatDateTime(ms, TZ);

let s: TestServer;
let app: FastifyInstance;
let base: string;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let imei = 356000000000000;

interface Answer {
  status: number;
  body: any;
  headers: Headers;
  bytes: Uint8Array;
}
async function call(path: string, params: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* a file */
  }
  return { status: res.status, body, headers: res.headers, bytes };
}

beforeAll(async () => {
  s = await startTestServer();
  const config = loadConfig({ FSM_DATA_DIR: s.dataDir, FSM_LOG_LEVEL: 'silent' });
  // The track calls use the store, the geocoder and the clock only.
  const services = { config, store: s.store, mailer: createMailer(config.mail), now: () => NOW, geocoder: new ScriptedGeocoder() } as Partial<Services> as Services;
  app = await buildApi(services, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/v2/fsm/`;
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
});
afterAll(async () => {
  await app?.close();
  await s?.close();
});

// ---- fixtures ----

interface Fix {
  lat: number | null;
  lng: number | null;
  speed?: number;
  alt?: number;
  course?: number;
  satellites?: number;
  precision?: number | null;
  flags?: number;
}
function fix(source: number, time: number, f: Fix): void {
  s.sql
    .prepare('INSERT INTO fixes (source_id, time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(source, time, f.lat, f.lng, f.alt ?? 0, f.speed ?? 0, f.course ?? 0, f.satellites ?? 8, 1, f.precision === undefined ? 5 : f.precision, f.flags ?? 1, time);
}

interface Track {
  type?: 'trip' | 'single_report' | 'parking';
  start: number;
  end: number;
  from: [number, number];
  to: [number, number];
  points: number;
  length: number;
  max?: number;
  avg?: number;
  lbs?: boolean;
  precision?: number | null;
  events?: number;
  startAddress?: string | null;
  endAddress?: string | null;
}
function track(source: number, t: Track): number {
  return Number(
    s.sql
      .prepare(
        `INSERT INTO tracks (source_id, type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, points, length_km, max_speed, avg_speed, gsm_lbs, precision, events, start_address, end_address)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(source, t.type ?? 'trip', t.start, t.end, ...t.from, ...t.to, t.points, t.length, t.max ?? 0, t.avg ?? 0, t.lbs ? 1 : 0, t.precision ?? null, t.events ?? 0, t.startAddress ?? null, t.endAddress ?? null).lastInsertRowid,
  );
}
const sourceOf = (trackerId: number) => s.store.trackers.getAny(trackerId)!.source_id;
const newTracker = (userId: number, label?: string) => s.addTracker(userId, String(imei++), { label });

/** Ann's known day (times UTC; her zone is Tokyo). */
const day = {} as { tracker: number; source: number; trip1: number; trip2: number; trip3: number; trip4: number; sr1: number; sr2: number; sr3: number; parking: number };
const trip1Lat = (i: number) => 52 + i * 0.001;

function knownDay(): void {
  day.tracker = newTracker(ann.id, 'Van & <1>');
  const src = (day.source = sourceOf(day.tracker));
  // Trip 1, 10:00-10:10: eleven fixes a minute apart, 111 m north each, plus records that are never points.
  for (let i = 0; i <= 10; i++) fix(src, at(10, i), { lat: trip1Lat(i), lng: 4.3, speed: 40 + i, alt: 5 + i, satellites: 9 });
  fix(src, at(10, 5, 30), { lat: null, lng: null }); // status record
  fix(src, at(10, 5, 45), { lat: 52.5, lng: 4.9, flags: 0 }); // invalid
  fix(src, at(10, 6, 15), { lat: 0, lng: 0 }); // "no fix"
  day.trip1 = track(src, { start: at(10), end: at(10, 10), from: [52, 4.3], to: [52.01, 4.3], points: 11, length: 1.112, max: 50.4, avg: 44.6, events: 2, startAddress: 'Delft, Main Street 1', endAddress: 'Delft, Station Square' });
  // Parked: two points in no track.
  fix(src, at(10, 20), { lat: 52.01, lng: 4.3 });
  fix(src, at(10, 25), { lat: 52.01, lng: 4.3 });
  // Trip 2: too short (3 points, 150 m).
  for (let i = 0; i < 3; i++) fix(src, at(10, 30, i * 40), { lat: 52.01 + i * 0.0007, lng: 4.3, speed: 10 });
  day.trip2 = track(src, { start: at(10, 30), end: at(10, 31, 20), from: [52.01, 4.3], to: [52.0114, 4.3], points: 3, length: 0.15, max: 12, avg: 8 });
  // Trip 3: 600 m of laps inside a 60 m box.
  for (let i = 0; i < 10; i++) fix(src, at(11, i * 2), { lat: 52.02 + (i % 2) * 0.0004, lng: 4.3 + (i % 3) * 0.0003, speed: 5 });
  day.trip3 = track(src, { start: at(11), end: at(11, 18), from: [52.02, 4.3], to: [52.0204, 4.3006], points: 10, length: 0.6, max: 9, avg: 4 });
  // Trip 4: located by GSM LBS, no stored addresses (the geocoder answers).
  for (let i = 0; i < 4; i++) fix(src, at(12, i * 10), { lat: 52.1 + i * 0.01, lng: 4.3, speed: 60, precision: 800, flags: 3 });
  day.trip4 = track(src, { start: at(12), end: at(12, 30), from: [52.1, 4.3], to: [52.13, 4.3], points: 4, length: 3.3, max: 60, avg: 7, lbs: true });
  // Single reports: two 167 m apart, the third 11 km away.
  fix(src, at(14), { lat: 52.3, lng: 4.5, precision: 20 });
  fix(src, at(14, 30), { lat: 52.3015, lng: 4.5, precision: 30 });
  fix(src, at(15), { lat: 52.4, lng: 4.5, precision: null });
  day.sr1 = track(src, { type: 'single_report', start: at(14), end: at(14), from: [52.3, 4.5], to: [52.3, 4.5], points: 1, length: 0, precision: 20 });
  day.sr2 = track(src, { type: 'single_report', start: at(14, 30), end: at(14, 30), from: [52.3015, 4.5], to: [52.3015, 4.5], points: 1, length: 0, avg: 3, precision: 30 });
  day.sr3 = track(src, { type: 'single_report', start: at(15), end: at(15), from: [52.4, 4.5], to: [52.4, 4.5], points: 1, length: 0 });
  // A parking segment: never listed.
  day.parking = track(src, { type: 'parking', start: at(10, 10), end: at(10, 30), from: [52.01, 4.3], to: [52.01, 4.3], points: 2, length: 0 });
}

const period = { from: local(at(9)), to: local(at(16)) };
const ask = (extra: Record<string, unknown> = {}) => ({ hash: ann.hash, tracker_id: day.tracker, ...period, ...extra });

const trip1View = {
  start_date: local(at(10)),
  start_address: 'Delft, Main Street 1',
  end_date: local(at(10, 10)),
  end_address: 'Delft, Station Square',
  max_speed: 50,
  avg_speed: 45,
  length: 1.112,
  points: 11,
};
const trip4View = () => ({
  id: day.trip4,
  start_date: local(at(12)),
  start_address: 'Near 52.10, 4.30',
  end_date: local(at(12, 30)),
  end_address: 'Near 52.13, 4.30',
  max_speed: 60,
  avg_speed: 7,
  length: 3.3,
  points: 4,
  type: 'regular',
  gsm_lbs: true,
});
const sr = () => ({
  sr1: { id: day.sr1, type: 'single_report', start_date: local(at(14)), start_address: 'Near 52.30, 4.50', avg_speed: 0, precision: 20 },
  sr2: { id: day.sr2, type: 'single_report', start_date: local(at(14, 30)), start_address: 'Near 52.30, 4.50', avg_speed: 3, precision: 30 },
  sr3: { id: day.sr3, type: 'single_report', start_date: local(at(15)), start_address: 'Near 52.40, 4.50', avg_speed: 0 },
});

beforeAll(() => knownDay());

// ---- track/list ----

describe('track/list', () => {
  it('the known day: regular trips (filtered) and single reports in time order, exact body in the user zone', async () => {
    const r = await call('track/list', ask());
    expect(r.status).toBe(200);
    const { sr1, sr2, sr3 } = sr();
    expect(r.body).toEqual({ success: true, limit_exceeded: false, list: [{ id: day.trip1, ...trip1View, type: 'regular' }, trip4View(), sr1, sr2, sr3] });
    // Field order as in the spec's table.
    expect(Object.keys(r.body.list[0])).toEqual(['id', 'start_date', 'start_address', 'end_date', 'end_address', 'max_speed', 'avg_speed', 'length', 'points', 'type']);
  });

  it('filter=false shows the short and the circling trip too', async () => {
    const r = await call('track/list', ask({ filter: false }));
    expect(r.body.list.map((d: any) => d.id)).toEqual([day.trip1, day.trip2, day.trip3, day.trip4, day.sr1, day.sr2, day.sr3]);
  });

  it('filter uses the extent the telemetry core stored (extent_m) before reading points', async () => {
    const t = newTracker(ann.id);
    const src = sourceOf(t);
    // No fixes at all: read from points, the extent would be 0 m (hidden); the stored 900 m shows it.
    const wide = track(src, { start: at(10), end: at(10, 30), from: [52, 4], to: [52.01, 4], points: 30, length: 2, startAddress: 'a', endAddress: 'b' });
    const narrow = track(src, { start: at(11), end: at(11, 30), from: [52, 4], to: [52.01, 4], points: 30, length: 2, startAddress: 'a', endAddress: 'b' });
    s.sql.prepare('UPDATE tracks SET extent_m = ? WHERE id = ?').run(900, wide);
    const r = await call('track/list', { ...ask(), tracker_id: t });
    expect(r.body.list.map((d: any) => d.id)).toEqual([wide]);
    expect(narrow).toBeGreaterThan(wide);
  });

  it('include_gsm_lbs=false drops the LBS trip', async () => {
    const r = await call('track/list', ask({ include_gsm_lbs: false }));
    expect(r.body.list.map((d: any) => d.id)).toEqual([day.trip1, day.sr1, day.sr2, day.sr3]);
  });

  it('split=false merges the trips into one description without id (speeds weighted by duration)', async () => {
    const r = await call('track/list', ask({ split: false }));
    const { sr1, sr2, sr3 } = sr();
    const merged = { ...trip1View, end_date: local(at(12, 30)), end_address: 'Near 52.13, 4.30', max_speed: 60, avg_speed: 16, length: 4.412, points: 15, type: 'merged' };
    expect(r.body.list).toEqual([merged, sr1, sr2, sr3]);
  });

  it('cluster_single_reports=true: nearby consecutive reports become a cluster, a lone one stays', async () => {
    const r = await call('track/list', ask({ cluster_single_reports: true }));
    const cluster = { start_date: local(at(14)), start_address: 'Near 52.30, 4.50', end_date: local(at(14, 30)), precision: 25, points: [{ lat: 52.3, lng: 4.5 }, { lat: 52.3015, lng: 4.5 }], type: 'cluster' };
    expect(r.body.list).toEqual([{ id: day.trip1, ...trip1View, type: 'regular' }, trip4View(), cluster, sr().sr3]);
  });

  it('count_events adds event_count; an employee with fuel_consumption adds norm_fuel_consumed', async () => {
    const r = await call('track/list', ask({ count_events: true, include_gsm_lbs: false }));
    expect(r.body.list[0]).toEqual({ id: day.trip1, ...trip1View, event_count: 2, type: 'regular' });
    const t = newTracker(ann.id);
    const src = sourceOf(t);
    track(src, { start: at(10), end: at(10, 30), from: [52, 4.3], to: [52.1, 4.3], points: 30, length: 12.5, startAddress: 'a', endAddress: 'b' });
    for (let i = 0; i < 4; i++) fix(src, at(10, i * 10), { lat: 52 + i * 0.03, lng: 4.3 });
    const noEmployee = await call('track/list', { ...ask(), tracker_id: t });
    expect(noEmployee.body.list[0]).not.toHaveProperty('norm_fuel_consumed');
    s.sql.prepare('INSERT INTO employees (user_id, tracker_id, first_name, fuel_consumption) VALUES (?, ?, ?, ?)').run(ann.id, t, 'Eve', 8.5);
    const withFuel = await call('track/list', { ...ask(), tracker_id: t, split: false });
    expect(withFuel.body.list[0].norm_fuel_consumed).toBe(1.06); // 12.5 km x 8.5 l/100 km
    s.sql.prepare('UPDATE employees SET fuel_consumption = 0 WHERE tracker_id = ?').run(t);
    expect((await call('track/list', { ...ask(), tracker_id: t })).body.list[0]).not.toHaveProperty('norm_fuel_consumed');
  });

  it('a track overlapping the period is listed whole; an empty period lists nothing', async () => {
    const r = await call('track/list', ask({ from: local(at(10, 5)), to: local(at(10, 6)) }));
    expect(r.body.list).toEqual([{ id: day.trip1, ...trip1View, type: 'regular' }]);
    expect((await call('track/list', ask({ from: local(at(20)), to: local(at(21)) }))).body).toEqual({ success: true, limit_exceeded: false, list: [] });
  });

  it('the three calls are in the OpenAPI document', async () => {
    const doc = await (await fetch(base.replace('/v2/fsm/', '/docs/json'))).json();
    for (const path of ['track/list', 'track/read', 'track/download']) expect(doc.paths).toHaveProperty([`/v2/fsm/${path}`]);
  });

  it('query-string and form parameters work like JSON', async () => {
    const q = new URLSearchParams({ hash: ann.hash, tracker_id: String(day.tracker), from: period.from, to: period.to, split: 'false', include_gsm_lbs: 'false' });
    const r = await fetch(`${base}track/list?${q}`);
    const body = await r.json();
    expect(body.list[0].type).toBe('merged');
    expect(body.list[0].points).toBe(11);
  });
});

// ---- track/read ----

describe('track/read', () => {
  const trip1Points = () =>
    Array.from({ length: 11 }, (_, i) => ({ lat: trip1Lat(i), lng: 4.3, alt: 5 + i, satellites: 9, get_time: local(at(10, i)), address: '', heading: 0, speed: 40 + i, precision: 5 }));

  it('track_id: the points of the track, exact body; status, invalid and 0,0 records are never points', async () => {
    const r = await call('track/read', { hash: ann.hash, tracker_id: day.tracker, track_id: day.trip1 });
    expect(r.body).toEqual({ success: true, limit_exceeded: false, list: trip1Points() });
  });

  it('track_id with from/to: only its points inside the period', async () => {
    const r = await call('track/read', { hash: ann.hash, tracker_id: day.tracker, track_id: day.trip1, from: local(at(10, 3)), to: local(at(10, 5)) });
    expect(r.body.list).toEqual(trip1Points().slice(3, 6));
  });

  it('a period: points outside every track are parking; LBS points are gsm_lbs; filter drops hidden trips\' points', async () => {
    const r = await call('track/read', ask({ from: local(at(10)), to: local(at(10, 40)) }));
    expect(r.body.list.slice(0, 11)).toEqual(trip1Points());
    expect(r.body.list.slice(11, 13)).toEqual([20, 25].map((m) => ({ lat: 52.01, lng: 4.3, alt: 0, satellites: 8, get_time: local(at(10, m)), address: '', heading: 0, speed: 0, precision: 5, parking: true })));
    expect(r.body.list).toHaveLength(16); // + trip 2's three points, which are in a track
    expect(r.body.list.slice(13).every((p: any) => !('parking' in p))).toBe(true);
    const filtered = await call('track/read', ask({ from: local(at(10)), to: local(at(10, 40)), filter: true }));
    expect(filtered.body.list).toHaveLength(13);
    const lbs = await call('track/read', ask({ from: local(at(12)), to: local(at(12, 30)) }));
    expect(lbs.body.list.map((p: any) => [p.gsm_lbs, p.precision])).toEqual(Array(4).fill([true, 800]));
    expect((await call('track/read', ask({ from: local(at(12)), to: local(at(12, 30)), include_gsm_lbs: false }))).body.list).toEqual([]);
  });

  it('without track_id, from and to are required (7 naming them)', async () => {
    const r = await call('track/read', { hash: ann.hash, tracker_id: day.tracker, to: period.to });
    expect(r.status).toBe(400);
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors[0].parameter).toBe('from');
  });

  it('a track of another source, a parking segment or an unknown id is 204', async () => {
    const other = newTracker(ann.id);
    const foreign = track(sourceOf(other), { start: at(10), end: at(11), from: [1, 1], to: [1, 2], points: 5, length: 1 });
    for (const tid of [foreign, day.parking, 99999999]) {
      const r = await call('track/read', { hash: ann.hash, tracker_id: day.tracker, track_id: tid });
      expect(r.status).toBe(404);
      expect(r.body.status.code).toBe(204);
    }
  });
});

describe('track/read point_limit (line simplification)', () => {
  let zig: number;
  const N = 500;
  beforeAll(() => {
    zig = newTracker(ann.id);
    const src = sourceOf(zig);
    for (let i = 0; i < N; i++) fix(src, at(8, 0, i * 5), { lat: 52 + i * 0.0001, lng: 4 + (i % 20 < 10 ? i % 10 : 10 - (i % 10)) * 0.0002 });
  });
  const read = (limit?: number) => call('track/read', { hash: ann.hash, tracker_id: zig, from: local(at(7)), to: local(at(9)), ...(limit === undefined ? {} : { point_limit: limit }) });

  it('2 keeps the first and the last point; 3000 and no limit keep all of fewer points; k keeps exactly k', async () => {
    const all = (await read()).body.list;
    expect(all).toHaveLength(N);
    const two = (await read(2)).body.list;
    expect(two).toEqual([all[0], all[N - 1]]);
    expect((await read(3000)).body.list).toEqual(all);
    for (const k of [3, 50, 499]) {
      const some = (await read(k)).body.list;
      expect(some).toHaveLength(k);
      expect(some[0]).toEqual(all[0]);
      expect(some[k - 1]).toEqual(all[N - 1]);
      const times = some.map((p: any) => p.get_time);
      expect([...times].sort()).toEqual(times); // time order kept
    }
  });

  it.each([1, 3001, 2.5, 'many'])('point_limit %s is code 7 naming point_limit', async (limit) => {
    const r = await call('track/read', { hash: ann.hash, tracker_id: zig, from: local(at(7)), to: local(at(9)), point_limit: limit });
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors[0].parameter).toBe('point_limit');
  });
});

// ---- errors and limits of every call ----

const CALLS = ['track/list', 'track/read', 'track/download'];

describe('errors of every call', () => {
  it.each(CALLS)('%s: 204 for unknown, deleted and another user\'s trackers; 208 blocked; 4 without a session', async (path) => {
    for (const [hash, tid] of [
      [ann.hash, 99999999],
      [bob.hash, day.tracker],
    ] as const) {
      const r = await call(path, { hash, tracker_id: tid, ...period });
      expect(r.status).toBe(404);
      expect(r.body.status.code).toBe(204);
    }
    const gone = newTracker(ann.id);
    s.store.trackers.markDeleted(gone);
    expect((await call(path, { ...ask(), tracker_id: gone })).body.status.code).toBe(204);
    const blocked = newTracker(ann.id);
    s.store.trackers.setBlocked(sourceOf(blocked), true);
    const b = await call(path, { ...ask(), tracker_id: blocked });
    expect(b.status).toBe(403);
    expect(b.body.status.code).toBe(208);
    expect((await call(path, { tracker_id: day.tracker, ...period })).body.status.code).toBe(4);
  });

  it.each(CALLS)('%s: code 7 naming to when to <= from, naming from when malformed, naming tracker_id when missing', async (path) => {
    for (const to of [period.from, local(at(8))]) {
      const r = await call(path, ask({ to }));
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, status: { code: 7 }, errors: [{ parameter: 'to' }] });
    }
    expect((await call(path, ask({ from: '2025-13-01 00:00:00' }))).body.errors[0].parameter).toBe('from');
    expect((await call(path, { hash: ann.hash, ...period })).body.errors[0].parameter).toBe('tracker_id');
  });

  it.each(CALLS)('%s: 211 (with max_time_span) when the span is over the user tariff maximum; exactly the maximum is fine', async (path) => {
    const over = await call(path, ask({ from: local(NOW - 32 * DAY), to: local(NOW - DAY + 1000) }));
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ success: false, status: { code: 211, description: 'Requested time span is too big' }, max_time_span: 'P31D' });
    const max = await call(path, ask({ from: local(NOW - 32 * DAY), to: local(NOW - DAY) }));
    expect(max.status).toBe(200);
  });
});

describe('limit_exceeded: the period starts before the tracker tariff\'s storage window', () => {
  let t: number;
  let recent: number;
  beforeAll(() => {
    t = newTracker(ann.id);
    const tariff = s.store.tariffs.copy(1, 'short storage');
    s.store.tariffs.update(tariff, { track_storage_days: 5 });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tariff, sourceOf(t));
    const src = sourceOf(t);
    for (const [start, lat] of [
      [NOW - 5.5 * DAY, 50],
      [NOW - 4.5 * DAY, 51],
    ]) {
      for (let i = 0; i < 5; i++) fix(src, start + i * 60_000, { lat: lat + i * 0.01, lng: 5 });
      const id = track(src, { start, end: start + 4 * 60_000, from: [lat, 5], to: [lat + 0.04, 5], points: 5, length: 4.4, startAddress: 'x', endAddress: 'y' });
      if (lat === 51) recent = id;
    }
  });
  const span = { from: local(NOW - 6 * DAY), to: local(NOW - 4 * DAY) };

  it('track/list: true, and only what is inside the window', async () => {
    const r = await call('track/list', { hash: ann.hash, tracker_id: t, ...span });
    expect(r.body.limit_exceeded).toBe(true);
    expect(r.body.list.map((d: any) => d.id)).toEqual([recent]);
    const old = await call('track/list', { hash: ann.hash, tracker_id: t, from: local(NOW - 7 * DAY), to: local(NOW - 6 * DAY) });
    expect(old.body).toEqual({ success: true, limit_exceeded: true, list: [] });
    const inside = await call('track/list', { hash: ann.hash, tracker_id: t, from: local(NOW - 5 * DAY + 60_000), to: local(NOW) });
    expect(inside.body.limit_exceeded).toBe(false);
  });

  it('track/read: true, and only the points inside the window', async () => {
    const r = await call('track/read', { hash: ann.hash, tracker_id: t, ...span });
    expect(r.body.limit_exceeded).toBe(true);
    expect(r.body.list.map((p: any) => Math.round(p.lat * 100))).toEqual([5100, 5101, 5102, 5103, 5104]);
  });

  it('track/download: the JSON answer instead of a file', async () => {
    const r = await call('track/download', { hash: ann.hash, tracker_id: t, ...span, format: 'kmz' });
    expect(r.headers.get('content-type')).toMatch(/json/);
    expect(r.body).toEqual({ success: true, list: [], limit_exceeded: true });
  });
});

// ---- track/download ----

const xml = new XMLParser({ ignoreAttributes: false, isArray: (name) => ['Folder', 'Placemark'].includes(name) });
const coords = (placemark: any): string[] => String(placemark.LineString.coordinates).trim().split(/\s+/);

describe('track/download', () => {
  it('KML, split=false: a well-formed document with one line of every point of the period', async () => {
    const r = await call('track/download', ask());
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/vnd\.google-earth\.kml\+xml/);
    expect(r.headers.get('content-disposition')).toMatch(/attachment; filename="track_\d+_\d{4}-\d\d-\d\d\.kml"/);
    expect(XMLValidator.validate(r.body)).toBe(true);
    const doc = xml.parse(r.body).kml.Document;
    expect(doc.name).toBe(`Van & <1>: ${period.from} - ${period.to}`);
    expect(doc.Folder).toBeUndefined();
    expect(doc.Placemark).toHaveLength(1);
    const line = coords(doc.Placemark[0]);
    expect(line).toHaveLength(11 + 2 + 3 + 10 + 4 + 3);
    expect(line[0]).toBe('4.3,52');
    expect(coords(xml.parse((await call('track/download', ask({ include_gsm_lbs: false }))).body).kml.Document.Placemark[0])).toHaveLength(29);
    expect(coords(xml.parse((await call('track/download', ask({ filter: true }))).body).kml.Document.Placemark[0])).toHaveLength(33 - 13);
    expect(coords(xml.parse((await call('track/download', ask({ point_limit: 2 }))).body).kml.Document.Placemark[0])).toEqual(['4.3,52', '4.5,52.4']);
  });

  it('split=true: a folder per track with Start and End placemarks and its line', async () => {
    const r = await call('track/download', ask({ split: true, filter: true }));
    expect(XMLValidator.validate(r.body)).toBe(true);
    const folders = xml.parse(r.body).kml.Document.Folder;
    expect(folders.map((f: any) => f.name)).toEqual([
      `Track 1: ${local(at(10))} - ${local(at(10, 10))}`,
      `Track 2: ${local(at(12))} - ${local(at(12, 30))}`,
      `Single report 3: ${local(at(14))} - ${local(at(14))}`,
      `Single report 4: ${local(at(14, 30))} - ${local(at(14, 30))}`,
      `Single report 5: ${local(at(15))} - ${local(at(15))}`,
    ]);
    const [first] = folders;
    expect(first.Placemark.map((p: any) => p.name)).toEqual(['Start', 'End', first.name]);
    expect(first.Placemark[0]).toMatchObject({ description: `${local(at(10))}, Delft, Main Street 1`, Point: { coordinates: '4.3,52' } });
    expect(first.Placemark[1]).toMatchObject({ description: `${local(at(10, 10))}, Delft, Station Square`, Point: { coordinates: '4.3,52.01' } });
    expect(coords(first.Placemark[2])).toHaveLength(11);
    expect(first.TimeSpan).toEqual({ begin: new Date(at(10)).toISOString().replace('.000Z', 'Z'), end: new Date(at(10, 10)).toISOString().replace('.000Z', 'Z') });
    expect(folders[1].Placemark[0].description).toBe(`${local(at(12))}, Near 52.10, 4.30`);
    expect(folders[2].Placemark.map((p: any) => p.name)).toEqual(['Start', 'End']); // one point: no line
    const limited = xml.parse((await call('track/download', ask({ split: true, filter: true, point_limit: 3 }))).body).kml.Document.Folder;
    expect(coords(limited[0].Placemark[2])).toEqual(['4.3,52', '4.3,52.005', '4.3,52.01']);
  });

  it('track_ids: only the points of those tracks (LBS kept even with include_gsm_lbs=false); another source\'s track is 204', async () => {
    const r = await call('track/download', ask({ track_ids: [day.trip4, day.trip1], include_gsm_lbs: false }));
    expect(coords(xml.parse(r.body).kml.Document.Placemark[0])).toHaveLength(15);
    const split = await call('track/download', ask({ track_ids: [day.trip4, day.trip1], split: true }));
    expect(xml.parse(split.body).kml.Document.Folder.map((f: any) => coords(f.Placemark[2]).length)).toEqual([11, 4]);
    const other = newTracker(ann.id);
    const foreign = track(sourceOf(other), { start: at(10), end: at(11), from: [1, 1], to: [1, 2], points: 5, length: 1 });
    const bad = await call('track/download', ask({ track_ids: [day.trip1, foreign] }));
    expect(bad.body.status.code).toBe(204);
  });

  it('KMZ is a zip holding the same KML', async () => {
    const kml = (await call('track/download', ask({ split: true }))).body;
    const r = await call('track/download', ask({ split: true, format: 'kmz' }));
    expect(r.headers.get('content-type')).toBe('application/vnd.google-earth.kmz');
    expect(r.headers.get('content-disposition')).toMatch(/\.kmz"$/);
    const files = unzipSync(r.bytes);
    expect(Object.keys(files)).toEqual(['doc.kml']);
    expect(strFromU8(files['doc.kml'])).toBe(kml);
  });

  it('format must be kml or kmz (7)', async () => {
    const r = await call('track/download', ask({ format: 'gpx' }));
    expect(r.body.errors[0].parameter).toBe('format');
  });

  it('an empty period is an empty, valid document', async () => {
    const r = await call('track/download', ask({ from: local(at(20)), to: local(at(21)), split: true }));
    expect(XMLValidator.validate(r.body)).toBe(true);
    expect(xml.parse(r.body).kml.Document.Folder).toBeUndefined();
  });
});

// ---- the pure parts ----

/** Reference: classic recursive Douglas–Peucker with tolerance eps, same projection and segment distance. */
function bruteDp(lat: number[], lng: number[], eps: number): number[] {
  const k = Math.cos((lat[0] * Math.PI) / 180);
  const x = lng.map((v) => (v - lng[0]) * k);
  const y = lat.map((v) => v - lat[0]);
  const seg = (i: number, a: number, b: number) => {
    const dx = x[b] - x[a];
    const dy = y[b] - y[a];
    const l2 = dx * dx + dy * dy;
    const t = l2 ? Math.max(0, Math.min(1, ((x[i] - x[a]) * dx + (y[i] - y[a]) * dy) / l2)) : 0;
    return Math.hypot(x[i] - x[a] - t * dx, y[i] - y[a] - t * dy);
  };
  const keep = new Set([0, lat.length - 1]);
  const rec = (a: number, b: number) => {
    let best = -1;
    let max = 0;
    for (let i = a + 1; i < b; i++) {
      const d = seg(i, a, b);
      if (d > max) [max, best] = [d, i];
    }
    if (best < 0 || max <= eps) return;
    keep.add(best);
    rec(a, best);
    rec(best, b);
  };
  rec(0, lat.length - 1);
  return [...keep].sort((p, q) => p - q);
}

function randomWalk(n: number, seed: number): { lat: number[]; lng: number[] } {
  let r = seed;
  const rnd = () => ((r = (r * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const lat = [48];
  const lng = [11];
  for (let i = 1; i < n; i++) {
    lat.push(lat[i - 1] + rnd() * 0.001);
    lng.push(lng[i - 1] + rnd() * 0.001 + 0.0003);
  }
  return { lat, lng };
}

describe('simplifyLine', () => {
  it.each([1, 2, 3, 4, 5])('equals brute-force Douglas–Peucker with the tolerance of the same size (seed %i)', (seed) => {
    const { lat, lng } = randomWalk(2000, seed);
    for (const eps of [0.00002, 0.0001, 0.0005, 0.002]) {
      const expected = bruteDp(lat, lng, eps);
      expect(Array.from(simplifyLine(lat, lng, expected.length))).toEqual(expected);
    }
  });

  it('keeps exactly min(limit, n) points, always the first and the last', () => {
    const { lat, lng } = randomWalk(300, 9);
    for (const limit of [2, 3, 17, 299, 300, 3000]) {
      const kept = simplifyLine(lat, lng, limit);
      expect(kept.length).toBe(Math.min(limit, 300));
      expect(kept[0]).toBe(0);
      expect(kept[kept.length - 1]).toBe(299);
      expect(kept.every((v, i) => i === 0 || v > kept[i - 1])).toBe(true);
    }
    expect(() => simplifyLine(lat, lng, 1)).toThrow(RangeError);
  });

  it('spreads a straight (collinear) run evenly and a parked one (identical points) too', () => {
    const n = 1001;
    const line = Array.from({ length: n }, (_, i) => 50 + i * 0.0001);
    expect(Array.from(simplifyLine(line, Array(n).fill(8), 5))).toEqual([0, 250, 500, 750, 1000]);
    expect(Array.from(simplifyLine(Array(n).fill(50), Array(n).fill(8), 3))).toEqual([0, 500, 1000]);
  });

  it('a day of 1 s fixes to 1000 points in well under the call budget', () => {
    const { lat, lng } = randomWalk(86_400, 3);
    const t0 = performance.now();
    expect(simplifyLine(Float64Array.from(lat), Float64Array.from(lng), 1000)).toHaveLength(1000);
    expect(performance.now() - t0).toBeLessThan(200); // ~5-10 ms alone; loose for a loaded shared machine
  });
});

describe('membership and KML text', () => {
  it('membership handles touching, nested and overlapping intervals', () => {
    const times = [0, 5, 10, 15, 20, 25, 30, 35];
    const intervals = [
      { start: 5, end: 10 },
      { start: 6, end: 8 },
      { start: 15, end: 22 },
      { start: 20, end: 30 },
    ];
    expect(Array.from(membership(times, times.length, intervals))).toEqual([0, 1, 1, 1, 1, 1, 1, 0]);
  });

  it('xmlText escapes the XML specials and drops forbidden control characters', () => {
    expect(xmlText(`a&b<c>"d'\u0001e`)).toBe('a&amp;b&lt;c&gt;&quot;d&apos;e');
  });
});
