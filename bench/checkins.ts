/**
 * bench/checkins (issue 11): checkin/list over 100,000 check-ins (50 trackers, a year, half with a
 * comment, a tenth with a form, some with a file), over real HTTP, one request at a time; prints
 * p50/p99 per query shape. Target: p99 under 20 ms.
 *   node --import tsx bench/checkins.ts [--checkins 100000] [--runs 200]
 * The machine is shared: the load average is printed before and after (docs/checkins.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import Database from '../src/store/sqlite.ts';
import { createUser } from '../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../src/config.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { start } from '../src/main.ts';
import { openStore } from '../src/store/index.ts';
import { parseConditions, parseSort } from '../src/core/conditions.ts';
import { parseDateTime } from '../src/core/time.ts';

const { values } = parseArgs({ options: { checkins: { type: 'string', default: '100000' }, runs: { type: 'string', default: '200' } } });
const N = Number(values.checkins);
const RUNS = Number(values.runs);

const dataDir = mkdtempSync(join(tmpdir(), 'fsm-bench-checkins-'));
const ports = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
const config = loadConfig({ FSM_DATA_DIR: dataDir, FSM_HTTP_HOST: '127.0.0.1', FSM_HTTP_PORT: '0', FSM_LOG_LEVEL: 'silent', ...ports });
// Filled and analyzed before the server opens the database, as a server starts on an existing one.
const store = openStore(config.dbFile);
const deps = { store, config, mailer: createMailer(config.mail), now: Date.now };
const { id: userId } = await createUser(deps, { login: 'bench@example.com', password: 'bench-1', timeZone: 'Europe/Berlin' });

let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const words = ['north', 'south', 'depot', 'store', 'office', 'clinic', 'school', 'bakery', 'garage', 'hotel'];
const word = () => words[Math.floor(rnd() * words.length)];
const load = () => loadavg().map((x) => x.toFixed(2)).join(', ');

console.log(`filling ${N} check-ins ...`);
const fillStart = performance.now();
const trackers = Array.from({ length: 50 }, (_, i) => store.trackers.add({ userId, deviceId: `bench${i}`, protocol: 'teltonika', label: `Van ${i}`, tariffId: 1, now: Date.now() }));
const employees = trackers.slice(0, 40).map((t, i) => {
  return store.employees.create(userId, { tracker_id: t, first_name: `${word()}${i}`, middle_name: '', last_name: word(), email: '', phone: '', driver_license_number: '', driver_license_cats: '', driver_license_valid_till: null, hardware_key: null, department_id: null, lat: null, lng: null, address: '', personnel_number: '', fuel_consumption: 0, fuel_cost: 0 });
});
const base = Date.UTC(2030, 0, 1);
// Check-in forms (the forms code writes them in the server; here straight into the file).
const sql = new Database(config.dbFile);
const addForm = sql.prepare("INSERT INTO forms (user_id, template_version, label, fields, created) VALUES (?, 1, ?, '[]', ?)");
const forms = Array.from({ length: 20 }, (_, i) => Number(addForm.run(userId, `${word()} form ${i}`, base).lastInsertRowid));
sql.close();
store.transaction(() => {
  for (let i = 0; i < N; i++) {
    const k = i % trackers.length;
    store.checkins.create({
      user_id: userId,
      tracker_id: trackers[k],
      employee_id: k < employees.length ? employees[k] : null,
      marker_time: base + Math.floor(rnd() * 365 * 86_400_000),
      lat: 47 + rnd() * 8,
      lng: 6 + rnd() * 9,
      address: `${word()} street ${i % 500}`,
      precision: 10,
      comment: rnd() < 0.5 ? `${word()} ${word()} visit` : null,
      form_id: rnd() < 0.1 ? forms[i % forms.length] : null,
    });
  }
});
store.analyze();
console.log(`filled in ${((performance.now() - fillStart) / 1000).toFixed(1)} s; load average ${load()}`);
const shapes: Array<[string, Record<string, unknown>]> = [
  ['page 1, no filter', { limit: 50 }],
  ['sort marker_time desc', { sort: ['marker_time=desc'], limit: 50 }],
  ['from/to one week', { from: '2030-06-01 00:00:00', to: '2030-06-08 00:00:00', limit: 50, sort: ['marker_time=asc'] }],
  ['trackers (3) + sort marker_time desc', { trackers: trackers.slice(0, 3), sort: ['marker_time=desc'], limit: 50 }],
  ['condition employee eq', { conditions: [{ type: 'eq', field: 'employee', value: employees[5] }], limit: 50 }],
  ['condition comment contains', { conditions: [{ type: 'contains', field: 'comment', value: 'depot' }], limit: 50 }],
  ['condition location contains + sort location', { conditions: [{ type: 'contains', field: 'location', value: 'clinic' }], sort: ['location=asc'], limit: 50 }],
  ['location 2 km', { location: { lat: 51, lng: 10.5, radius: 2000 }, limit: 50 }],
  ['sort location asc', { sort: ['location=asc'], limit: 50 }],
  ['sort comment desc', { sort: ['comment=desc'], limit: 50 }],
  ['sort employee asc (full name)', { sort: ['employee=asc'], limit: 50 }],
  ['sort form asc (label)', { sort: ['form=asc'], limit: 50 }],
  ['deep page (offset 50000)', { offset: 50_000, limit: 50, sort: ['marker_time=asc'] }],
  ['nearby geo entities, one week', { from: '2030-06-01 00:00:00', to: '2030-06-08 00:00:00', limit: 50, show_nearby_geo_entities: true }],
];

// The store's query alone (no HTTP, no views): what the list costs the database, less exposed to a
// loaded machine's scheduling than the HTTP figures below.
const pct0 = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
for (const [name, p] of shapes) {
  const q = {
    userId,
    timeZone: 'Europe/Berlin',
    trackers: p.trackers as number[] | undefined,
    from: p.from ? parseDateTime(p.from as string, 'Europe/Berlin') : undefined,
    to: p.to ? parseDateTime(p.to as string, 'Europe/Berlin') : undefined,
    conditions: p.conditions ? parseConditions(p.conditions) : undefined,
    sort: parseSort(p.sort as string[] | undefined),
    location: p.location as { lat: number; lng: number; radius: number } | undefined,
    limit: p.limit as number | undefined,
    offset: p.offset as number | undefined,
  };
  const times: number[] = [];
  for (let i = 0; i < RUNS + 10; i++) {
    const t0 = performance.now();
    store.checkins.list(q);
    if (i >= 10) times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  console.log(`store query  ${name.padEnd(44)} p50 ${pct0(times, 50).toFixed(2).padStart(6)} ms  p99 ${pct0(times, 99).toFixed(2).padStart(6)} ms`);
}
store.close();
const running = await start(config, { logger: false, print: () => {} });
await running.telemetry.idle();
const login = await (await fetch(`${running.apiUrl}/v2/fsm/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'bench@example.com', password: 'bench-1' }) })).json();
const hash = login.hash as string;


const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const call = async (name: string, body: string) => {
  const res = await fetch(`${running.apiUrl}/v2/fsm/checkin/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const json = await res.json();
  if (!json.success) throw new Error(`${name}: ${JSON.stringify(json)}`);
  return json as { count: number };
};
for (let i = 0; i < 10; i++) for (const [name, params] of shapes) await call(name, JSON.stringify({ hash, ...params }));
let worst = 0;
for (const [name, params] of shapes) {
  const body = JSON.stringify({ hash, ...params });
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < RUNS + 10; i++) {
    const t0 = performance.now();
    const json = await call(name, body);
    const ms = performance.now() - t0;
    count = json.count;
    if (i >= 10) times.push(ms);
  }
  times.sort((a, b) => a - b);
  const p99 = pct(times, 99);
  worst = Math.max(worst, p99);
  console.log(`checkin/list ${name.padEnd(44)} p50 ${pct(times, 50).toFixed(2).padStart(6)} ms  p99 ${p99.toFixed(2).padStart(6)} ms  (count ${count})`);
}
// Baseline: the lightest call over the same HTTP path (what the machine's load adds to every call).
const base0: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const t0 = performance.now();
  await fetch(`${running.apiUrl}/v2/fsm/task/count`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hash }) }).then((r) => r.json());
  base0.push(performance.now() - t0);
}
base0.sort((a, b) => a - b);
console.log(`baseline task/count${' '.repeat(38)} p50 ${pct(base0, 50).toFixed(2).padStart(6)} ms  p99 ${pct(base0, 99).toFixed(2).padStart(6)} ms`);
console.log(`worst p99 ${worst.toFixed(2)} ms (target < 20 ms); load average ${load()}`);
await running.close();
rmSync(dataDir, { recursive: true, force: true });
