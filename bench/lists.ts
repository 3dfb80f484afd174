/**
 * bench/lists (issue 4): task/list over 100,000 tasks and place/list over 50,000 places, over real
 * HTTP, one request at a time; prints p50/p99 per query shape. Target: p99 under 20 ms.
 *   node --import tsx bench/lists.ts [--tasks 100000] [--places 50000] [--runs 200]
 * The machine is shared: the load average is printed before and after (docs/lists-performance.md).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createUser } from '../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../src/config.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { start } from '../src/main.ts';
import { openStore } from '../src/store/index.ts';
import type { TaskDraft } from '../src/store/tasks.ts';
import { loadAverage as load, seeded } from './lib/list-bench.ts';

const { values } = parseArgs({ options: { tasks: { type: 'string', default: '100000' }, places: { type: 'string', default: '50000' }, runs: { type: 'string', default: '200' } } });
const N_TASKS = Number(values.tasks);
const N_PLACES = Number(values.places);
const RUNS = Number(values.runs);

const dataDir = mkdtempSync(join(tmpdir(), 'fsm-bench-lists-'));
const ports = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
const config = loadConfig({ FSM_DATA_DIR: dataDir, FSM_HTTP_HOST: '127.0.0.1', FSM_HTTP_PORT: '0', FSM_LOG_LEVEL: 'silent', ...ports });
// Filled and analyzed before the server opens the database, as a server starts on an existing one:
// its connection then plans with the statistics (SQLite reads them when it loads the schema).
const store = openStore(config.dbFile);
const deps = { store, config, mailer: createMailer(config.mail), now: Date.now };
const { id: userId } = await createUser(deps, { login: 'bench@example.com', password: 'bench-1', timeZone: 'Europe/Berlin' });

// A deterministic pseudo-random sequence, so runs compare.
const { rnd, word } = seeded();

console.log(`filling ${N_TASKS} tasks and ${N_PLACES} places ...`);
const fillStart = performance.now();
const trackers = Array.from({ length: 50 }, (_, i) => store.trackers.add({ userId, deviceId: `bench${i}`, protocol: 'teltonika', label: `Van ${i}`, tariffId: 1, now: Date.now() }));
const base = Date.UTC(2030, 0, 1);
store.transaction(() => {
  for (let i = 0; i < N_TASKS; i++) {
    const from = base + Math.floor(rnd() * 365 * 86_400_000);
    const draft: TaskDraft = {
      label: `${word()} ${word()} ${i}`,
      description: `${word()} delivery`,
      lat: 47 + rnd() * 8,
      lng: 6 + rnd() * 9,
      address: `${word()} street ${i % 500}`,
      radius: 100,
      from_time: from,
      to_time: from + 3_600_000,
      external_id: `E${i % 20_000}`,
      max_delay: 0,
      min_stay_duration: 0,
      form_template_id: null,
    };
    const tracker = rnd() < 0.7 ? trackers[i % trackers.length] : null;
    store.tasks.create(userId, { type: 'task', draft, trackerId: tracker, status: tracker ? 'assigned' : 'unassigned', origin: 'manual', now: base });
  }
  for (let i = 0; i < N_PLACES; i++) {
    store.places.insert(userId, { label: `${word()} ${word()} ${i}`, description: `${word()} place`, lat: 47 + rnd() * 8, lng: 6 + rnd() * 9, address: `${word()} road ${i % 500}`, radius: 100, external_id: null });
  }
});
store.analyze();
console.log(`filled in ${((performance.now() - fillStart) / 1000).toFixed(1)} s; load average ${load()}`);
store.close();
const running = await start(config, { logger: false, print: () => {} });
// The telemetry core reprocesses the trackers the new tasks were assigned to; measured after it is done.
await running.telemetry.idle();

const login = await (await fetch(`${running.apiUrl}/v2/fsm/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'bench@example.com', password: 'bench-1' }) })).json();
const hash = login.hash as string;

const shapes: Array<[string, string, Record<string, unknown>]> = [
  ['task/list', 'page 1, no filter, sort id', { limit: 50 }],
  ['task/list', 'statuses + sort from desc', { statuses: ['assigned'], sort: ['from=desc'], limit: 50 }],
  ['task/list', 'from/to window (one week)', { from: '2030-06-01 00:00:00', to: '2030-06-08 00:00:00', limit: 50, sort: ['from=asc'] }],
  ['task/list', 'conditions eq status + period from', { conditions: [{ type: 'eq', field: 'status', value: 'unassigned' }, { type: 'period', field: 'from', value: { from: '2030-03-01 00:00:00', to: '2030-03-31 00:00:00' } }], limit: 50 }],
  ['task/list', 'conditions contains label, sort label', { conditions: [{ type: 'contains', field: 'label', value: 'depot' }], sort: ['label=asc'], limit: 50 }],
  ['task/list', 'trackers + sort status,from', { trackers: trackers.slice(0, 3), sort: ['status=asc', 'from=desc'], limit: 50 }],
  ['task/list', 'external_id', { external_id: 'E123' }],
  ['task/list', 'location 2 km', { location: { lat: 51, lng: 10.5, radius: 2000 }, limit: 50 }],
  ['task/list', 'deep page (offset 50000)', { offset: 50_000, limit: 50, sort: ['from=asc'] }],
  ['task/list', 'filter text', { filter: 'clinic', limit: 50 }],
  ['place/list', 'page 1, order_by label', { order_by: 'label', limit: 50 }],
  ['place/list', 'filter text', { filter: 'bakery', limit: 50 }],
  ['place/list', 'conditions contains label', { conditions: [{ type: 'contains', field: 'label', value: 'hotel' }], limit: 50, offset: 100 }],
];

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const call = async (path: string, name: string, body: string) => {
  const res = await fetch(`${running.apiUrl}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const json = await res.json();
  if (!json.success) throw new Error(`${path} ${name}: ${JSON.stringify(json)}`);
  return json as { count: number };
};
// Steady state: every shape warms up first (compiled code, prepared statements, the heap the server
// grows after its start), so the first shape measured does not carry the server's start-up.
for (let i = 0; i < 20; i++) for (const [path, name, params] of shapes) await call(path, name, JSON.stringify({ hash, ...params }));
let worst = 0;
for (const [path, name, params] of shapes) {
  const body = JSON.stringify({ hash, ...params });
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < RUNS + 10; i++) {
    const t0 = performance.now();
    const json = await call(path, name, body);
    const ms = performance.now() - t0;
    count = json.count;
    if (i >= 10) times.push(ms); // the first ten warm up
  }
  times.sort((a, b) => a - b);
  const p99 = pct(times, 99);
  worst = Math.max(worst, p99);
  console.log(`${path.padEnd(11)} ${name.padEnd(40)} p50 ${pct(times, 50).toFixed(2).padStart(6)} ms  p99 ${p99.toFixed(2).padStart(6)} ms  (count ${count})`);
}
console.log(`worst p99 ${worst.toFixed(2)} ms (target < 20 ms); load average ${load()}`);
await running.close();
rmSync(dataDir, { recursive: true, force: true });
