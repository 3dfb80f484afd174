/**
 * bench/upload (issue 10, items 7-9): the worst and p99 wait of a cheap API call (user/get_info,
 * one at a time, from this process) while the server takes an upload, and the server's RSS (at start
 * and its peak, /proc VmHWM). Each scenario runs against a fresh server process with its own data
 * directory: the largest zone upload allowed (5000 polygons x 100 points; stored, then as a dry run),
 * the largest place CSV (5000 rows; then the same file again, updating every row), and two KMZ bombs (50 honest entries of 19 MiB; a size header
 * that lies, 2 MiB declared, 2 GiB inflated). The upload is sent by curl, the calls come from here.
 *   node --import tsx bench/upload.ts [--root /work/baseline] [--only zones-store,kmz-lying]
 * --root runs the server of another checkout of this project (e.g. the original code), same scenarios.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_PROTOCOL_PORTS } from '../src/config.ts';
import { deflatePadded, largeKml, waitsDuring, zip, type Waits } from '../test/imports/uploads.ts';
import { SERVER_NODE_ARGS } from '../src/server-process.ts';

const { values } = parseArgs({ options: { root: { type: 'string' }, only: { type: 'string' } } });
const root = values.root ?? fileURLToPath(new URL('..', import.meta.url));
const MiB = 1024 * 1024;

interface Server {
  child: ChildProcess;
  url: string;
  hash: string;
  dataDir: string;
}

async function startServer(): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fsm-bench-upload-'));
  const ports = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  const env = { ...process.env, ...ports, FSM_DATA_DIR: dataDir, FSM_HTTP_HOST: '127.0.0.1', FSM_HTTP_PORT: '0', FSM_LOG_LEVEL: 'error', FSM_TELEMETRY_THREADS: '1' };
  const child = spawn(process.execPath, [...(process.env.BENCH_TRACE_GC ? ['--trace-gc'] : []), ...SERVER_NODE_ARGS], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const { login, password, port } = await new Promise<{ login: string; password: string; port: string }>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        if (process.env.BENCH_TRACE_GC) process.stderr.write(d);
        out += d;
        // The password is in a file (0600) whose path is printed; older trees printed it.
        const master = /Login: (\S+)\s+Password: (?:in (\S+)|(\S+))/.exec(out);
        const api = /API listening on http:\/\/[^:]+:(\d+)/.exec(out);
        if (master && api) resolve({ login: master[1], password: master[2] ? /password: (\S+)/.exec(readFileSync(master[2], 'utf8'))![1] : master[3], port: api[1] });
      });
      child.once('exit', (c) => reject(new Error(`server exited with ${c}: ${out}`)));
    });
    const url = `http://127.0.0.1:${port}/v2/fsm/`;
    const auth = await (await post(url + 'user/auth', { login, password })).json();
    return { child, url, hash: auth.hash, dataDir };
  } catch (e) {
    child.kill();
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
}

async function stopServer(s: Server): Promise<void> {
  const exited = new Promise((resolve) => s.child.once('exit', resolve));
  s.child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
  if (s.child.exitCode === null) s.child.kill('SIGKILL');
  rmSync(s.dataDir, { recursive: true, force: true });
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * POST the file as multipart from a curl process: sending 8 MB and reading a 25 MB answer in this
 * process would add its own pauses to the waits measured here.
 */
async function curlUpload(url: string, fields: Record<string, string>, file: { name: string; type: string; data: Uint8Array }, dir: string): Promise<string> {
  // Answers the answer's file: reading 25 MB while calls are timed would pause this process's own loop.
  const path = join(dir, `upload-${file.name}`);
  const out = join(dir, 'answer.json');
  writeFileSync(path, file.data);
  const args = ['-s', '-o', out, ...Object.entries(fields).flatMap(([k, v]) => ['-F', `${k}=${v}`]), '-F', `file=@${path};type=${file.type};filename=${file.name}`, url];
  const code = await new Promise<number | null>((resolve) => spawn('curl', args, { stdio: 'ignore' }).once('exit', resolve));
  if (code !== 0) throw new Error(`curl exited with ${code}`);
  return out;
}

/** VmRSS and VmHWM (peak) of a process, MiB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

interface Scenario {
  name: string;
  path: string;
  fields: Record<string, string>;
  file: () => Promise<{ name: string; type: string; data: Uint8Array }>;
  /** Sends the file once before the measured upload (the second one then updates every row). */
  twice?: boolean;
}

const text = (name: string, type: string, s: string) => ({ name, type, data: new TextEncoder().encode(s) });
function placesCsv(rows: number): string {
  const lines = ['label;address;lat;lng;radius;external_id;description'];
  for (let i = 0; i < rows; i++) lines.push(`Place ${i};Street ${i};${(40 + (i % 100) * 0.01).toFixed(4)};${(10 + Math.floor(i / 100) * 0.01).toFixed(4)};100;ext-${i};imported`);
  return lines.join('\n');
}
const SMALL_KML = '<kml><Document><Placemark><name>Depot</name><Point><coordinates>13.4,52.5</coordinates></Point></Placemark></Document></kml>';

