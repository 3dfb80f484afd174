/**
 * bench/storage (issue 15, docs/storage.md): bytes on disk per stored fix, before and after
 * compaction, and track/read timings of a compacted day against an uncompacted one, in one run.
 *
 * Four days of the simulator's Teltonika Codec 8E stream (a record every 10 s, 13 IO elements each,
 * decoded by the real decoder) for `--trackers` trackers, plus `--mix` trackers sending the records
 * of the captured protocols (../shared/captures, every protocol, attributes as decoded, re-timed
 * every 10 s), written through the gateway's writer code and processed by the telemetry core. Then:
 *   1. database + WAL after a checkpoint, per fix, and per table (dbstat);
 *   2. compaction at the default horizon (48 h: the two oldest days), then the time of reading the
 *      points of a compacted day and of an uncompacted one (the store calls track/read makes: the
 *      day's columns, then the full rows of every point), p50/p99;
 *   3. everything compacted (horizon 0), the figures of 1. again. Target: at most 40 bytes per fix.
 *   node --import tsx bench/storage.ts [--trackers 10] [--mix 4] [--days 4] [--reads 20]
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { pack } from '../src/gateway/packing.ts';
import { Vehicle } from '../src/simulator/index.ts';
import { avlPacket } from '../src/simulator/devices/teltonika.ts';
import { openDatabase } from '../src/store/db.ts';
import { FixStore } from '../src/store/fixes.ts';
import { openStore } from '../src/store/index.ts';
import { TelemetryScheduler } from '../src/telemetry/scheduler.ts';
import { runCompaction } from '../src/retention/compaction.ts';
import { giveSpaceBack } from '../src/retention/retention.ts';
import { PROTOCOLS } from '../protocols/index.ts';
import type { DeviceRecord } from '../protocols/types.ts';

const { values } = parseArgs({ options: { trackers: { type: 'string', default: '10' }, mix: { type: 'string', default: '4' }, days: { type: 'string', default: '4' }, reads: { type: 'string', default: '20' } } });
const TRACKERS = Number(values.trackers);
const MIX = Number(values.mix);
const DAYS = Number(values.days);
const READS = Number(values.reads);
const DAY = 86_400_000;
const STEP = 10_000;
const today = Math.floor(Date.now() / DAY) * DAY;
const start = today - DAYS * DAY;

const dir = mkdtempSync(join(tmpdir(), 'fsm-storage-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const dbFile = loadConfig({ FSM_DATA_DIR: dir }).dbFile;
const store = openStore(dbFile);
const user = store.users.create({ login: 'bench@example.com', passwordHash: 'x', now: Date.now() });
const ids = Array.from({ length: TRACKERS + MIX }, (_, i) => `86${String(i + 1).padStart(13, '0')}`);
store.transaction(() => {
  for (const d of ids) store.trackers.add({ userId: user, deviceId: d, protocol: 'teltonika', label: d, tariffId: 1, now: Date.now() });
});
const sources = ids.map((d) => store.trackers.list(user).find((t) => t.device_id === d)!.source_id);

const writerDb = openDatabase(dbFile);
const writer = new FixStore(writerDb);
const teltonika = PROTOCOLS.get('teltonika')!;
let fixes = 0;

// The simulator's stream, through the real decoder, 50 records a packet.
for (let k = 0; k < TRACKERS; k++) {
  const v = new Vehicle({ seed: k + 1 });
  let batch = [];
  for (let t = start; t < today; t += STEP) {
    v.advance(STEP / 1000);
    batch.push(v.fix(t));
    if (batch.length === 50 || t + STEP >= today) {
      const frame = avlPacket(batch);
      const r = teltonika.decode!(frame.subarray(0), { now: Date.now(), transport: 'tcp', config: {}, session: {}, deviceId: ids[k] });
      fixes += writer.write([pack(sources[k], r.records ?? [], Date.now())], Date.now());
      batch = [];
    }
  }
}

// The captured protocols' records, re-timed.
const capturesDir = new URL('../../shared/captures/', import.meta.url).pathname;
const mixed: DeviceRecord[] = [];
if (existsSync(capturesDir)) {
  for (const f of readdirSync(capturesDir).filter((n) => n.endsWith('.jsonl'))) {
    const protocol = PROTOCOLS.get(f.replace('.jsonl', ''));
    if (!protocol) continue;
    const session: Record<string, unknown> = {};
    for (const line of readFileSync(join(capturesDir, f), 'utf8').split('\n').filter(Boolean)) {
      try {
        const l = JSON.parse(line) as { payload: string; encoding: string; transport: 'tcp' | 'udp' | 'http'; decoder_config?: Record<string, unknown> };
        const bytes = l.encoding === 'hex' ? Buffer.from(l.payload, 'hex') : Buffer.from(l.payload, 'utf8');
        if (!protocol.decode) break;
        const r = protocol.decode(bytes, { now: Date.now(), transport: l.transport, config: (l.decoder_config ?? {}) as never, session, deviceId: 'capture' });
        for (const rec of r.records ?? []) if (rec.lat !== undefined && rec.lng !== undefined && Number.isFinite(rec.lat) && Number.isFinite(rec.lng)) mixed.push(rec);
      } catch {
        /* lines that need a connection's context */
      }
    }
  }
}
if (mixed.length) {
  for (let k = TRACKERS; k < TRACKERS + MIX; k++) {
    let i = (k * 7919) % mixed.length;
    let batch: DeviceRecord[] = [];
    for (let t = start; t < today; t += STEP) {
      batch.push({ ...mixed[i++ % mixed.length], time: t, deviceId: undefined });
      if (batch.length === 50 || t + STEP >= today) {
        fixes += writer.write([pack(sources[k], batch, Date.now())], Date.now());
        batch = [];
      }
    }
  }
}
writerDb.close();
console.log(`stored ${fixes.toLocaleString('en')} fixes: ${TRACKERS} trackers of the simulator's Teltonika stream, ${MIX} of the captured protocols' ${mixed.length.toLocaleString('en')} located records, ${DAYS} days every 10 s`);

