/**
 * bench/reports (issue 12, "Speed"): trips (4), geofence visits (8) and speed violation (27) reports
 * over a fleet's month, each generated end to end over real HTTP against a real server process
 * (generate -> status until ready -> retrieve -> xlsx download), target under 10 s each, while an
 * API client calls user/get_info, tracker/list and track/list at a steady rate (target p99 < 50 ms
 * during generation; the same calls without a report, measured in the same run, are the baseline).
 *   node --import tsx bench/reports.ts [--trackers 100] [--days 30] [--interval 30] [--rate 10] [--pdf 8] [--fresh]
 *
 * The data: `trackers` simulated vans (src/simulator's vehicle model: road legs, traffic lights,
 * parkings with the ignition off), each working a day shift (parked overnight and on Sundays), a
 * fix every `interval` seconds, with a 90 km/h speed limit set (speeding events); 60 zones over the
 * town they drive in. Each fix is built into a Teltonika Codec 8E packet by the simulator, decoded
 * by the protocol, packed and committed by the gateway's writer code (FixStore), and processed by
 * the real telemetry scheduler and its worker pool (tracks, parkings, zone visits, events); no
 * sockets on the way in, which for ~8.6 million fixes would only cost time. The prepared database
 * is cached in the temp dir under the parameters (`--fresh` rebuilds it).
 * Plugins come from the registry at run time: 27 is measured when it is registered.
 * The machine is shared: the load average is printed with the figures (docs/reports.md, "Speed").
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Agent, fetch as undiciFetch } from 'undici';
import { protocol as teltonika } from '../protocols/teltonika/index.ts';
import type { DeviceRecord } from '../protocols/types.ts';
import { createUser } from '../src/accounts/accounts.ts';
import { loadConfig } from '../src/config.ts';
import { DEFAULT_SETTINGS } from '../src/core/telemetry.ts';
import { formatDateTime } from '../src/core/time.ts';
import { pack, type PackedRows } from '../src/gateway/packing.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { PLUGINS } from '../src/reports/plugins/index.ts';
import { avlPacket } from '../src/simulator/devices/teltonika.ts';
import type { SimFix } from '../src/simulator/types.ts';
import { DEFAULT_CENTER, rng, Vehicle } from '../src/simulator/vehicle.ts';
import { openDatabase } from '../src/store/db.ts';
import { openFixStore } from '../src/store/fixes.ts';
import { openStore } from '../src/store/index.ts';
import { TelemetryScheduler } from '../src/telemetry/scheduler.ts';
import { startServerProcess } from './lib/list-bench.ts';

const { values } = parseArgs({
  options: {
    trackers: { type: 'string', default: '100' },
    days: { type: 'string', default: '30' },
    interval: { type: 'string', default: '30' },
    /** Rounds per second of the API client (each round: the three ordinary calls). */
    rate: { type: 'string', default: '10' },
    baseline: { type: 'string', default: '10' },
    fresh: { type: 'boolean', default: false },
    /** The plugin whose report is also downloaded as a PDF, once. */
    pdf: { type: 'string', default: '8' },
    /** The plugins reported, comma-separated (default the issue's three: 4, 8, 27). */
    plugins: { type: 'string', default: '4,8,27' },
  },
});
const TRACKERS = Number(values.trackers);
const DAYS = Number(values.days);
const INTERVAL = Number(values.interval);
const RATE = Number(values.rate);
const BASELINE_S = Number(values.baseline);
const PDF_PLUGIN = Number(values.pdf);
const PDF_LIMIT_S = 900;
const DAY = 86_400_000;
const TZ = 'Europe/Vilnius';
const LOGIN = 'bench@example.com';
const PASSWORD = 'bench-1';
const TARGET_S = 10;
const TARGET_P99 = 50;
const load = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${availableParallelism()} cores`;
const n = (v: number) => Math.round(v).toLocaleString('en');
const sec = (ms: number) => (ms / 1000).toFixed(2);

/** What preparation leaves beside the database (ready.json): the period and what was derived. */
interface Prepared {
  from: number;
  to: number;
  fixes: number;
  trips: number;
  parkings: number;
  visits: number;
  speeding: number;
  zones: number;
  writeSeconds: number;
  processSeconds: number;
  mib: number;
}

// ---------------------------------------------------------------------------------------------
// 1. The data, prepared once per parameters.

const dir = join(tmpdir(), `fsm-bench-reports-v1-${TRACKERS}t-${DAYS}d-${INTERVAL}s`);
const config = loadConfig({ FSM_DATA_DIR: dir });
async function prepare(): Promise<Prepared> {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const store = openStore(config.dbFile);
  const { id: userId } = await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: LOGIN, password: PASSWORD, timeZone: TZ });
  if (DAYS > 31) store.tariffs.update(1, { max_time_span_days: DAYS + 1 });
  const sources: number[] = [];
  store.transaction(() => {
    for (let i = 0; i < TRACKERS; i++) {
      const id = store.trackers.add({ userId, deviceId: `35${String(i + 1).padStart(13, '0')}`, protocol: 'teltonika', label: `Van ${String(i + 1).padStart(3, '0')}`, tariffId: 1, now: Date.now() });
      const source = store.trackers.getAny(id)!.source_id;
      sources.push(source);
      store.telemetry.setSettings(source, { ...DEFAULT_SETTINGS, speedLimitKmh: 90 });
    }
  });
  const zones = makeZones();
  store.zones.createMany(userId, zones);

  // The month ends at the last midnight (UTC) before preparation.
  const to = Math.floor(Date.now() / DAY) * DAY;
  const from = to - DAYS * DAY;
  const perDay = Math.floor(DAY / (INTERVAL * 1000));
  const fleet = sources.map((source, i) => ({ source, van: new Van(i, from) }));
  const writer = openFixStore(config.dbFile, 'FULL');
  const telemetry = new TelemetryScheduler(store, { dbFile: config.dbFile, threads: config.telemetryThreads, nice: 0 });
  telemetry.start();
  const t0 = performance.now();
  let fixes = 0;
  for (let d = 0; d < DAYS; d++) {
    const batches: PackedRows[] = [];
    for (const { source, van } of fleet) {
      const day = van.day(from + d * DAY, perDay);
      batches.push(...teltonikaRecords(day).map((records) => pack(source, records, Date.now())));
      fixes += day.length;
    }
    writer.fixes.write(batches, Date.now());
    telemetry.soon(0);
    process.stdout.write(`\rpreparing: day ${d + 1}/${DAYS} written, ${n(fixes)} fixes (${sec(performance.now() - t0)} s)   `);
    await new Promise((r) => setImmediate(r)); // let the scheduler dispatch between days
  }
  const written = performance.now();
  writer.close();
  while (!(await telemetry.idle(600_000))) process.stdout.write('\rpreparing: still processing ...   ');
  const processed = performance.now();
  await telemetry.close();
  process.stdout.write('\n');
  const db = openDatabase(config.dbFile);
  const count = (sql: string) => db.prepare(sql).pluck().get() as number;
  const result: Prepared = {
    from,
    to,
    fixes,
    trips: count("SELECT count(*) FROM tracks WHERE type = 'trip'"),
    parkings: count("SELECT count(*) FROM tracks WHERE type = 'parking'"),
    visits: count("SELECT count(*) FROM visits WHERE kind = 'zone'"),
    speeding: count("SELECT count(*) FROM events WHERE type = 'speeding_start'"),
    zones: zones.length,
    writeSeconds: (written - t0) / 1000,
    processSeconds: (processed - written) / 1000,
    mib: 0,
  };
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  store.close();
  result.mib = Math.round(statSync(config.dbFile).size / 1048576);
  writeFileSync(join(dir, 'ready.json'), JSON.stringify(result));
  return result;
}

/** 60 zones over the vans' town: 40 circles, 15 quadrilaterals, 5 road corridors (sausages). */
function makeZones() {
  const rand = rng(12);
  const at = (km: number) => {
    const r = km * Math.sqrt(rand());
    const a = rand() * 2 * Math.PI;
    return { lat: DEFAULT_CENTER.lat + (r * Math.cos(a)) / 111.2, lng: DEFAULT_CENTER.lng + (r * Math.sin(a)) / (111.2 * Math.cos((DEFAULT_CENTER.lat * Math.PI) / 180)) };
  };
  const base = { address: '', color: '27A9E3' };
  return Array.from({ length: 60 }, (_, i) => {
    const c = at(14);
    if (i < 40) return { zone: { ...base, type: 'circle' as const, label: `Site ${i + 1}`, radius: 150 + Math.round(rand() * 650), center: c } };
    if (i < 55) {
      const h = 0.002 + rand() * 0.006;
      const points = [[-h, -h * 1.7], [-h, h * 1.7], [h, h * 1.7], [h, -h * 1.7]].map(([dy, dx]) => ({ lat: c.lat + dy, lng: c.lng + dx, node: false }));
      return { zone: { ...base, type: 'polygon' as const, label: `Area ${i - 39}`, radius: null, center: null }, points };
    }
    const e = at(14);
    return { zone: { ...base, type: 'sausage' as const, label: `Road ${i - 54}`, radius: 60, center: null }, points: [{ ...c, node: false }, { ...e, node: false }] };
  });
}

/**
 * A van of the simulator working a day shift: from its shift's start it drives (trips and
 * parkings as the vehicle model makes them); after its end it finishes the trip it is on, then
 * stays parked (the model is frozen) until the next shift. Sundays off; some work Saturdays.
 */
class Van {
  private vehicle: Vehicle;
  private readonly startH: number;
  private readonly endH: number;
  private readonly saturdays: boolean;
  private parked = false;
  private t: number;

  constructor(i: number, start: number) {
    const r = rng(1000 + i);
    this.vehicle = new Vehicle({ seed: i + 1, radiusKm: 15 });
    this.startH = 4 + r() * 2; // UTC hours: 06:00..08:00 in Vilnius in winter
    this.endH = 14 + r() * 3;
    this.saturdays = r() < 0.3;
    this.t = start;
  }

  private working(t: number): boolean {
    const wd = new Date(t).getUTCDay();
    const h = (t % DAY) / 3_600_000;
    return wd !== 0 && (wd !== 6 || this.saturdays) && h >= this.startH && h < this.endH;
  }

  /** The fixes of one day from `start`, `count` of them. */
  day(start: number, count: number): SimFix[] {
    const out: SimFix[] = [];
    for (let k = 0; k < count; k++) {
      const t = start + k * INTERVAL * 1000;
      if (this.working(t) || !this.parked) this.vehicle.advance((t - this.t) / 1000);
      this.t = t;
      const f = this.vehicle.fix(t);
      this.parked = !f.ignition && f.speed === 0;
      out.push(f);
    }
    return out;
  }
}

/** The records the gateway gets for these fixes: Codec 8E packets of the simulator, decoded by the protocol. */
function teltonikaRecords(fixes: SimFix[]): DeviceRecord[][] {
  const out: DeviceRecord[][] = [];
  for (let i = 0; i < fixes.length; i += 255) {
    const r = teltonika.decode!(avlPacket(fixes.slice(i, i + 255)), { now: Date.now(), transport: 'tcp', config: {}, session: {}, deviceId: '350000000000001' });
    out.push(r.records ?? []);
  }
  return out;
}

const prepStart = performance.now();
const cached = !values.fresh && existsSync(join(dir, 'ready.json'));
const prepared: Prepared = cached ? (JSON.parse(readFileSync(join(dir, 'ready.json'), 'utf8')) as Prepared) : await prepare();
console.log(
  `${cached ? 'reused the prepared database' : 'prepared the database'} ${dir} (${prepared.mib} MiB): ${TRACKERS} trackers x ${DAYS} days, a fix every ${INTERVAL} s: ${n(prepared.fixes)} fixes -> ${n(prepared.trips)} trips, ${n(prepared.parkings)} parkings, ${n(prepared.visits)} visits of ${prepared.zones} zones, ${n(prepared.speeding)} speeding episodes` +
    (cached ? ` (checked in ${sec(performance.now() - prepStart)} s; --fresh rebuilds)` : `; preparation: written in ${prepared.writeSeconds.toFixed(0)} s, processing done ${prepared.processSeconds.toFixed(0)} s after the last commit`),
);

// ---------------------------------------------------------------------------------------------
// 2. The server and the API client.

{
  // Reports of earlier runs are the bench's own rows: gone, so every run starts alike.
  const db = openDatabase(config.dbFile);
  db.exec('DELETE FROM reports');
  db.close();
}
const prof = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
// No retention pass: it would be a second background job in the figures.
const server = await startServerProcess(dir, { env: { FSM_RETENTION_INTERVAL_MINUTES: '0' }, nodeArgs: prof });
const url = `${server.apiUrl}/v2/fsm`;
const send = (path: string, body: unknown, signal?: AbortSignal) => fetch(`${url}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
async function post(path: string, body: Record<string, unknown>) {
  const j = await (await send(path, { hash, ...body })).json();
  if (!j.success) throw new Error(`${path}: ${JSON.stringify(j)}`);
  return j;
}
let hash = '';
hash = (await post('user/auth', { login: LOGIN, password: PASSWORD })).hash;
const trackerIds = ((await post('tracker/list', {})).list as Array<{ id: number }>).map((t) => t.id);
const from = formatDateTime(prepared.from, TZ);
const to = formatDateTime(prepared.to - 1000, TZ);
// The offline geocoder loads on its first use: once, before anything is measured.
await post('geocoder/search_location', { location: DEFAULT_CENTER, goal: 'ui' });

