/**
 * Retention as an operator runs it (issue 15, docs/operations.md#retention): `npm run fsm --
 * retention` against a running server prints its progress and what it deleted; a pass while
 * trackers stream over real TCP loses nothing acknowledged.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack } from '../../src/gateway/packing.ts';
import { FixStore } from '../../src/store/fixes.ts';
import { DAY_MS, runRetention } from '../../src/retention/retention.ts';
import type { DeviceRecord } from '../../protocols/types.ts';
import { journey } from '../telemetry/journeys.ts';
import { fsm } from '../helpers/cli.ts';
import { runSimulation } from '../../src/simulator/index.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const NOW = Date.now();
const DAYS = 12;
const T0 = Math.floor(NOW / DAY_MS) * DAY_MS - DAYS * DAY_MS;

/** A trip out and back every morning, parked in between, for DAYS days up to yesterday. */
function history(): DeviceRecord[] {
  let j = journey({ lat: 54.6, lng: 25.2, time: T0 + 7 * 3_600_000 });
  for (let d = 0; d < DAYS; d++) j = j.drive({ km: 2, kmh: 40, every: 5, bearing: 0 }).stop({ minutes: 60, every: 60 }).drive({ km: 2, kmh: 40, every: 5, bearing: 180 }).gap({ minutes: 24 * 60 - 70 });
  return j.build().points.map((p) => ({ time: p.time, lat: p.lat, lng: p.lng, speed: p.speed, course: p.course, satellites: 9, valid: true, attributes: {} }));
}

let s: TestServer;
let userId: number;
const deviceIds = ['350000000000001', '350000000000002', '350000000000003', '350000000000004'];
const sources: number[] = [];
const count = (sql: string, ...args: unknown[]) => s.sql.prepare(sql).pluck().get(...args) as number;
/** Fixes of the devices before where each device's history would be kept from with a 5-day period. */
const oldFixes = () =>
  sources.reduce((n, src) => {
    const keep = s.sql.prepare('SELECT max(time) FROM telemetry_checkpoints WHERE source_id = ? AND time <= ?').pluck().get(src, Date.now() - 5 * DAY_MS) as number;
    return n + count('SELECT count(*) FROM fixes WHERE source_id = ? AND time < ?', src, keep);
  }, 0);

async function seed(ids: string[]): Promise<void> {
  const tariff = s.store.tariffs.copy(1, 'five days');
  s.store.tariffs.update(tariff, { track_storage_days: 5 });
  const fixes = new FixStore(s.sql);
  const data = history();
  for (const d of ids) {
    const id = s.addTracker(userId, d, { protocol: 'teltonika' });
    const source = s.store.trackers.getAny(id)!.source_id;
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tariff, source);
    sources.push(source);
    fixes.write([pack(source, data, NOW)], NOW);
  }
  expect(await s.running.telemetry.idle(120_000)).toBe(true);
}

beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0', FSM_GATEWAY_HOST: '127.0.0.1', FSM_RETENTION_INTERVAL_MINUTES: '0' });
  userId = (await s.user('ops@example.com')).id;
}, 60_000);
afterAll(() => s?.close());

