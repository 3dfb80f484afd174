/**
 * Compact fix storage end to end (issue 15, docs/storage.md): journeys sent as Teltonika packets
 * through the real gateway over TCP, processed by the real worker pool, then compacted. What a user
 * sees over HTTP (track/read, track/list, history/tracker/list) and what reports and forwarding read
 * is identical before and after; late fixes and repeats of compacted instants (other attributes)
 * land exactly as into rows, and the derived data equals an uncompacted tracker's.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { avlPacket, loginPacket } from '../../src/simulator/devices/teltonika.ts';
import type { SimFix } from '../../src/simulator/types.ts';
import type { Point } from '../../src/telemetry/types.ts';
import { runCompaction, compactionHorizon } from '../../src/retention/compaction.ts';
import { FixChunkStore } from '../../src/store/fix-chunks.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { journey } from './journeys.ts';
import type { StepColumns } from '../../src/store/reports.ts';

const DAY_MS = 86_400_000;
// Ten days back: past any horizon of a few days, within the default storage periods.
const DAY = Math.floor(Date.now() / DAY_MS) * DAY_MS - 10 * DAY_MS + 6 * 3600_000;
const ZONE = { lat: 54.79, lng: 25.2797, radiusM: 200 };
const built = journey({ lat: 54.6872, lng: 25.2797, time: DAY }, { ignition: true })
  .drive({ km: 10, kmh: 50, bearing: 0 })
  .stop({ minutes: 10, ignitionOff: true })
  .drive({ km: 1, kmh: 40, bearing: 0 })
  .enterCircle(ZONE, { minutes: 7, kmh: 30 })
  .drive({ km: 2, kmh: 40, bearing: 0 })
  .build();

function simFix(p: Point, other = false): SimFix {
  return {
    time: p.time,
    lat: p.lat,
    lng: p.lng,
    altitude: 100,
    speed: p.speed,
    course: Number.isFinite(p.course) ? p.course : 0,
    satellites: other ? 5 : 9,
    hdop: 1,
    ignition: p.ignition ?? true,
    motion: p.speed > 0,
    power: other ? 12.2 : 13.8,
    battery: 4.1,
    batteryLevel: other ? 40 : 90,
    fuelLevel: 50,
    odometer: Math.round((p.time - DAY) / 100),
    inputs: p.ignition === false ? 0 : 1,
    rssi: 4,
    cell: { mcc: 246, mnc: 1, lac: 1, cid: 1 },
    event: 0,
  };
}

/** Sends fixes as a tracker would (login, then packets of 50 records), waiting for every ACK. */
async function drive(port: number, imei: string, fixes: SimFix[]): Promise<void> {
  const socket = net.connect(port, '127.0.0.1');
  try {
    await new Promise((r) => socket.once('connect', r));
    let got = Buffer.alloc(0);
    socket.on('data', (d) => (got = Buffer.concat([got, d])));
    const wait = async (n: number) => {
      for (let i = 0; i < 6000 && got.length < n; i++) await new Promise((r) => setTimeout(r, 5));
      if (got.length < n) throw new Error('no ACK');
    };
    socket.write(loginPacket(imei));
    await wait(1);
    let expected = 1;
    for (let i = 0; i < fixes.length; i += 50) {
      const part = fixes.slice(i, i + 50);
      socket.write(avlPacket(part));
      expected += 4;
      await wait(expected);
    }
  } finally {
    socket.destroy();
  }
}

let s: TestServer;
let owner: { id: number; hash: string };
let port: number;
let retranslator: number;
const t: Record<string, { id: number; source: number; imei: string }> = {};
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const first = built.points[0].time;
const last = built.points[built.points.length - 1].time;

beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0' });
  port = s.running.gateway.ports.teltonika.tcp!;
  owner = await s.user('fleet@example.com', { timeZone: 'UTC' });
  ['kept', 'late_rows', 'late_chunks'].forEach((name, i) => {
    const imei = `35000000000010${i}`;
    const id = s.addTracker(owner.id, imei);
    t[name] = { id, source: s.store.trackers.getAny(id)!.source_id, imei };
  });
  const zone = await s.call('zone/create', { hash: owner.hash, zone: { type: 'circle', label: 'Depot', address: 'x', radius: ZONE.radiusM, center: { lat: ZONE.lat, lng: ZONE.lng } } });
  expect(zone.body.success).toBe(true);
  // A disabled retranslator: its log keeps every fix of the tracker for the forwarding read below.
  retranslator = s.store.retranslators.create(owner.id, { name: 'r', protocolId: 1, address: '127.0.0.1', port: 9, login: '', password: '', enabled: false });
  s.store.retranslators.bind(retranslator, t.kept.id, t.kept.source, null, Date.now());
});
afterAll(() => s?.close());

const count = (sql: string, source: number) => s.sql.prepare(sql).pluck().get(source) as number;
const rowsOf = (source: number) => count('SELECT count(*) FROM fixes WHERE source_id = ?', source);
const chunksOf = (source: number) => count('SELECT count(*) FROM fix_chunks WHERE source_id = ?', source);

/** The speed violation report's columns as the rows `steps` gives (NaN: null). */
function stepRows(c: StepColumns) {
  const v = (x: number) => (Number.isNaN(x) ? null : x);
  return Array.from({ length: c.n }, (_, i) => ({ time: c.time[i], speed: v(c.speed[i]), flags: c.flags[i], lat: v(c.lat[i]), lng: v(c.lng[i]) }));
}

/** Everything a user or a reader of the tracker's day gets, as exact bodies. */
async function seen(name: string) {
  const { id, source } = t[name];
  const period = { from: fmt(first - 3600_000), to: fmt(last + 3600_000) };
  const call = async (path: string, p: Record<string, unknown>) => {
    const r = await s.call(path, { hash: owner.hash, ...p });
    expect(r.body.success).toBe(true);
    return r.body;
  };
  return {
    read: await call('track/read', { tracker_id: id, ...period }),
    readLimited: await call('track/read', { tracker_id: id, ...period, point_limit: 300, include_gsm_lbs: false }),
    list: await call('track/list', { tracker_id: id, ...period, count_events: true }),
    history: await call('history/tracker/list', { trackers: [id], ...period }),
    reportFixes: s.store.reportData.fixes(source, first, last),
    steps: [...s.store.reportData.steps(source, first - 1000, last)],
    stepColumns: stepRows(s.store.reportData.stepColumns(source, first - 1000, last)),
    extent: s.store.tracks.extent(source, first, last),
    alarms: s.store.telemetry.alarmsOf(source, first, last),
    forwarded: s.store.retranslators.batch(retranslator, 0, s.store.retranslators.maxSeq(), 1_000_000),
  };
}

/** Compacts one tracker only (the others stay rows for reference). */
function compactOne(source: number): number {
  const horizon = compactionHorizon(Date.now(), 48);
  let n = 0;
  while (s.store.compaction.step(source, horizon)) n++;
  return n;
}

describe('a processed day compacted', () => {
  it('answers track/read, track/list, history, report and forwarding reads exactly as before', async () => {
    await drive(port, t.kept.imei, built.points.map((p) => simFix(p)));
    expect(await s.running.telemetry.idle(60_000)).toBe(true);
    const before = await seen('kept');
    expect(before.read.list.length).toBeGreaterThan(100);
    expect(before.stepColumns).toEqual(before.steps);
    expect(before.forwarded.length).toBe(built.points.length);
    expect(count('SELECT count(*) FROM track_points WHERE source_id = ?', t.kept.source)).toBeGreaterThan(0);
    const p = await runCompaction({ store: s.store, now: Date.now }, { afterHours: 48, pauseMs: 0 });
    expect(p.fixes).toBeGreaterThanOrEqual(built.points.length);
    expect(rowsOf(t.kept.source)).toBe(0);
    expect(chunksOf(t.kept.source)).toBeGreaterThan(0);
    // The day's track points live in the chunks only.
    expect(count('SELECT count(*) FROM track_points WHERE source_id = ?', t.kept.source)).toBe(0);
    const after = await seen('kept');
    for (const k of Object.keys(before) as Array<keyof typeof before>) expect([k, after[k]]).toEqual([k, before[k]]);
    // Every field of every fix, through the one read path.
    const all = new FixChunkStore(s.sql as never).readFixes(t.kept.source, 0, Number.MAX_SAFE_INTEGER);
    expect(all.length).toBe(built.points.length);
    expect(all.map((r) => r.time)).toEqual(built.points.map((p) => p.time));
  });
});