/**
 * The API client in its own thread, so that the bench's own work (reading a report of megabytes)
 * never delays a call: a round of the three ordinary calls RATE times a second, paced open loop (a
 * late round goes out at once). Each call is stamped with its start (epoch ms) and duration.
 */
const CLIENT = `
const { parentPort, workerData: w } = require('node:worker_threads');
const calls = [['user/get_info', { hash: w.hash }], ['tracker/list', { hash: w.hash }], ['track/list', { hash: w.hash, tracker_id: w.trackerId, from: w.from, to: w.to }]];
const samples = [];
let stop = false;
parentPort.on('message', () => (stop = true));
(async () => {
  let slot = performance.now();
  while (!stop) {
    for (let i = 0; i < calls.length; i++) {
      const t0 = performance.now();
      const r = await (await fetch(w.url + '/' + calls[i][0], { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(calls[i][1]) })).json();
      if (!r.success) throw new Error(calls[i][0] + ': ' + JSON.stringify(r));
      samples.push(performance.timeOrigin + t0, performance.now() - t0, i);
    }
    slot += 1000 / w.rate;
    const now = performance.now();
    if (slot > now) await new Promise((r) => setTimeout(r, slot - now));
    else slot = now;
  }
  parentPort.postMessage(samples);
})();
`;
const day = (k: number) => formatDateTime(prepared.to - k * DAY, TZ);
const client = new Worker(CLIENT, { eval: true, workerData: { url, hash, trackerId: trackerIds[0], from: day(2), to: day(1), rate: RATE } });
const clientDone = new Promise<number[]>((resolve, reject) => {
  client.once('message', resolve);
  client.once('error', reject);
});
const epoch = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// 3. The reports.

