/**
 * bench/forms (issue 11): task/form/list over 100,000 task forms (10 templates, 80% submitted, with
 * employees, trackers, 2,000 places and 200 zones for submit_places), over real HTTP, one request at
 * a time; prints p50/p99 per query shape, then the store's query alone per shape. Target: p99 under 20 ms.
 *   node --import tsx bench/forms.ts [--forms 100000] [--runs 200] [--data DIR]
 * --data DIR keeps the filled database in DIR and, when DIR already holds one, does not fill again
 * (a fill takes minutes on a loaded machine; delete DIR after changing --forms). Either way the
 * server runs on a copy in a fresh directory, so every run measures the same settled database.
 * The machine is shared: the load average is printed before and after (docs/forms.md).
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createUser } from '../src/accounts/accounts.ts';
import type { Config } from '../src/config.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { start } from '../src/main.ts';
import { parseDateTime } from '../src/core/time.ts';
import { openStore } from '../src/store/index.ts';
import type { FormListQuery, FormOrderKey } from '../src/store/forms.ts';
import { TaskJudge } from '../src/telemetry/task-judge.ts';
import type { TaskDraft } from '../src/store/tasks.ts';
import { filledCopy, loadAverage as load, percentile as pct, runClientProcess, seeded, startServerProcess, timeCalls, type Shape } from './lib/list-bench.ts';

const { values } = parseArgs({ options: { forms: { type: 'string', default: '100000' }, runs: { type: 'string', default: '200' }, measure: { type: 'string' }, data: { type: 'string' } } });
const N_FORMS = Number(values.forms);
const RUNS = Number(values.runs);

const templateId = 1;
const someTasks = Array.from({ length: 500 }, (_, i) => 1 + i * 97);
const t: Record<string, unknown> = { form_template_id: templateId, ascending: false, include_unsubmitted: false, limit: 50 };
const shapes: Shape[] = [
  ['template, default order (submitted desc)', t],
  ['template, unsubmitted too, submitted asc', { ...t, include_unsubmitted: true, ascending: true }],
  ['template, order task_label', { ...t, order_by: 'task_label' }],
  ['template, order employee_full_name', { ...t, order_by: 'employee_full_name' }],
  ['template, order task_from', { ...t, order_by: 'task_from' }],
  ['template, filter task_label', { ...t, filters: { task_label: 'depot' } }],
  ['template, submit_period one week', { ...t, submit_period: { from: '2026-06-01 00:00:00', to: '2026-06-08 00:00:00' } }],
  ['template, deep page (offset 5000)', { ...t, offset: 5000 }],
  ['task_ids (500)', { task_ids: someTasks, ascending: true, include_unsubmitted: true, limit: 50 }],
  ['task_ids (500), order task_label', { task_ids: someTasks, ascending: true, include_unsubmitted: true, order_by: 'task_label', limit: 50 }],
];

if (values.measure) {
  // The client in a process of its own too: the filling's garbage never pauses a measured request.
  const describe = (a: Record<string, unknown>) => {
    const list = a.list as Array<{ submit_places: { places: unknown[]; zones: unknown[] } | null }>;
    return `count ${a.count}, places+zones on the page ${list.reduce((n, it) => n + (it.submit_places ? it.submit_places.places.length + it.submit_places.zones.length : 0), 0)}`;
  };
  await timeCalls({ apiUrl: values.measure, path: 'task/form/list', login: { login: 'bench@example.com', password: 'bench-1' }, shapes, runs: RUNS, targetMs: 20, describe });
  process.exit(0);
}

const { dataDir, dbFile, cleanup } = await filledCopy('forms', values.data, fill);

async function fill(config: Config): Promise<void> {
  const store = openStore(config.dbFile);
  const deps = { store, config, mailer: createMailer(config.mail), now: Date.now };
  const { id: userId } = await createUser(deps, { login: 'bench@example.com', password: 'bench-1', timeZone: 'Europe/Berlin' });

  const { rnd, word } = seeded();

  console.log(`filling ${N_FORMS} task forms ...`);
  const fillStart = performance.now();
  const fields = JSON.stringify([
    { id: 'note', label: 'Note', description: '', required: true, type: 'text', min_length: 1, max_length: 200 },
    { id: 'stars', label: 'Stars', description: '', required: false, type: 'rating', max_stars: 5 },
  ]);
  const base = Date.UTC(2026, 0, 1);
  store.transaction(() => {
    const trackers = Array.from({ length: 50 }, (_, i) => store.trackers.add({ userId, deviceId: `bench${i}`, protocol: 'teltonika', label: `Van ${i}`, tariffId: 1, now: base }));
    for (const [i, t] of trackers.entries()) store.employees.create(userId, { tracker_id: t, first_name: `${word()}${i}`, middle_name: '', last_name: `Driver ${i}`, email: '', phone: '', driver_license_number: '', driver_license_cats: '', driver_license_valid_till: null, driver_license_issue_date: null, ssn: '', hardware_key: '', department_id: null, lat: null, lng: null, address: '', personnel_number: '', fuel_consumption: 0, fuel_cost: 0 });
    const templates = Array.from({ length: 10 }, (_, i) => store.formTemplates.create(userId, { label: `Template ${i}`, description: '', fields, submit_in_zone: false }, base));
    const templateRows = templates.map((id) => store.formTemplates.get(userId, id)!);
    for (let i = 0; i < 2000; i++) store.places.insert(userId, { label: `${word()} place ${i}`, description: '', lat: 47 + rnd() * 8, lng: 6 + rnd() * 9, address: '', radius: 2000, external_id: null });
    store.zones.createMany(userId, Array.from({ length: 200 }, (_, i) => ({ zone: { type: 'circle' as const, label: `${word()} zone ${i}`, address: '', color: '27A9E3', radius: 20_000, center: { lat: 47 + rnd() * 8, lng: 6 + rnd() * 9 } } })));
    for (let i = 0; i < N_FORMS; i++) {
      const from = base + Math.floor(rnd() * 365 * 86_400_000);
      const lat = 47 + rnd() * 8;
      const lng = 6 + rnd() * 9;
      const draft: TaskDraft = { label: `${word()} ${word()} ${i}`, description: '', lat, lng, address: `${word()} street ${i % 500}`, radius: 100, from_time: from, to_time: from + 3_600_000, external_id: null, max_delay: 0, min_stay_duration: 0, form_template_id: null };
      const tracker = trackers[i % trackers.length];
      const taskId = store.tasks.create(userId, { type: 'task', draft, trackerId: tracker, status: 'assigned', origin: 'manual', now: base });
      const formId = store.forms.create(userId, templateRows[i % templateRows.length], taskId, tracker, base);
      if (rnd() < 0.8) {
        const at = from + Math.floor(rnd() * 3_600_000);
        store.forms.submit(formId, { values: JSON.stringify({ note: { type: 'text', value: 'ok' } }), time: at, lat, lng, address: `${word()} avenue ${i % 300}`, trackerId: tracker, origin: 'employee' });
      }
    }
  });
  // Settled as a server in operation would be: the task judge has failed the tasks whose deadline
  // passed (most of the year's tasks are over), and the telemetry core has processed the trackers the
  // tasks were assigned to. Unsettled, the measured server did this while it was measured: its
  // workers reprocessed 50 trackers in the first seconds, and from 30 s on the minute judge failed
  // ~90,000 tasks, 200 a transaction on the event loop (docs/forms.md).
  await new TaskJudge(store.telemetry, store.trackers, Date.now).judgeDue();
  store.analyze();
  store.close();
  const running = await start(config, { logger: false, print: () => {} });
  await running.telemetry.idle(600_000);
  await running.close();
  console.log(`filled and settled in ${((performance.now() - fillStart) / 1000).toFixed(1)} s; load average ${load()}`);
}
const server = await startServerProcess(dataDir);
await runClientProcess(fileURLToPath(import.meta.url), ['--measure', server.apiUrl, '--runs', String(RUNS)]);
await server.stop();
storeAlone();
cleanup();

/**
 * The store's query alone on the measured copy, in this process (no HTTP, no views): what a call
 * costs the database, steadier than the HTTP figures on a loaded machine.
 */
