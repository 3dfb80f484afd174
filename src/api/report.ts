/**
 * Tracker report calls (spec: Tracker reports, base path /report/tracker; "Generated tracker report";
 * issue 12): generate queues a report (src/reports/queue.ts generates it in a worker), list, status,
 * retrieve and download read it, delete removes it. docs/reports.md states every decision: the
 * checks in order, the list item, the plugins and their members, failed reports.
 */
import { gunzip } from 'node:zlib';
import { promisify } from 'node:util';
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { formatDateTime, parseDateTime } from '../core/time.ts';
import { inlineReportFiles } from '../reports/render/index.ts';
import type { StoredParams } from '../reports/generate.ts';
import { word, type Word } from '../reports/i18n.ts';
import type { MeasurementSystem } from '../reports/model.ts';
import { PLUGINS, type ReportPlugin } from '../reports/plugins/index.ts';
import { reportTrackers } from '../reports/request.ts';
import { isTimeOfDay } from '../reports/time-filter.ts';
import type { ReportRow } from '../store/reports.ts';
import type { UserRow } from '../store/users.ts';
import { defineCall, FileAnswer, SerializedMembers, type Services } from './kernel.ts';
import { issuesToErrors } from './params.ts';
import { geocoderParam, id } from './schemas.ts';

const unzip = promisify(gunzip);
const DAY = 86_400_000;

export const timeOfDay = z.string().refine(isTimeOfDay, 'expected HH:mm or HH:mm:ss');

export const generateParams = z.object({
  from: z.string(),
  to: z.string(),
  title: z.string().max(255).nullable().optional(),
  geocoder: geocoderParam,
  trackers: z.array(id).min(1).max(10_000).optional(),
  employees: z.array(id).min(1).max(10_000).optional(),
  time_filter: z.object({ from: timeOfDay, to: timeOfDay, weekdays: z.array(z.number().int().min(1).max(7)).min(1).max(7) }).nullable().optional(),
  // Common members here; the plugin's own members are checked by its schema (passthrough).
  plugin: z.looseObject({ plugin_id: z.number().int(), show_seconds: z.boolean().default(false), hide_empty_tabs: z.boolean().default(false) }),
});

function parseTime(v: string, parameter: string, tz: string): number {
  const ms = parseDateTime(v, tz);
  if (ms === undefined) throw invalidParams([{ parameter, error: 'expected yyyy-MM-dd HH:mm:ss' }]);
  return ms;
}

/** The plugin object of a report request: 222 for an unknown plugin, 7 naming `plugin.<member>`; answers it as stored. */
export function checkPlugin(p: z.infer<typeof generateParams>['plugin'], prefix = 'plugin'): { plugin: ReportPlugin; object: StoredParams['plugin'] } {
  const plugin = PLUGINS.get(p.plugin_id);
  if (!plugin) throw new DomainError(222, {}, `Report plugin not found: ${p.plugin_id}`);
  const { plugin_id, show_seconds, hide_empty_tabs, ...own } = p;
  const parsed = plugin.params.safeParse(own);
  if (!parsed.success) throw invalidParams(issuesToErrors(parsed.error.issues, own).map((e) => ({ ...e, parameter: `${prefix}.${e.parameter}` })));
  return { plugin, object: { plugin_id, show_seconds, hide_empty_tabs, ...(parsed.data as Record<string, unknown>) } };
}

/** 211 with `max_time_span` when a period of `span` ms is longer than the tariff or the plugin allows. */
export async function checkSpan(services: Services, owner: UserRow, plugin: ReportPlugin, span: number): Promise<void> {
  const tariffDays = (await services.store.data.tariffs.get(owner.tariff_id))?.max_time_span_days ?? 31;
  const maxDays = Math.min(tariffDays, plugin.maxSpanDays ?? Infinity);
  if (span > maxDays * DAY) throw new DomainError(211, { max_time_span: `P${maxDays}D` });
}

const generate = defineCall({
  path: 'report/tracker/generate',
  summary: 'Queue a report of a plugin over trackers (or employees) and a period; answers its id. Generated off the event loop; poll report/tracker/status.',
  right: 'reports',
  params: generateParams,
  async handler({ services, owner, user, params: q }) {
    const { store, config, now } = services;
    const { plugin, object } = checkPlugin(q.plugin);
    const tz = user.time_zone;
    const from = parseTime(q.from, 'from', tz);
    const to = parseTime(q.to, 'to', tz);
    if (to <= from) throw invalidParams([{ parameter: 'to', error: 'must be after from' }]);
    if (!q.trackers === !q.employees) throw invalidParams([{ parameter: q.trackers ? 'employees' : 'trackers', error: 'give either trackers or employees' }]);
    await checkSpan(services, owner, plugin, to - from);
    // The report plugins' checks read the synchronous store (src/reports).
    const trackers = reportTrackers(store, owner.id, q);
    plugin.check?.(store, owner.id, object);
    const active = await store.data.reports.activeCount(user.id);
    if (active >= config.reports.perUser) throw new DomainError(15, {}, `Too many requests: ${active} reports are being generated for this user (at most ${config.reports.perUser} at once)`);
    const params: StoredParams = {
      geocoder: q.geocoder ?? user.default_geocoder,
      trackers,
      ...(q.employees ? { employees: q.employees } : {}),
      plugin: object,
      time_filter: q.time_filter ?? null,
      locale_info: { locale: user.locale, time_zone: tz, measurement_system: user.measurement_system as MeasurementSystem },
    };
    const title = q.title ?? word(user.locale, `title.${plugin.id}` as Word);
    const reportId = await store.data.reports.create({ ownerId: owner.id, userId: user.id, pluginId: plugin.id, title, created: now(), from, to, params: JSON.stringify(params) });
    services.reports?.poke();
    return { id: reportId };
  },
});