const PARAMS: Record<number, Record<string, unknown>> = {
  4: { filter: true, show_coordinates: false },
  8: { min_minutes_in_zone: 0 },
  27: { max_speed: 90, min_duration_minutes: 1 },
};

interface Window {
  name: string;
  start: number;
  end: number;
  /** CPU seconds the server's threads spent in the window. */
  cpu?: Cpu;
}

/**
 * CPU seconds of the server process so far, from Linux's per-thread counters: the main thread (the
 * API's event loop), the worker threads (they lower themselves to nice 10: the report and render
 * workers, the idle telemetry pool) and the rest (libuv's pool, GC helpers). Load-independent where
 * the wall times are not: the machine is shared.
 */
interface Cpu {
  main: number;
  workers: number;
  other: number;
}
function serverCpu(): Cpu {
  const c: Cpu = { main: 0, workers: 0, other: 0 };
  const pid = server.pid;
  let tids: string[] = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return c; // not Linux
  }
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[0] is field 3 of proc(5)
    const seconds = (Number(f[11]) + Number(f[12])) / 100; // utime + stime, clock ticks
    if (Number(tid) === pid) c.main += seconds;
    else if (Number(f[16]) > 0) c.workers += seconds;
    else c.other += seconds;
  }
  return c;
}
const cpuSince = (a: Cpu): Cpu => {
  const b = serverCpu();
  return { main: Math.max(0, b.main - a.main), workers: Math.max(0, b.workers - a.workers), other: Math.max(0, b.other - a.other) };
};
const cpuText = (c?: Cpu) => (c ? `${c.main.toFixed(1)} / ${c.workers.toFixed(1)} / ${c.other.toFixed(1)}` : '');
const windows: Window[] = [];

