/**
 * The event log (issue 12; docs/events.md) through the real telemetry core: a journey with known
 * events is committed as the gateway's writer commits fixes, the server's worker pool processes it,
 * and the stored events are exactly the expected ones. The same journey delivered with a late
 * batch inside it gives the same events, none twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceRecord } from '../../protocols/types.ts';
import { destination, distanceKm } from '../../src/core/geo.ts';
import { pack } from '../../src/gateway/packing.ts';
import { openDatabase, type DB } from '../../src/store/db.ts';
import { FixStore } from '../../src/store/fixes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const T0 = Date.UTC(2026, 10, 20, 6, 0, 0);
const START = { lat: 54.6872, lng: 25.2797 };
const LIMIT = 80;

interface Fix {
  time: number;
  lat: number;
  lng: number;
  speed: number;
  ignition: boolean;
  alarm?: string;
}

/**
 * Parked with ignition off 10 min (a fix a minute); ignition on, 40 s still; drive north at
 * 50 km/h (a fix every 10 s) with 5 fixes at 100 km/h (limit 80), through a 300 m zone, an sos
 * on one fix; stop 6 min with ignition on (a parking), then ignition off.
 */
function buildJourney() {
  const fixes: Fix[] = [];
  let t = T0;
  let { lat, lng } = START;
  const add = (speed: number, ignition: boolean, alarm?: string) => fixes.push({ time: t, lat, lng, speed, ignition, ...(alarm ? { alarm } : {}) });
  for (let i = 0; i <= 10; i++, t += 60_000) add(0, false);
  t -= 60_000;
  const ignitionOn = (t += 10_000);
  for (let i = 0; i < 4; i++, t += 10_000) add(0, true);
  t -= 10_000;
  const drive = (n: number, kmh: number, alarmAt = -1) => {
    for (let i = 0; i < n; i++) {
      t += 10_000;
      ({ lat, lng } = destination(lat, lng, 0, (kmh * 10) / 3600));
      add(kmh, true, i === alarmAt ? 'sos' : undefined);
    }
  };
  drive(20, 50);
  const moved = fixes[15].time; // the first moving fix: the parking ends
  const speedingFrom = t + 10_000;
  drive(5, 100);
  const speedingTo = t + 10_000;
  drive(10, 50);
  // The zone: centred 1.5 km further north, 300 m radius: about 4 fixes inside at 50 km/h.
  const zone = { ...destination(lat, lng, 0, 1.5), radius: 300 };
  drive(50, 50, 40);
  const stopFrom = t + 30_000;
  for (let i = 0; i < 12; i++) {
    t += 30_000;
    add(0, true);
  }
  const ignitionOff = (t += 30_000);
  add(0, false);
  t += 30_000;
  add(0, false);
  const inside = fixes.filter((f) => distanceKm(f.lat, f.lng, zone.lat, zone.lng) * 1000 <= zone.radius);
  const afterZone = fixes.find((f) => f.time > inside[inside.length - 1].time)!;
  const sos = fixes.find((f) => f.alarm)!;
  return { fixes, zone, times: { ignitionOn, moved, speedingFrom, speedingTo, enter: inside[0], exit: afterZone, sos, stopFrom, ignitionOff } };
}
const J = buildJourney();

let s: TestServer;
let owner: { id: number; hash: string };
let writer: DB;
let fixStore: FixStore;
let zoneId: number;
const trackers: Array<{ id: number; source: number }> = [];

beforeAll(async () => {
  s = await startTestServer();
  owner = await s.user('events@example.com', { timeZone: 'UTC' });
  for (const imei of ['351000000000001', '351000000000002']) {
    const id = s.addTracker(owner.id, imei);
    trackers.push({ id, source: s.store.trackers.getAny(id)!.source_id });
    expect((await s.call('tracker/settings/update', { hash: owner.hash, tracker_id: id, settings: { speed_limit: LIMIT } })).body).toEqual({ success: true });
  }
  zoneId = (await s.call('zone/create', { hash: owner.hash, zone: { type: 'circle', label: 'Depot', address: 'x', radius: J.zone.radius, center: { lat: J.zone.lat, lng: J.zone.lng } } })).body.id;
  writer = openDatabase(`${s.dataDir}/fsm.sqlite`);
  fixStore = new FixStore(writer);
});
afterAll(async () => {
  writer?.close();
  await s?.close();
});