/** The spec's "Generated tracker report (list item)"; `state` and `error` are ours. */
function listItem(r: ReportRow, tz: string): Record<string, unknown> {
  const p = JSON.parse(r.params) as StoredParams;
  const item: Record<string, unknown> = {
    id: r.id,
    created: formatDateTime(r.created, tz),
    title: r.title,
    type: PLUGINS.get(r.plugin_id)?.type ?? String(r.plugin_id),
    percent: r.percent,
    from: formatDateTime(r.from_time, tz),
    to: formatDateTime(r.to_time, tz),
    time_filter: p.time_filter,
    parameters: { geocoder: p.geocoder, trackers: p.trackers, ...(p.employees ? { employees: p.employees } : {}), plugins: [p.plugin], locale_info: p.locale_info },
    state: r.state === 'running' ? 'in_progress' : r.state,
  };
  if (r.error) item.error = r.error;
  return item;
}

const list = defineCall({
  path: 'report/tracker/list',
  summary: 'Reports generated or in progress, oldest first.',
  right: 'reports',
  params: z.object({}),
  async handler({ services, owner, user }) {
    return { list: (await services.store.data.reports.list(owner.id)).map((r) => listItem(r, user.time_zone)) };
  },
});

async function ownReport(services: Services, owner: UserRow, reportId: number): Promise<ReportRow> {
  const r = await services.store.data.reports.get(owner.id, reportId);
  if (!r) throw new DomainError(204, {}, `Entity not found: report ${reportId}`);
  return r;
}

const reportId = z.object({ report_id: id });

const status = defineCall({
  path: 'report/tracker/status',
  summary: 'How far generation is (percent_ready 0..100; 100 also for a failed report, whose error it names).',
  right: 'reports',
  params: reportId,
  async handler({ services, owner, params }) {
    const r = await ownReport(services, owner, params.report_id);
    return { percent_ready: r.percent, state: r.state === 'running' ? 'in_progress' : r.state, ...(r.error ? { error: r.error } : {}) };
  },
});

/** The gzip'd JSON of a ready report: 229 while it is generated, 204 when it failed. */
async function readyBody(services: Services, owner: UserRow, reportId: number): Promise<Buffer> {
  const r = await ownReport(services, owner, reportId);
  if (r.state === 'failed') throw new DomainError(204, { error: r.error }, `Entity not found: report ${reportId} failed: ${r.error}`);
  const body = r.state === 'ready' ? await services.store.data.reports.body(owner.id, reportId) : undefined;
  if (!body) throw new DomainError(229, { percent_ready: r.percent }, `Requested data is not ready yet: report ${reportId} is ${r.percent}% generated`);
  return body;
}

const REPORT_MEMBER = Buffer.from('"report":');

const retrieve = defineCall({
  path: 'report/tracker/retrieve',
  summary: 'The report object (sheets of sections of cells); 229 while it is being generated.',
  right: 'reports',
  params: reportId,
  async handler({ services, owner, params }) {
    // Unzipped off the event loop; made into the documented shape in the render thread
    // (src/reports/documented.ts) and sent as bytes: the body is never parsed here.
    const json = await unzip(await readyBody(services, owner, params.report_id));
    const answer = await (services.reportFiles ?? inlineReportFiles).render('json', new Uint8Array(json), { headless: false });
    // A big report's xlsx starts rendering now: its download mostly comes next (render/early.ts).
    services.earlyXlsx?.retrieved(params.report_id, json);
    return new SerializedMembers(new Uint8Array(Buffer.concat([REPORT_MEMBER, answer.body])));
  },
});

const download = defineCall({
  path: 'report/tracker/download',
  summary: 'The report as a file: xlsx, xls or pdf (headless: no title page and table of contents); 229 while it is being generated.',
  right: 'reports',
  params: z.object({ report_id: id, format: z.enum(['xls', 'xlsx', 'pdf']), headless: z.boolean().default(false) }),
  async handler({ services, owner, params }) {
    // The JSON goes to the render thread as bytes: parsed there, not on the event loop.
    const body = await readyBody(services, owner, params.report_id);
    const early = params.format !== 'pdf' ? services.earlyXlsx : undefined; // xls is answered with the xlsx
    const file = early ? await early.xlsx(params.report_id, () => unzip(body)) : await (services.reportFiles ?? inlineReportFiles).render(params.format, await unzip(body), { headless: params.headless });
    return new FileAnswer(file.body, file.contentType, `${(await ownReport(services, owner, params.report_id)).title}.${file.extension}`);
  },
});

const remove = defineCall({
  path: 'report/tracker/delete',
  summary: 'Delete a report (also one being generated: its generation is dropped).',
  right: 'reports',
  notInDemo: true,
  params: reportId,
  async handler({ services, owner, params }) {
    if (!(await services.store.data.reports.delete(owner.id, params.report_id))) throw new DomainError(204, {}, `Entity not found: report ${params.report_id}`);
    services.earlyXlsx?.forget(params.report_id);
  },
});

export const reportCalls = [generate, list, status, retrieve, download, remove];