/**
 * Warm-up, not counted: a freshly started server (or one idle for 30 s) starts its report and render
 * worker threads on the first report (loading and compiling their code, the offline geocoder's data).
 * Two small reports of each plugin at once (one tracker, a week, each in a report thread) and the
 * xlsx and pdf of one, so
 * the figures below are of warm workers; the cold first report is printed on its own.
 */
{
  const w0 = epoch();
  for (const p of [4, 8, 27].filter((id) => PLUGINS.has(id))) {
    // Two at once, so both report threads start and load what they keep (a big report's trackers
    // are shared among them: src/reports/parts.ts).
    const ids: number[] = [];
    // A week of one tracker: trips and stops in it, so the threads also load the offline geocoder's
    // data they keep (an hour at night had none, and the first measured report paid for it).
    for (const k of [0, 1]) ids.push((await post('report/tracker/generate', { from: day(8), to: day(1), trackers: [trackerIds[k]], plugin: { plugin_id: p, ...PARAMS[p] } })).id);
    for (const id of ids) while ((await post('report/tracker/status', { report_id: id })).percent_ready < 100) await sleep(50);
    if (p === 4) console.log(`cold start: the first (small) reports of a fresh server ready in ${sec(epoch() - w0)} s`);
    for (const format of ['xlsx', 'pdf']) await (await send('report/tracker/download', { hash, report_id: ids[0], format })).arrayBuffer();
    for (const id of ids) await post('report/tracker/delete', { report_id: id });
  }
  console.log(`warm-up (a small report of each plugin, its xlsx and pdf) in ${sec(epoch() - w0)} s`);
}
await sleep(3000);
const b0 = epoch();
const bc = serverCpu();
await sleep(BASELINE_S * 1000);
windows.push({ name: 'no report', start: b0, end: epoch(), cpu: cpuSince(bc) });

