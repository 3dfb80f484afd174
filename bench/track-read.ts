/**
 * bench/track-read (issue 5): track/read of one day of 1 s fixes (86,400 points) with point_limit
 * 1000, over real HTTP, one request at a time; prints p50/p99. Target: under 50 ms.
 *   node --import tsx bench/track-read.ts [--runs 100]
 * The day: drives and parkings with GPS jitter, stored as the gateway stores fixes and processed by
 * the server's telemetry core (trips, parkings, packed track points), as in real use.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createUser } from '../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../src/config.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { start } from '../src/main.ts';
import { openDatabase } from '../src/store/db.ts';
import { openStore } from '../src/store/index.ts';
import { formatDateTime } from '../src/core/time.ts';
import { pack } from '../src/gateway/packing.ts';
import { FixStore } from '../src/store/fixes.ts';
import type { DeviceRecord } from '../protocols/types.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '100' } } });
const RUNS = Number(values.runs);
const TZ = 'Europe/Berlin';

const dataDir = mkdtempSync(join(tmpdir(), 'fsm-bench-track-'));
const ports = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
const config = loadConfig({ FSM_DATA_DIR: dataDir, FSM_HTTP_HOST: '127.0.0.1', FSM_HTTP_PORT: '0', FSM_LOG_LEVEL: 'silent', ...ports });
const running = await start(config, { logger: false, print: () => {} });
const store = openStore(config.dbFile);
const deps = { store, config, mailer: createMailer(config.mail), now: Date.now };
const { id: userId } = await createUser(deps, { login: 'bench@example.com', password: 'bench-1', timeZone: TZ });
const trackerId = store.trackers.add({ userId, deviceId: 'bench-track', protocol: 'teltonika', label: 'Van', tariffId: 1, now: Date.now() });
const source = store.trackers.getAny(trackerId)!.source_id;

let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) - 0.5;
const DAY = 86_400_000;
const day0 = Math.floor((Date.now() - 2 * DAY) / DAY) * DAY;

console.log('filling 86,400 fixes and processing them ...');
// Through the writer's own store code, as the gateway stores fixes; the running server's telemetry
// core then derives the trips and parkings and packs the track points, as in real use.
const sql = openDatabase(config.dbFile);
const fixes = new FixStore(sql);
{
  let lat = 52.37;
  let lng = 4.89;
  let heading = 0;
  let records: DeviceRecord[] = [];
  for (let i = 0; i < 86_400; i++) {
    const t = day0 + i * 1000;
    // 40 minutes driving, 20 parked, all day.
    const driving = i % 3600 < 2400;
    if (driving) {
      heading += rnd() * 0.2;
      const v = 14 + rnd() * 4; // m/s
      lat += (Math.cos(heading) * v) / 111_320;
      lng += (Math.sin(heading) * v) / (111_320 * Math.cos((lat * Math.PI) / 180));
    }
    const jitter = driving ? 0 : rnd() * 0.00005;
    records.push({ time: t, lat: lat + jitter, lng: lng + jitter, altitude: 10, speed: driving ? 50 : 0, course: 0, satellites: 9, hdop: 1, valid: true, attributes: { ignition: true, power: 12.6, battery: 4.1, io239: 1, io240: 1 } });
    if (records.length === 3600) {
      fixes.write([pack(source, records, Date.now())], Date.now());
      records = [];
    }
  }
}
if (!(await running.telemetry.idle(120_000))) throw new Error('telemetry did not finish');

const login = await (await fetch(`${running.apiUrl}/v2/fsm/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'bench@example.com', password: 'bench-1' }) })).json();
const hash = login.hash as string;
const firstTrip = sql.prepare("SELECT id FROM tracks WHERE source_id = ? AND type = 'trip' ORDER BY start_time LIMIT 1").pluck().get(source) as number;
const dayParams = { tracker_id: trackerId, from: formatDateTime(day0, TZ), to: formatDateTime(day0 + DAY - 1000, TZ) };

const shapes: Array<[string, Record<string, unknown>]> = [
  ['day, point_limit 1000 (target < 50 ms)', { ...dayParams, point_limit: 1000 }],
  ['day, point_limit 3000', { ...dayParams, point_limit: 3000 }],
  ['day, point_limit 1000, filter', { ...dayParams, point_limit: 1000, filter: true }],
  ['one 40 min trip (track_id), point_limit 1000', { tracker_id: trackerId, track_id: firstTrip, point_limit: 1000 }],
];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
// Wall time is what a client sees; on a shared, loaded machine it mostly measures the neighbours.
// The process CPU time per call (server and client are this one process) is the cost of the call.
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on ${availableParallelism()} cores`);
for (const [name, params] of shapes) {
  const body = JSON.stringify({ hash, ...params });
  const wall: number[] = [];
  const cpu: number[] = [];
  let n = 0;
  for (let i = 0; i < RUNS + 5; i++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    const res = await fetch(`${running.apiUrl}/v2/fsm/track/read`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const json = await res.json();
    const ms = performance.now() - t0;
    const c = cpuMs() - c0;
    if (!json.success) throw new Error(`${name}: ${JSON.stringify(json)}`);
    n = json.list.length;
    if (i < 5) continue; // the first five warm up
    wall.push(ms);
    cpu.push(c);
  }
  const f = (v: number) => v.toFixed(2).padStart(7);
  console.log(`track/read ${name.padEnd(46)} wall p50 ${f(pct(wall, 50))} p99 ${f(pct(wall, 99))} ms | cpu p50 ${f(pct(cpu, 50))} p99 ${f(pct(cpu, 99))} ms  (${n} points)`);
}
sql.close();
store.close();
await running.close();
rmSync(dataDir, { recursive: true, force: true });