describe('npm run fsm -- retention', () => {
  beforeAll(() => seed(deviceIds.slice(0, 2)), 180_000);

  it('prints progress on the terminal and what it deleted (media files too, space given back), while the server runs', () => {
    const old = oldFixes();
    expect(old).toBeGreaterThan(1000);
    const before = count('SELECT count(*) FROM fixes');
    // Media files the gateway stored for the first device, named by when they arrived.
    const media = join(s.dataDir, 'media', deviceIds[0]);
    mkdirSync(media, { recursive: true });
    const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
    const oldFile = join(media, `${stamp(T0 + DAY_MS)}-0a1b2c3d.jpg`);
    const newFile = join(media, `${stamp(NOW - 2 * DAY_MS)}-4e5f6a7b.jpg`);
    writeFileSync(oldFile, 'old photo');
    writeFileSync(newFile, 'new photo');
    const r = fsm(s.dataDir, 'retention');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^retention: 0\/2 trackers|retention: 1\/2 trackers, [\d,]+ rows deleted \([\d,]+ fixes\)\n/m);
    expect(r.stderr).toMatch(new RegExp(`retention: 2/2 trackers, [\\d,]+ rows deleted \\(${old.toLocaleString('en')} fixes\\)\\n$`));
    expect(r.stdout).toMatch(new RegExp(`^retention done in [\\d.]+ s: 2 trackers, 2 trimmed; deleted ${old.toLocaleString('en')} fixes, [\\d,]+ track point chunks, [\\d,]+ trips and parkings, [\\d,]+ stays, [\\d,]+ checkpoints, 0 forwarding log entries, 1 media files; ([\\d.]+) MiB given back to the file system\\n$`));
    expect(count('SELECT count(*) FROM fixes')).toBe(before - old);
    expect([existsSync(oldFile), existsSync(newFile)]).toEqual([false, true]);
    // a new database gives the freed pages back (auto_vacuum INCREMENTAL)
    expect(Number(/([\d.]+) MiB given back/.exec(r.stdout)![1])).toBeGreaterThan(0);
  });

  it('--json: the counts; a second run finds nothing more', () => {
    const r = fsm(s.dataDir, 'retention', '--json');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.json).toMatchObject({ trackers: 2, trimmed: 0, deleted: { fixes: 0, tracks: 0, visits: 0, track_points: 0, checkpoints: 0, forward_log: 0, media: 0 } });
  });

  it('tariff set --track-storage-days sets the period (0: no limit)', () => {
    expect(fsm(s.dataDir, 'tariff', 'set', '--user', 'ops@example.com', '--track-storage-days', '0').code).toBe(0);
    const tariff = s.store.tariffs.get(s.store.users.findByLogin('ops@example.com')!.tariff_id)!;
    expect(tariff.track_storage_days).toBe(0);
    expect(s.store.retention.sources().filter((x) => sources.includes(x.source_id)).map((x) => x.storage_days)).toEqual([0, 0]);
    expect(fsm(s.dataDir, 'tariff', 'set', '--user', 'ops@example.com', '--track-storage-days', 'forever').stderr).toContain('--track-storage-days takes a whole number');
  });
});

describe('a pass while trackers stream over TCP', () => {
  const streaming = deviceIds.slice(2);
  beforeAll(() => seed(streaming), 180_000);

  it('loses nothing acknowledged, and deletes what it should', async () => {
    const old = oldFixes();
    expect(old).toBeGreaterThan(1000);
    // Flooding from an hour ago: newer than everything seeded, so in order and far after the horizon.
    const acked = new Map<string, number[]>();
    const abort = new AbortController();
    const sim = runSimulation({
      protocol: 'teltonika', trackers: streaming.length, interval: 0, duration: 60, host: '127.0.0.1', port: s.running.gateway.ports.teltonika.tcp!, deviceIds: streaming,
      recordsPerPacket: 20, signal: abort.signal, ackTimeout: 5, drainTimeout: 0, startTime: Math.floor(Date.now() / 1000) * 1000 - 3_600_000,
      onAck: (device, records) => acked.set(device, [...(acked.get(device) ?? []), ...records.map((r) => r.time)]),
    });
    const ackedCount = () => [...acked.values()].reduce((n, l) => n + l.length, 0);
    const until = async (n: number) => {
      for (const end = Date.now() + 30_000; ackedCount() < n && Date.now() < end; ) await new Promise((r) => setTimeout(r, 50));
    };
    try {
      await until(500);
      const ackedBefore = ackedCount();
      const result = await runRetention({ store: s.store, now: Date.now }, { days: 0, stepRows: 100, pauseMs: 0 });
      expect(ackedCount()).toBeGreaterThan(ackedBefore); // acknowledgements went on during the pass
      await until(ackedCount() + 500);
      expect(result.deleted.fixes).toBe(old);
    } finally {
      abort.abort();
      await sim.catch(() => undefined);
    }
    const has = s.sql.prepare('SELECT 1 FROM fixes WHERE source_id = ? AND time = ?').pluck();
    let n = 0;
    for (const [device, times] of acked) {
      const source = sources[deviceIds.indexOf(device)];
      for (const t of times) {
        expect(has.get(source, t), `${device} ${new Date(t).toISOString()}`).toBe(1);
        n++;
      }
    }
    expect(n).toBeGreaterThan(1000);
  }, 120_000);
});