interface Result {
  plugin: number;
  type: string;
  registered: boolean;
  ready?: number;
  retrieved?: number;
  xlsx?: number;
  bytes?: number;
  xlsxBytes?: number;
  sheets?: number;
  rows?: number;
  pdf?: number;
  pdfBytes?: number;
  error?: string;
}
const results: Result[] = [];

/** Generate, poll status every 100 ms until ready, retrieve, download the xlsx; times from generate. */
async function runReport(pluginId: number): Promise<Result> {
  const plugin = PLUGINS.get(pluginId);
  if (!plugin) return { plugin: pluginId, type: '-', registered: false };
  const r: Result = { plugin: pluginId, type: plugin.type, registered: true };
  const t0 = epoch();
  const c0 = serverCpu();
  const { id } = await post('report/tracker/generate', { from, to, trackers: trackerIds, plugin: { plugin_id: pluginId, show_seconds: false, hide_empty_tabs: false, ...PARAMS[pluginId] } });
  for (;;) {
    const s = await post('report/tracker/status', { report_id: id });
    if (s.state === 'failed') {
      windows.push({ name: `${pluginId} generating`, start: t0, end: epoch(), cpu: cpuSince(c0) });
      return { ...r, error: s.error };
    }
    if (s.state === 'ready') break;
    await sleep(100);
  }
  r.ready = epoch() - t0;
  windows.push({ name: `${pluginId} generating`, start: t0, end: epoch(), cpu: cpuSince(c0) });
  const body = Buffer.from(await (await send('report/tracker/retrieve', { hash, report_id: id })).arrayBuffer());
  r.retrieved = epoch() - t0;
  r.bytes = body.length;
  const report = JSON.parse(body.toString('utf8'));
  if (!report.success) throw new Error(JSON.stringify(report).slice(0, 500));
  // The documented shape (src/reports/documented.ts): a table's rows are in its data groups.
  const sheets = report.report.sheets as Array<{ sections: Array<{ type: string; data?: Array<{ rows: unknown[] }> }> }>;
  r.sheets = sheets.length;
  r.rows = sheets.reduce((k, s) => k + s.sections.reduce((m, x) => m + (x.type === 'table' ? (x.data ?? []).reduce((g, d) => g + d.rows.length, 0) : 0), 0), 0);
  const x0 = epoch();
  const xc = serverCpu();
  const xlsx = await send('report/tracker/download', { hash, report_id: id, format: 'xlsx' });
  const xbytes = Buffer.from(await xlsx.arrayBuffer());
  if (!xlsx.headers.get('content-type')?.includes('spreadsheetml')) throw new Error(`xlsx: ${xbytes.toString('utf8', 0, 300)}`);
  r.xlsx = epoch() - x0;
  r.xlsxBytes = xbytes.length;
  windows.push({ name: `${pluginId} xlsx download`, start: x0, end: epoch(), cpu: cpuSince(xc) });
  return r;
}

