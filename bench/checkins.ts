/**
 * bench/checkins (issue 11): checkin/list over 100,000 check-ins (50 trackers, a year, half with a
 * comment, a tenth with a form, some with a file), over real HTTP, one request at a time; prints
 * p50/p99 per query shape, then the store's query alone per shape. Target: p99 under 20 ms.
 *   node --import tsx bench/checkins.ts [--checkins 100000] [--runs 200] [--data DIR]
 * --data DIR keeps the filled database in DIR and does not fill again when DIR holds one (delete it
 * after changing --checkins). The server runs on a copy in a fresh directory, in a process of its
 * own, timed from a client process of its own (bench/lib/list-bench.ts), as bench/forms does.
 * The machine is shared: the load average is printed before and after (docs/checkins.md).
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from '../src/store/sqlite.ts';
import { createUser } from '../src/accounts/accounts.ts';
import type { Config } from '../src/config.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { openStore } from '../src/store/index.ts';
import { parseConditions, parseSort } from '../src/core/conditions.ts';
import { parseDateTime } from '../src/core/time.ts';
import { filledCopy, loadAverage, percentile, runClientProcess, seeded, startServerProcess, timeCalls, type Shape } from './lib/list-bench.ts';

const { values } = parseArgs({ options: { checkins: { type: 'string', default: '100000' }, runs: { type: 'string', default: '200' }, data: { type: 'string' }, measure: { type: 'string' }, shapes: { type: 'string' } } });
const N = Number(values.checkins);
const RUNS = Number(values.runs);
const LOGIN = { login: 'bench@example.com', password: 'bench-1' };

if (values.measure) {
  await timeCalls({ apiUrl: values.measure, path: 'checkin/list', login: LOGIN, shapes: JSON.parse(values.shapes!) as Shape[], runs: RUNS, targetMs: 20, describe: (a) => `count ${a.count}` });
  process.exit(0);
}

const { dataDir, dbFile, cleanup } = await filledCopy('checkins', values.data, fill);

// The shapes name trackers and an employee by id: read them from the copy (migrated as the server would).
const ids = (() => {
  const store = openStore(dbFile);
  const userId = store.users.findByLogin(LOGIN.login)!.id;
  const db = new Database(dbFile, { readonly: true });
  const trackers = db.prepare('SELECT id FROM trackers WHERE user_id = ? ORDER BY id').pluck().all(userId) as number[];
  const employees = db.prepare('SELECT id FROM employees WHERE user_id = ? ORDER BY id').pluck().all(userId) as number[];
  db.close();
  store.close();
  return { userId, trackers, employees };
})();
const shapes: Shape[] = [
  ['page 1, no filter', { limit: 50 }],
  ['sort marker_time desc', { sort: ['marker_time=desc'], limit: 50 }],
  ['from/to one week', { from: '2030-06-01 00:00:00', to: '2030-06-08 00:00:00', limit: 50, sort: ['marker_time=asc'] }],
  ['trackers (3) + sort marker_time desc', { trackers: ids.trackers.slice(0, 3), sort: ['marker_time=desc'], limit: 50 }],
  ['condition employee eq', { conditions: [{ type: 'eq', field: 'employee', value: ids.employees[5] }], limit: 50 }],
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

const server = await startServerProcess(dataDir);
await runClientProcess(fileURLToPath(import.meta.url), ['--measure', server.apiUrl, '--runs', String(RUNS), '--shapes', JSON.stringify(shapes)]);
await server.stop();
storeAlone();
cleanup();

async function fill(config: Config): Promise<void> {
  const store = openStore(config.dbFile);
  const deps = { store, config, mailer: createMailer(config.mail), now: Date.now };
  const { id: userId } = await createUser(deps, { ...LOGIN, timeZone: 'Europe/Berlin' });
  const { rnd, word } = seeded();
  console.log(`filling ${N} check-ins ...`);
  const fillStart = performance.now();
  const trackers = Array.from({ length: 50 }, (_, i) => store.trackers.add({ userId, deviceId: `bench${i}`, protocol: 'teltonika', label: `Van ${i}`, tariffId: 1, now: Date.now() }));
  const employees = trackers.slice(0, 40).map((t, i) => {
    return store.employees.create(userId, { tracker_id: t, first_name: `${word()}${i}`, middle_name: '', last_name: word(), email: '', phone: '', driver_license_number: '', driver_license_cats: '', driver_license_valid_till: null, driver_license_issue_date: null, ssn: '', hardware_key: null, department_id: null, lat: null, lng: null, address: '', personnel_number: '', fuel_consumption: 0, fuel_cost: 0 });
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
  store.close();
  console.log(`filled in ${((performance.now() - fillStart) / 1000).toFixed(1)} s; load average ${loadAverage()}`);
}

/**
 * The store's query alone on the measured copy, in this process (no HTTP, no views): what a call
 * costs the database, steadier than the HTTP figures on a loaded machine.
 */
function storeAlone(): void {
  const store = openStore(dbFile);
  const width = Math.max(...shapes.map(([name]) => name.length));
  for (const [name, p] of shapes) {
    const q = {
      userId: ids.userId,
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
    console.log(`store query  ${name.padEnd(width)}  p50 ${percentile(times, 50).toFixed(2).padStart(6)} ms  p99 ${percentile(times, 99).toFixed(2).padStart(6)} ms`);
  }
  console.log(`load average ${loadAverage()}`);
  store.close();
}