// The telemetry core processes everything (tracks, visits, checkpoints, packed track points).
const t0 = performance.now();
const telemetry = new TelemetryScheduler(store, { dbFile, threads: 1, nice: 0 });
telemetry.start();
telemetry.soon(0);
await telemetry.idle(3_600_000);
await telemetry.close();
console.log(`processed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

const watch = openDatabase(dbFile);
function disk(label: string): void {
  watch.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = statSync(dbFile).size + (existsSync(`${dbFile}-wal`) ? statSync(`${dbFile}-wal`).size : 0);
  console.log(`${label}: ${(bytes / 1048576).toFixed(1)} MiB on disk (database + WAL), ${(bytes / fixes).toFixed(1)} bytes per fix (target <= 40)`);
  try {
    const rows = watch.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name HAVING bytes > 65536 ORDER BY bytes DESC").all() as Array<{ name: string; bytes: number }>;
    console.log(`  per table: ${rows.map((r) => `${r.name} ${(r.bytes / fixes).toFixed(1)}`).join(', ')} bytes per fix`);
  } catch {
    console.log('  (no dbstat in this SQLite build)');
  }
}
disk('before compaction');

// Compaction at the default horizon: the two oldest days.
let t1 = performance.now();
let p = await runCompaction({ store, now: Date.now }, { afterHours: 48, pauseMs: 0 });
await giveSpaceBack(store, 4096, 0);
console.log(`compacted ${p.fixes.toLocaleString('en')} fixes into ${p.chunks} chunks in ${((performance.now() - t1) / 1000).toFixed(1)} s (default horizon, 48 h)`);

/** The store calls of track/read over a day (no point_limit): the points, then every point's row. */
function readDay(source: number, from: number): { ms: number; points: number } {
  const a = performance.now();
  const cols = store.tracks.columns(source, from, from + DAY - 1, true);
  const rows = store.tracks.details(source, Array.from(cols.time.subarray(0, cols.n)));
  return { ms: performance.now() - a, points: rows.length };
}
const pct = (xs: number[], q: number) => xs.sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const compactedDay = start + DAY;
const rowDay = today - DAY;
for (const [label, day] of [['compacted day', compactedDay], ['uncompacted day', rowDay]] as const) {
  const ms: number[] = [];
  let points = 0;
  for (let r = 0; r < READS; r++) for (let k = 0; k < TRACKERS; k++) {
    const got = readDay(sources[k], day);
    ms.push(got.ms);
    points += got.points;
  }
  console.log(`track/read of a ${label}: p50 ${pct(ms, 0.5).toFixed(1)} ms, p99 ${pct(ms, 0.99).toFixed(1)} ms (${Math.round(points / ms.length)} points a day)`);
}

// Everything compacted.
t1 = performance.now();
p = await runCompaction({ store, now: Date.now }, { afterHours: 0, pauseMs: 0 });
await giveSpaceBack(store, 4096, 0);
console.log(`compacted ${p.fixes.toLocaleString('en')} more fixes into ${p.chunks} chunks in ${((performance.now() - t1) / 1000).toFixed(1)} s (horizon 0)`);
disk('after compaction');
watch.close();
store.close();