const wanted = values.plugins.split(',').map(Number);
for (const p of wanted) {
  const r = await runReport(p);
  results.push(r);
  if (!r.registered) console.log(`plugin ${p}: not registered (src/reports/plugins/index.ts PLUGINS), skipped`);
  else if (r.error) console.log(`plugin ${p} (${r.type}): failed: ${r.error}`);
  else console.log(`plugin ${p} (${r.type}): ready ${sec(r.ready!)} s, retrieved ${sec(r.retrieved!)} s (${(r.bytes! / 1048576).toFixed(1)} MiB JSON, ${r.sheets} sheets, ${n(r.rows!)} rows), xlsx ${sec(r.xlsx!)} s (${(r.xlsxBytes! / 1048576).toFixed(1)} MiB); ${load()}`);
  await sleep(1000);
}
// The PDF once (--pdf, default the visits report): title page, contents and every sheet as tables.
const pdfOf = results.find((r) => r.plugin === PDF_PLUGIN && r.registered && !r.error);
if (pdfOf) {
  const list = (await post('report/tracker/list', {})).list as Array<{ id: number; type: string }>;
  const id = list.find((x) => x.type === pdfOf.type)!.id;
  const p0 = epoch();
  const pc = serverCpu();
  try {
    // No header or body deadline but the bench's own: a large PDF takes minutes.
    const res = await undiciFetch(`${url}/report/tracker/download`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hash, report_id: id, format: 'pdf' }), dispatcher: new Agent({ headersTimeout: 0, bodyTimeout: 0 }), signal: AbortSignal.timeout(PDF_LIMIT_S * 1000) });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (!res.headers.get('content-type')?.includes('pdf')) throw new Error(bytes.toString('utf8', 0, 300));
    pdfOf.pdf = epoch() - p0;
    pdfOf.pdfBytes = bytes.length;
    console.log(`plugin ${pdfOf.plugin} (${pdfOf.type}) pdf: ${sec(pdfOf.pdf)} s (${(bytes.length / 1048576).toFixed(1)} MiB); ${load()}`);
  } catch (e) {
    console.log(`plugin ${pdfOf.plugin} (${pdfOf.type}) pdf: no file after ${sec(epoch() - p0)} s: ${(e as Error).message}`);
  }
  windows.push({ name: `${pdfOf.plugin} pdf download`, start: p0, end: epoch(), cpu: cpuSince(pc) });
}

