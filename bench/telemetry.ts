/**
 * bench/telemetry (issue 5): 1,000 trackers and 10,000 zones of mixed types. A real server process
 * runs; a backlog of fixes is committed at once (through the writer's own store code, as the gateway
 * stores them) and its telemetry pool processes it; measured from that commit to the last result. Prints fixes/s processed, geofence probes/s, and the p99 of
 * tracker/get_last_gps_point and track/list measured over HTTP while processing runs (each called
 * 50 times a second, as a busy UI would).
 * Targets on this 2-core machine: >= 200,000 fixes/s; API p99 under 20 ms during the run.
 *   node --import tsx bench/telemetry.ts [--trackers 1000] [--zones 10000] [--points 300]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createUser } from '../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../src/config.ts';
import { pack } from '../src/gateway/packing.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { FixStore } from '../src/store/fixes.ts';
import { openDatabase } from '../src/store/db.ts';
import { openStore } from '../src/store/index.ts';
import type { DeviceRecord } from '../protocols/types.ts';
import { SERVER_NODE_ARGS } from '../src/server-process.ts';

const { values } = parseArgs({ options: { trackers: { type: 'string', default: '1000' }, zones: { type: 'string', default: '10000' }, points: { type: 'string', default: '300' } } });
const TRACKERS = Number(values.trackers);
const ZONES = Number(values.zones);
const POINTS = Number(values.points);
const root = fileURLToPath(new URL('..', import.meta.url));
const CITY = { lat: 54.687, lng: 25.28 };

let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

const dir = mkdtempSync(join(tmpdir(), 'fsm-bench-telemetry-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const config = loadConfig({ FSM_DATA_DIR: dir });
const store = openStore(config.dbFile);
const { id: userId } = await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: 'bench@example.com', password: 'bench-1' });
const sources: number[] = [];
const trackerIds: number[] = [];
store.transaction(() => {
  for (let i = 0; i < TRACKERS; i++) {
    const t = store.trackers.add({ userId, deviceId: `bench${i}`, protocol: 'teltonika', label: `Truck ${i}`, tariffId: 1, now: Date.now() });
    trackerIds.push(t);
    sources.push(store.trackers.getAny(t)!.source_id);
  }
});
const around = (km: number) => ({ lat: CITY.lat + (rnd() - 0.5) * (km / 111), lng: CITY.lng + (rnd() - 0.5) * (km / 64) });
store.zones.createMany(
  userId,
  Array.from({ length: ZONES }, (_, i) => {
    const c = around(30);
    const kind = i % 20 < 12 ? 'circle' : i % 20 < 17 ? 'polygon' : 'sausage';
    if (kind === 'circle') return { zone: { type: 'circle', label: `c${i}`, address: '', color: '27A9E3', radius: 50 + Math.round(rnd() * 500), center: c } as never };
    const pts = Array.from({ length: kind === 'polygon' ? 6 : 5 }, (_, k) => ({ lat: c.lat + Math.cos(k) * 0.003 * (1 + rnd()), lng: c.lng + Math.sin(k) * 0.005 * (1 + rnd()), node: false }));
    return { zone: { type: kind, label: `z${i}`, address: '', color: '27A9E3', radius: kind === 'sausage' ? 50 : null } as never, points: pts };
  }),
);
store.close();

const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
const proc = spawn(process.execPath, [...(process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF] : []), ...SERVER_NODE_ARGS], { cwd: root, env: { ...process.env, ...off, FSM_DATA_DIR: dir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((resolve) => {
  let out = '';
  proc.stdout!.on('data', (d) => {
    out += d;
    const m = /API listening on http:\/\/[^:]+:(\d+)/.exec(out);
    if (m) resolve(`http://127.0.0.1:${m[1]}`);
  });
});
const post = async (path: string, body: unknown) => (await fetch(`${url}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
const { hash } = await post('user/auth', { login: 'bench@example.com', password: 'bench-1' });
// A running server: the offline geocoder (track/list addresses) loads once, on its first use.
const warm = await post('geocoder/search_location', { hash, location: CITY, goal: 'ui' });
if (!warm.success) throw new Error(JSON.stringify(warm));

// The backlog: every tracker's drive committed at once (what a gateway flush after an outage, or
// fixes stored while the server was down, look like), through the writer's own store code.
// Each tracker drives from a random start at 30-60 km/h with a stop in the middle, one fix a second.
const watch = openDatabase(config.dbFile);
const fixes = new FixStore(watch);
const t0 = Date.now() - 6 * 3600_000;
const packed = sources.map((source) => {
  const start = around(25);
  const heading = rnd() * 2 * Math.PI;
  const kmh = 30 + rnd() * 30;
  const records: DeviceRecord[] = [];
  let lat = start.lat;
  let lng = start.lng;
  for (let k = 0; k < POINTS; k++) {
    const stopped = k > POINTS * 0.4 && k < POINTS * 0.6;
    const v = stopped ? 0 : kmh;
    lat += (Math.cos(heading) * v) / 3600 / 111;
    lng += (Math.sin(heading) * v) / 3600 / 64;
    records.push({ time: t0 + k * 1000, lat, lng, speed: v, course: 0, satellites: 9, valid: true, attributes: { ignition: true } });
  }
  return pack(source, records, Date.now());
});
const total = TRACKERS * POINTS;
fixes.write(packed, Date.now()); // one transaction: processing starts at its commit
const started = performance.now();
console.log(`committed ${total.toLocaleString('en')} fixes of ${TRACKERS} trackers to the running server; ${ZONES} zones`);
const pending = () => watch.prepare('SELECT COUNT(*) FROM telemetry_pending').pluck().get() as number;
const lat: Record<string, number[]> = { 'tracker/get_last_gps_point': [], 'track/list': [] };
const fmt = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');
// The API load is what a busy UI makes, paced (open loop): each call type RATE times a second; a
// call that is late (the previous one took longer than its slot) goes out at once.
const RATE = 50;
let finished = 0;
let slot = performance.now();
while (pending() > 0) {
  for (const path of Object.keys(lat)) {
    const tid = trackerIds[Math.floor(rnd() * trackerIds.length)];
    const q0 = performance.now();
    await post(path, { hash, tracker_id: tid, from: fmt(new Date(t0 - 3600_000)), to: fmt(new Date()) });
    lat[path].push(performance.now() - q0);
  }
  finished = performance.now();
  slot += 1000 / RATE;
  if (slot > finished) await new Promise((r) => setTimeout(r, slot - finished));
}
finished = performance.now();
const seconds = (finished - started) / 1000;
const p = (xs: number[], q: number) => (xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? NaN).toFixed(1);
const segments = watch.prepare('SELECT COUNT(*) FROM tracks').pluck().get() as number;
const visits = watch.prepare('SELECT COUNT(*) FROM visits').pluck().get() as number;
console.log(`processed ${total.toLocaleString('en')} fixes in ${seconds.toFixed(1)} s : ${Math.round(total / seconds).toLocaleString('en')} fixes/s; each fix is one geofence probe against ${ZONES} zones: ${Math.round(total / seconds).toLocaleString('en')} probes/s`);
console.log(`derived: ${segments} tracks/parkings, ${visits} zone visits`);
for (const [path, xs] of Object.entries(lat)) console.log(`${path.padEnd(28)} during the run: ${xs.length} calls (${RATE}/s), p50 ${p(xs, 0.5)} ms, p99 ${p(xs, 0.99)} ms (target p99 < 20 ms)`);
watch.close();
proc.kill('SIGTERM');
await new Promise((r) => proc.once('exit', r));