/** Commit fixes as the gateway's writer thread does, then wait for the telemetry core. */
async function deliver(source: number, fixes: Fix[]): Promise<void> {
  const records: DeviceRecord[] = fixes.map((f) => ({ time: f.time, lat: f.lat, lng: f.lng, speed: f.speed, course: 0, satellites: 9, valid: true, attributes: { ignition: f.ignition, ...(f.alarm ? { alarm: f.alarm } : {}) } }));
  fixStore.write([pack(source, records, Date.now())], Date.now());
  s.running.telemetry.soon(0);
  expect(await s.running.telemetry.idle(60_000)).toBe(true);
}

const eventsOf = (source: number) =>
  (s.sql.prepare('SELECT type, time, lat, lng, extra FROM events WHERE source_id = ? ORDER BY time, type').all(source) as Array<{ type: string; time: number; lat: number; lng: number; extra: string | null }>).map((e) => ({
    ...e,
    extra: e.extra ? JSON.parse(e.extra) : {},
  }));

describe('a journey with known events', () => {
  it('gives exactly the expected events', async () => {
    await deliver(trackers[0].source, J.fixes);
    const { times } = J;
    const at = (time: number) => J.fixes.find((f) => f.time === time)!;
    const ev = (type: string, time: number, extra: Record<string, unknown> = {}, where = at(time)) => ({ type, time, lat: where.lat, lng: where.lng, extra });
    const lastParked = J.fixes[14];
    const expected = [
      ev('parking_start', T0),
      ev('ignition_on', times.ignitionOn),
      ev('parking_end', times.moved, { start: T0, duration: (times.moved - T0) / 1000 }, lastParked),
      ev('speeding_start', times.speedingFrom, { speed: 100, speed_limit: LIMIT }),
      ev('speeding_end', times.speedingTo, { start: times.speedingFrom, max_speed: 100, duration: (times.speedingTo - times.speedingFrom) / 1000, speed_limit: LIMIT }),
      ev('zone_enter', times.enter.time, { zone_id: zoneId }),
      ev('zone_exit', times.exit.time, { zone_id: zoneId }),
      ev('alarm_sos', times.sos.time),
      ev('parking_start', times.stopFrom),
      ev('ignition_off', times.ignitionOff),
    ].sort((a, b) => a.time - b.time || a.type.localeCompare(b.type));
    expect(times.sos.time).toBeGreaterThan(times.exit.time);
    expect(eventsOf(trackers[0].source)).toEqual(expected);
  });

  it('the same journey with a late batch inside it: the same events, none twice', async () => {
    const src = trackers[1].source;
    const cut = (t: number) => J.fixes.findIndex((f) => f.time >= t);
    // The speeding and the zone arrive hours late, after the rest was processed.
    const a = cut(J.times.speedingFrom - 20_000);
    const b = cut(J.times.exit.time + 20_000);
    await deliver(src, J.fixes.slice(0, a));
    await deliver(src, J.fixes.slice(b));
    const before = eventsOf(src);
    expect(before.filter((e) => e.type.startsWith('speeding') || e.type.startsWith('zone'))).toEqual([]);
    await deliver(src, J.fixes.slice(a, b));
    expect(eventsOf(src)).toEqual(eventsOf(trackers[0].source));
    // Delivered again (a resend after a lost ACK): still once each.
    await deliver(src, J.fixes.slice(a, b));
    expect(eventsOf(src)).toEqual(eventsOf(trackers[0].source));
  });

  it('a changed speed limit reprocesses the history: the episode goes, nothing else changes', async () => {
    const id = trackers[0].id;
    expect((await s.call('tracker/settings/update', { hash: owner.hash, tracker_id: id, settings: { speed_limit: 120 } })).body).toEqual({ success: true });
    s.running.telemetry.soon(0);
    expect(await s.running.telemetry.idle(60_000)).toBe(true);
    const got = eventsOf(trackers[0].source);
    expect(got.filter((e) => e.type.startsWith('speeding'))).toEqual([]);
    expect(got.map((e) => e.type)).toEqual(['parking_start', 'ignition_on', 'parking_end', 'zone_enter', 'zone_exit', 'alarm_sos', 'parking_start', 'ignition_off']);
  });
});
