/**
 * bench/retention (issue 15): a retention pass over a database of 10 million fixes while trackers
 * stream and an API client calls, against a real server process. Prints, from the same run:
 *   - API p50/p99 of a cheap call (tracker/list of a user with a few trackers) and acknowledged
 *     fixes/s, without a pass and during the server's background pass, and the ratios;
 *   - how long the pass took, what it deleted, and the database file before and after.
 *   node --import tsx bench/retention.ts [--fixes 10000000] [--devices 1000] [--seconds 20] [--trackers 50]
 * The old history (fixes, a checkpoint a day, two trips a day per device) is written straight into
 * SQLite with one INSERT ... SELECT per device, as processed history looks (telemetry tail set, nothing
 * pending); half of it is older than the devices' 30-day storage period.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createUser } from '../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../src/config.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { SERVER_NODE_ARGS } from '../src/server-process.ts';
import { runSimulation } from '../src/simulator/index.ts';
import { openDatabase } from '../src/store/db.ts';
import { openStore } from '../src/store/index.ts';

const { values } = parseArgs({
  options: {
    fixes: { type: 'string', default: '10000000' },
    devices: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '20' },
    trackers: { type: 'string', default: '50' },
  },
});
const FIXES = Number(values.fixes);
const DEVICES = Number(values.devices);
const SECONDS = Number(values.seconds);
const TRACKERS = Number(values.trackers);
const DAY = 86_400_000;
const PERIOD_DAYS = 60;
const root = fileURLToPath(new URL('..', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'fsm-bench-retention-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const config = loadConfig({ FSM_DATA_DIR: dir });
const streamIds = Array.from({ length: TRACKERS }, (_, i) => `87${String(i + 1).padStart(13, '0')}`);

// 1. The database: old history of DEVICES devices, and a small user whose trackers stream.
{
  const t0 = performance.now();
  const store = openStore(config.dbFile);
  const deps = { store, config, mailer: createMailer(config.mail), now: Date.now };
  const { id: fleet } = await createUser(deps, { login: 'fleet@example.com', password: 'bench-1' });
  const { id: small } = await createUser(deps, { login: 'bench@example.com', password: 'bench-1' });
  const tariff = store.tariffs.copy(1, 'thirty days');
  store.tariffs.update(tariff, { track_storage_days: 30 });
  const sources: number[] = [];
  store.transaction(() => {
    for (let d = 0; d < DEVICES; d++) {
      const id = store.trackers.add({ userId: fleet, deviceId: `86${String(d + 1).padStart(13, '0')}`, protocol: 'teltonika', label: `old ${d}`, tariffId: tariff, now: Date.now() });
      sources.push(store.trackers.getAny(id)!.source_id);
    }
    for (const d of streamIds) store.trackers.add({ userId: small, deviceId: d, protocol: 'teltonika', label: d, tariffId: tariff, now: Date.now() });
  });
  store.close();

  const db = openDatabase(config.dbFile);
  db.pragma('synchronous = OFF');
  const perDevice = Math.floor(FIXES / DEVICES);
  const start = Math.floor((Date.now() - PERIOD_DAYS * DAY) / 1000) * 1000;
  const step = Math.floor((PERIOD_DAYS * DAY - 3_600_000) / perDevice / 1000) * 1000;
  const attrs = JSON.stringify({ ignition: true, power: 12.6, battery: 4.1, io239: 1, io240: 1, odometer: 1234567, gsm: 4 });
  const fixes = db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @count - 1)
     INSERT INTO fixes (source_id, time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, attrs)
     SELECT @source, @start + i * @step, 54.6 + (i % 1000) * 1e-4, 25.2 + (i % 700) * 1e-4, 120, (i % 90), (i * 7) % 360, 9, 0.9, 5, 1, @start + i * @step, @attrs FROM n`,
  );
  const checkpoints = db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @days - 1)
     INSERT INTO telemetry_checkpoints (source_id, time, state) SELECT @source, @start + i * 86400000, '{}' FROM n`,
  );
  const tracks = db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < @days * 2 - 1)
     INSERT INTO tracks (source_id, type, start_time, end_time, start_lat, start_lng, end_lat, end_lng, points, length_km, max_speed, avg_speed)
     SELECT @source, CASE i % 2 WHEN 0 THEN 'trip' ELSE 'parking' END, @start + i * 43200000, @start + i * 43200000 + 3600000, 54.6, 25.2, 54.7, 25.3, 50, 12.5, 80, 40 FROM n`,
  );
  const tail = db.prepare("INSERT OR REPLACE INTO telemetry_tail (source_id, time, state) VALUES (?, ?, '{}')");
  let written = 0;
  for (let a = 0; a < sources.length; a += 50) {
    db.transaction(() => {
      for (const source of sources.slice(a, a + 50)) {
        fixes.run({ source, start, step, count: perDevice, attrs });
        checkpoints.run({ source, start, days: PERIOD_DAYS });
        tracks.run({ source, start, days: PERIOD_DAYS });
        tail.run(source, start + (perDevice - 1) * step);
        written += perDevice;
      }
    })();
    process.stdout.write(`\rseeding: ${written.toLocaleString('en')} fixes`);
  }
  db.exec('DELETE FROM telemetry_pending');
  db.exec('ANALYZE');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  console.log(`\rseeded ${written.toLocaleString('en')} fixes of ${DEVICES} devices over ${PERIOD_DAYS} days in ${((performance.now() - t0) / 1000).toFixed(0)} s; database ${(statSync(config.dbFile).size / 1048576).toFixed(0)} MiB`);
}

// 2. The server, its background retention pass due a minute after start.
const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
const proc: ChildProcess = spawn(process.execPath, [...SERVER_NODE_ARGS], {
  cwd: root,
  env: { ...process.env, ...off, FSM_DATA_DIR: dir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_GATEWAY_HOST: '127.0.0.1', FSM_TELTONIKA_PORT: '0', FSM_LOG_LEVEL: 'info', FSM_RETENTION_INTERVAL_MINUTES: '60' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const startedAt = Date.now();
process.once('exit', () => proc.kill('SIGKILL'));
let out = '';
let passLog: Record<string, unknown> | undefined;
const ports = await new Promise<{ api: number; teltonika: number }>((resolve, reject) => {
  proc.stdout!.on('data', (d) => {
    out += d;
    const api = /API listening on http:\/\/[\d.]+:(\d+)/.exec(out);
    const tcp = /teltonika tcp:(\d+)/.exec(out);
    if (api && tcp) resolve({ api: Number(api[1]), teltonika: Number(tcp[1]) });
    for (const line of String(d).split('\n')) if (line.includes('"msg":"retention pass"')) passLog = JSON.parse(line);
  });
  proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
});
const api = `http://127.0.0.1:${ports.api}/v2/fsm`;
const hash = (await (await fetch(`${api}/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'bench@example.com', password: 'bench-1' }) })).json()).hash as string;

// 3. Trackers flooding from an hour ago (new data, in order), counted by acknowledged records.
let acked = 0;
const abort = new AbortController();
const sim = runSimulation({ protocol: 'teltonika', trackers: TRACKERS, interval: 0, duration: 3600, host: '127.0.0.1', port: ports.teltonika, deviceIds: streamIds, recordsPerPacket: 20, signal: abort.signal, drainTimeout: 0, startTime: Math.floor(Date.now() / 1000) * 1000 - 3_600_000, onAck: (_d, r) => (acked += r.length) });

/** `seconds` of sequential tracker/list calls while the trackers stream: latencies and the acknowledged rate. */
async function measure(seconds: number, stop: () => boolean = () => false): Promise<{ p50: number; p99: number; calls: number; rate: number }> {
  const lat: number[] = [];
  const a0 = acked;
  const t0 = performance.now();
  const body = JSON.stringify({ hash });
  while (performance.now() - t0 < seconds * 1000 && !stop()) {
    const c0 = performance.now();
    const r = await (await fetch(`${api}/tracker/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
    if (!r.success) throw new Error(JSON.stringify(r));
    lat.push(performance.now() - c0);
  }
  const rate = (acked - a0) / ((performance.now() - t0) / 1000);
  const sorted = lat.sort((x, y) => x - y);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  return { p50: pct(50), p99: pct(99), calls: lat.length, rate };
}

const watch = openDatabase(config.dbFile);
const marks = watch.prepare('SELECT count(*) FROM retention_marks').pluck();
await new Promise((r) => setTimeout(r, 3000)); // warm-up
const seconds = Math.min(SECONDS, Math.max(5, (startedAt + 57_000 - Date.now()) / 1000));
const without = await measure(seconds);
console.log(`waiting for the background pass (due a minute after start) ...`);
while (!(marks.get() as number) && Date.now() - startedAt < 120_000) await new Promise((r) => setTimeout(r, 100));
const passStart = Date.now();
const during = await measure(SECONDS, () => passLog !== undefined);
while (!passLog && Date.now() - passStart < 1_800_000) await new Promise((r) => setTimeout(r, 200));
const passSeconds = (Date.now() - passStart) / 1000;
abort.abort();
await sim.catch(() => undefined);
const left = watch.prepare('SELECT count(*) FROM fixes').pluck().get() as number;
watch.close();
proc.kill('SIGTERM');
await new Promise((r) => proc.once('exit', r));

const f = (v: number) => v.toFixed(1).padStart(6);
const n = (v: number) => Math.round(v).toLocaleString('en');
const deleted = Number(passLog?.fixes ?? 0);
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${availableParallelism()} cores`);
console.log(`without a pass: tracker/list p50 ${f(without.p50)} ms p99 ${f(without.p99)} ms (${without.calls} calls); acknowledged ${n(without.rate)} fixes/s (${TRACKERS} trackers)`);
console.log(`during the pass: tracker/list p50 ${f(during.p50)} ms p99 ${f(during.p99)} ms (${during.calls} calls); acknowledged ${n(during.rate)} fixes/s`);
console.log(`ratios during/without: API p99 ${(during.p99 / without.p99).toFixed(2)}, acknowledged rate ${(during.rate / without.rate).toFixed(2)}`);
console.log(`the pass: ${n(deleted)} fixes and ${n(Number(passLog?.tracks ?? 0))} trips/parkings, ${n(Number(passLog?.checkpoints ?? 0))} checkpoints deleted in ${passSeconds.toFixed(1)} s (${n(deleted / passSeconds)} fixes/s), ${passLog?.freedPages ?? 0} pages given back; ${n(left)} fixes left`);
console.log(`database file after: ${(statSync(config.dbFile).size / 1048576).toFixed(0)} MiB`);