const scenarios: Scenario[] = [
  { name: 'zones-store', path: 'zone/upload', fields: { dry_run: 'false' }, file: async () => text('large.kml', 'application/vnd.google-earth.kml+xml', largeKml()) },
  { name: 'zones-dry-run', path: 'zone/upload', fields: { dry_run: 'true' }, file: async () => text('large.kml', 'application/vnd.google-earth.kml+xml', largeKml()) },
  { name: 'places-csv', path: 'place/upload', fields: { error_policy: 'ignore', duplicate_policy: 'skip' }, file: async () => text('places.csv', 'text/csv', placesCsv(5000)) },
  // Issue 23: the 5000 updates are made in the upload's last transaction.
  { name: 'places-update', path: 'place/upload', fields: { error_policy: 'ignore', duplicate_policy: 'update' }, file: async () => text('places.csv', 'text/csv', placesCsv(5000)), twice: true },
  {
    name: 'kmz-honest',
    path: 'zone/upload',
    fields: { dry_run: 'true' },
    async file() {
      const big = await deflatePadded('<kml><Document>', 0x20, 19 * MiB, '</Document></kml>');
      const entries = Array.from({ length: 50 }, (_, i) => ({ name: `layers/layer-${String(i).padStart(2, '0')}.kml`, deflated: big, declaredSize: 19 * MiB + 32 }));
      const doc = { name: 'doc.kml', deflated: await deflatePadded(SMALL_KML, 0x20, 0, ''), declaredSize: SMALL_KML.length };
      return { name: 'bomb.kmz', type: 'application/vnd.google-earth.kmz', data: zip([...entries, doc]) };
    },
  },
  {
    name: 'kmz-lying',
    path: 'zone/upload',
    fields: { dry_run: 'true' },
    async file() {
      const bomb = await deflatePadded('<kml>', 0x20, 2048 * MiB, '</kml>');
      return { name: 'bomb.kmz', type: 'application/vnd.google-earth.kmz', data: zip([{ name: 'doc.kml', deflated: bomb, declaredSize: 2 * MiB }]) };
    },
  },
];

console.log(`server tree: ${root}`);
console.log('scenario        upload    answer                         calls  worst wait   p99 wait   RSS start -> peak');
for (const sc of scenarios.filter((s) => !values.only || values.only.split(',').includes(s.name))) {
  const file = await sc.file();
  const server = await startServer();
  try {
    // Let the server settle before measuring: first requests, and the offline geocoder's data,
    // which its first use loads on the main thread (seconds; not the upload's doing).
    await post(server.url + 'zone/create', { hash: server.hash, zone: { type: 'circle', label: 'warm-up', radius: 100, center: { lat: 1, lng: 1 } } });
    for (let i = 0; i < 20; i++) await post(server.url + 'user/get_info', { hash: server.hash });
    if (sc.twice) await curlUpload(server.url + sc.path, { hash: server.hash, ...sc.fields }, file, server.dataDir);
    const before = memory(server.child.pid!);
    const t0 = performance.now();
    const { result, waits } = await waitsDuring(
      curlUpload(server.url + sc.path, { hash: server.hash, ...sc.fields }, file, server.dataDir).then((out) => ({ ms: performance.now() - t0, out })),
      () => post(server.url + 'user/get_info', { hash: server.hash }).then((r) => r.text()),
    );
    const answer = { ms: result.ms, body: readFileSync(result.out, 'utf8') };
    const after = memory(server.child.pid!);
    console.log(line(sc.name, file.data.length, answer, waits, before.rss, after.peak));
  } finally {
    await stopServer(server);
  }
}

function line(name: string, bytes: number, result: { ms: number; body: string }, w: Waits, rss: number, peak: number): string {
  let answer: string;
  try {
    const b = JSON.parse(result.body);
    answer = b.success ? `ok (${Array.isArray(b.list) ? `${b.list.length} in list` : b.updated ? `updated ${b.updated}` : `created ${b.created}`})` : `code ${b.status.code}`;
  } catch {
    answer = result.body.slice(0, 20);
  }
  answer += ` in ${(result.ms / 1000).toFixed(1)} s`;
  const mb = (n: number) => `${(n / MiB).toFixed(1)} MB`;
  return `${name.padEnd(15)} ${mb(bytes).padStart(8)}  ${answer.padEnd(30)} ${String(w.calls).padStart(5)}  ${w.worst.toFixed(0).padStart(7)} ms ${w.p99.toFixed(0).padStart(7)} ms   ${rss.toFixed(0)} -> ${peak.toFixed(0)} MiB`;
}