function storeAlone(): void {
  const store = openStore(dbFile);
  const userId = store.users.findByLogin('bench@example.com')!.id;
  for (const [name, p] of shapes) {
    const period = p.submit_period as { from: string; to: string } | undefined;
    const q: FormListQuery = {
      userId,
      templateId: p.form_template_id as number | undefined,
      taskIds: p.task_ids as number[] | undefined,
      orderBy: (p.order_by as FormOrderKey | undefined) ?? 'submitted',
      ascending: p.ascending as boolean,
      includeUnsubmitted: p.include_unsubmitted as boolean,
      text: (p.filters as FormListQuery['text'] | undefined) ?? {},
      periods: period ? { submit_period: { from: parseDateTime(period.from, 'Europe/Berlin')!, to: parseDateTime(period.to, 'Europe/Berlin')! } } : {},
      offset: p.offset as number | undefined,
      limit: p.limit as number,
    };
    const times: number[] = [];
    for (let i = 0; i < RUNS + 10; i++) {
      const t0 = performance.now();
      store.forms.list(q);
      if (i >= 10) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(`store query  ${name.padEnd(42)} p50 ${pct(times, 50).toFixed(2).padStart(6)} ms  p99 ${pct(times, 99).toFixed(2).padStart(6)} ms`);
  }
  console.log(`load average ${load()}`);
  store.close();
}
