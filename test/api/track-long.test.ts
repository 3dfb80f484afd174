/**
 * track/read and track/download of a long period (more points than OFFLOAD_POINTS): the line is
 * simplified in the telemetry worker pool, off the event loop, and the answer is exactly what
 * simplifying on this thread gives. Real server, real workers, real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack } from '../../src/gateway/packing.ts';
import { FixStore } from '../../src/store/fixes.ts';
import { OFFLOAD_POINTS } from '../../src/tracks/points.ts';
import { simplifyLine } from '../../src/tracks/simplify.ts';
import type { DeviceRecord } from '../../protocols/types.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const N = OFFLOAD_POINTS + 20_000;
const T0 = Date.UTC(2026, 10, 1);
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

let s: TestServer;
let owner: { id: number; hash: string };
let trackerId: number;
let source: number;

beforeAll(async () => {
  s = await startTestServer();
  owner = await s.user('long@example.com', { timeZone: 'UTC' });
  trackerId = s.addTracker(owner.id, 'long-1');
  source = s.store.trackers.getAny(trackerId)!.source_id;
  const fixes = new FixStore(s.sql);
  // A winding drive, one fix a second.
  let lat = 54.6;
  let lng = 25.2;
  let heading = 0;
  for (let a = 0; a < N; a += 5000) {
    const records: DeviceRecord[] = [];
    for (let i = a; i < Math.min(N, a + 5000); i++) {
      heading += Math.sin(i / 300) * 0.05;
      lat += Math.cos(heading) * 1e-4;
      lng += Math.sin(heading) * 1.6e-4;
      records.push({ time: T0 + i * 1000, lat, lng, speed: 40, course: 0, satellites: 9, valid: true, attributes: {} });
    }
    fixes.write([pack(source, records, Date.now())], Date.now());
  }
  expect(await s.running.telemetry.idle(120_000)).toBe(true);
}, 180_000);
afterAll(() => s?.close());

describe('a long period', () => {
  it('track/read: simplified in the pool, exactly as on this thread', async () => {
    const r = await s.call('track/read', { hash: owner.hash, tracker_id: trackerId, from: fmt(T0), to: fmt(T0 + N * 1000), point_limit: 700 });
    expect(r.body.success).toBe(true);
    const cols = s.store.tracks.fixColumns(source, T0, T0 + N * 1000, true);
    expect(cols.n).toBe(N);
    const want = simplifyLine(cols.lat.subarray(0, cols.n), cols.lng.subarray(0, cols.n), 700);
    expect(r.body.list.map((p: { lat: number; lng: number }) => [p.lat, p.lng])).toEqual(Array.from(want, (i) => [cols.lat[i], cols.lng[i]]));
  });

  it('track/download: the same line in the KML', async () => {
    const r = await s.call('track/download', { hash: owner.hash, tracker_id: trackerId, from: fmt(T0), to: fmt(T0 + N * 1000), point_limit: 700, format: 'kml' });
    expect(r.status).toBe(200);
    const coords = /<coordinates>([^<]*)<\/coordinates>/.exec(String(r.body))![1].trim().split(/\s+/);
    expect(coords.length).toBe(700);
  });
});