client.postMessage('stop');
const samples = await clientDone;
await client.terminate();
await server.stop();

// ---------------------------------------------------------------------------------------------
// 4. The figures.

const CALLS = ['user/get_info', 'tracker/list', 'track/list'];
const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : NaN);
/** Latencies of the calls that started inside the window (all three calls, or one). */
function inWindow(w: Window, call?: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < samples.length; i += 3) if (samples[i] >= w.start && samples[i] < w.end && (call === undefined || samples[i + 2] === call)) out.push(samples[i + 1]);
  return out;
}
const base = windows[0];
const b50 = pct(inWindow(base), 50);
const b99 = pct(inWindow(base), 99);
console.log(`\nAPI client: ${RATE} rounds/s of ${CALLS.join(', ')} (track/list: one tracker, one day); ${load()}`);
console.log(`${'window'.padEnd(22)} ${'calls'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)}  p99/baseline  per call p99 (${CALLS.join(' / ')})  server CPU s (main / workers / other)`);
for (const w of windows) {
  const all = inWindow(w);
  const per = CALLS.map((_, k) => pct(inWindow(w, k), 99).toFixed(1)).join(' / ');
  console.log(`${w.name.padEnd(22)} ${String(all.length).padStart(6)} ${pct(all, 50).toFixed(1).padStart(7)} ${pct(all, 99).toFixed(1).padStart(7)} ${Math.max(...all).toFixed(1).padStart(7)}  ${(pct(all, 99) / b99).toFixed(2).padStart(12)}  ${per.padEnd(32)}  ${cpuText(w.cpu)}`);
}
console.log(`baseline (no report): p50 ${b50.toFixed(1)} ms, p99 ${b99.toFixed(1)} ms`);

console.log(`\nsummary (${TRACKERS} trackers x ${DAYS} days, ${n(prepared.fixes)} fixes, a fix every ${INTERVAL} s; time = generate -> retrieved + xlsx download; ${load()})`);
console.log(`${'plugin'.padEnd(22)} ${'trackers x days'.padEnd(16)} ${'fixes'.padStart(11)} ${'ready s'.padStart(8)} ${'+retr s'.padStart(8)} ${'+xlsx s'.padStart(8)} ${'time s'.padStart(7)} ${'target'.padStart(7)} ${'met'.padEnd(4)} ${'API p99 ms'.padStart(10)} ${'target'.padStart(7)} ${'met'.padEnd(4)} server CPU s generating (main / workers)`);
for (const r of results) {
  const name = `${r.plugin} ${r.type}`.padEnd(22);
  const size = `${TRACKERS} x ${DAYS}`.padEnd(16);
  if (!r.registered || r.error) {
    console.log(`${name} ${size} ${n(prepared.fixes).padStart(11)} ${(r.registered ? 'failed' : 'not registered').padStart(7)}`);
    continue;
  }
  const total = (r.retrieved! + r.xlsx!) / 1000;
  const gen = windows.find((w) => w.name === `${r.plugin} generating`)!;
  const p99 = pct(inWindow(gen), 99);
  console.log(`${name} ${size} ${n(prepared.fixes).padStart(11)} ${sec(r.ready!).padStart(8)} ${sec(r.retrieved! - r.ready!).padStart(8)} ${sec(r.xlsx!).padStart(8)} ${total.toFixed(2).padStart(7)} ${`< ${TARGET_S}`.padStart(7)} ${(total < TARGET_S ? 'yes' : 'NO').padEnd(4)} ${p99.toFixed(1).padStart(10)} ${`< ${TARGET_P99}`.padStart(7)} ${(p99 < TARGET_P99 ? 'yes' : 'NO').padEnd(4)} ${gen.cpu ? `${gen.cpu.main.toFixed(1)} / ${gen.cpu.workers.toFixed(1)}` : ''}`);
}