describe('late data and repeats into compacted history', () => {
  it('merge exactly as into rows: fixes, tracks, visits and events equal an uncompacted tracker, before and after compacting again', async () => {
    const held = (i: number) => i % 7 === 3;
    const onTime = built.points.filter((_, i) => !held(i)).map((p) => simFix(p));
    for (const name of ['late_rows', 'late_chunks']) await drive(port, t[name].imei, onTime);
    expect(await s.running.telemetry.idle(60_000)).toBe(true);
    expect(compactOne(t.late_chunks.source)).toBeGreaterThan(0);
    expect(rowsOf(t.late_chunks.source)).toBe(0);
    const chunksBefore = s.sql.prepare('SELECT first_time, last_time, count FROM fix_chunks WHERE source_id = ? ORDER BY first_time').all(t.late_chunks.source);
    // The held-back fixes, and repeats of compacted instants with other attributes, hours late.
    const late = [...built.points.filter((_, i) => held(i)).map((p) => simFix(p)), ...built.points.filter((_, i) => i % 50 === 10).map((p) => simFix(p, true))].sort((a, b) => a.time - b.time);
    for (const name of ['late_rows', 'late_chunks']) await drive(port, t[name].imei, late);
    expect(await s.running.telemetry.idle(60_000)).toBe(true);
    // The compacted day went back to rows (it is compacted again by the next pass).
    expect(s.sql.prepare('SELECT first_time, last_time, count FROM fix_chunks WHERE source_id = ? ORDER BY first_time').all(t.late_chunks.source)).not.toEqual(chunksBefore);
    const same = async () => {
      const fixes = (name: string) => new FixChunkStore(s.sql as never).readFixes(t[name].source, 0, Number.MAX_SAFE_INTEGER).map(({ received: _, ...r }) => r);
      const rows = fixes('late_rows');
      expect(rows.length).toBe(built.points.length);
      const repeat = rows.find((r) => r.time === built.points[10].time)!;
      expect(repeat.satellites).toBe(5);
      expect(JSON.parse(repeat.attrs!)).toMatchObject({ power: 12.2 });
      expect(fixes('late_chunks')).toEqual(rows);
      const derived = (table: string, order: string) => (name: string) => s.sql.prepare(`SELECT * FROM ${table} WHERE source_id = ? ORDER BY ${order}`).all(t[name].source).map((r: any) => ({ ...r, id: 0, source_id: 0, tracker_id: r.tracker_id === undefined ? undefined : 0 }));
      for (const [table, order] of [['tracks', 'start_time, gsm_lbs'], ['visits', 'enter_time, kind, geo_id'], ['events', 'time, type']]) expect(derived(table, order)('late_chunks')).toEqual(derived(table, order)('late_rows'));
      // The two trackers differ only in their ids and labels (history entries name the tracker).
      const strip = (b: any) => JSON.parse(JSON.stringify(b).replace(/"id":\d+/g, '"id":0').replace(/"tracker_label":"[^"]*"/g, '"tracker_label":""').replaceAll(`"tracker_id":${t.late_chunks.id}`, '"tracker_id":0').replaceAll(`"tracker_id":${t.late_rows.id}`, '"tracker_id":0'));
      const [a, b] = [await seen('late_rows'), await seen('late_chunks')];
      for (const k of ['read', 'readLimited', 'list', 'history', 'extent', 'alarms'] as const) expect(strip(b[k])).toEqual(strip(a[k]));
    };
    await same();
    expect(compactOne(t.late_chunks.source)).toBeGreaterThan(0);
    expect(rowsOf(t.late_chunks.source)).toBe(0);
    await same();
    // Reprocessing the whole history (as new settings do) over compacted history gives the same again.
    s.store.telemetry.setSettings(t.late_chunks.source, s.store.telemetry.settings(t.late_chunks.source));
    s.running.telemetry.soon();
    expect(await s.running.telemetry.idle(60_000)).toBe(true);
    expect(rowsOf(t.late_chunks.source)).toBe(0);
    await same();
  });
});
