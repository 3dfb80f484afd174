/**
 * Report schedules (ours, issue 12; docs/schedules.md "Report schedules"): a report request of
 * report/tracker/generate (checked the same way, with the same errors) plus a period, a run time,
 * a file format and recipients; src/reports/schedule-runner.ts queues and mails it. Right `reports`.
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { duePeriod, MAX_REPORT_SCHEDULES, PERIOD_DAYS, reportScheduleView, type RunDays } from '../reports/schedules.ts';
import { scheduleParameters } from '../tasks/schedules.ts';
import type { ReportPeriod } from '../store/report-schedules.ts';
import { issuesToErrors } from './params.ts';
import { reportTrackers } from '../reports/request.ts';
import type { ReportScheduleDraft } from '../store/report-schedules.ts';
import type { UserRow } from '../store/users.ts';
import { defineCall, type Services } from './kernel.ts';
import { checkPlugin, checkSpan, generateParams } from './report.ts';
import { id } from './schemas.ts';

const notFound = (scheduleId: number) => new DomainError(201, {}, `Not found in the database: report schedule ${scheduleId}`);

/** Our older flat shape (docs/schedules.md), still read when `parameters` is absent. */
const flatInput = generateParams.omit({ from: true, to: true }).extend({
  id: id.optional(),
  period: z.enum(['previous_day', 'previous_week', 'previous_month']),
  run_time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:mm'),
  format: z.enum(['xlsx', 'pdf']),
  recipients: z.array(z.email()).min(1).max(20),
  enabled: z.boolean().default(true),
});
type ScheduleInput = z.infer<typeof flatInput> & { run_days?: RunDays };

const PERIODS: Record<string, ReportPeriod> = { d: 'previous_day', '1d': 'previous_day', w: 'previous_week', '1w': 'previous_week', m: 'previous_month', '1m': 'previous_month' };

/** The documented schedule entry: {enabled, parameters: {report, period, schedule, emails, email_format, email_zip, sending_time}}. */
const documentedInput = z
  .object({
    id: id.optional(),
    enabled: z.boolean().default(true),
    parameters: z.object({
      // include_places_in_address / include_zones_in_address are read and not applied (docs/api.md).
      report: generateParams.omit({ from: true, to: true }).extend({ include_places_in_address: z.boolean().optional(), include_zones_in_address: z.boolean().optional() }),
      period: z.string().refine((p) => p in PERIODS, 'one of 1d, 1w, 1m (also d, w, m): longer periods are not scheduled here'),
      schedule: scheduleParameters.optional(),
      emails: z.array(z.email()).max(20).default([]),
      email_format: z.enum(['pdf', 'xls', 'xlsx']).default('pdf'),
      email_zip: z.boolean().default(false).refine((z) => !z, 'reports are mailed unzipped: false only'),
      sending_time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/, 'expected HH:mm:ss').default('00:00:00'),
    }),
  })
  .transform(({ id, enabled, parameters: p }): ScheduleInput => {
    const { include_places_in_address: _p, include_zones_in_address: _z, ...report } = p.report;
    return {
      ...report,
      id,
      enabled,
      period: PERIODS[p.period],
      run_time: p.sending_time.slice(0, 5),
      format: p.email_format === 'pdf' ? 'pdf' : 'xlsx',
      recipients: p.emails,
      run_days: p.schedule,
    };
  });

/** A schedule in either shape: the documented one when it has `parameters`. Code 7 names `schedule.<member>`. */
function scheduleOf(raw: Record<string, unknown>, withId: boolean): ScheduleInput & { id?: number } {
  const schema = 'parameters' in raw ? documentedInput : flatInput;
  const r = schema.safeParse(raw);
  if (!r.success) throw invalidParams(issuesToErrors(r.error.issues.map((i) => ({ ...i, path: ['schedule', ...i.path] })), { schedule: raw }));
  if (withId && r.data.id === undefined) throw invalidParams([{ parameter: 'schedule.id', error: 'required' }]);
  return r.data;
}
const scheduleParam = z.looseObject({});

/** Check a schedule as report/tracker/generate checks a request (7, 222, 211, 217, 236) and give the row to write. */
async function draft(services: Services, owner: UserRow, s: ScheduleInput): Promise<ReportScheduleDraft> {
  const { plugin, object } = checkPlugin(s.plugin, 'schedule.plugin');
  if (!s.trackers === !s.employees) throw invalidParams([{ parameter: `schedule.${s.trackers ? 'employees' : 'trackers'}`, error: 'give either trackers or employees' }]);
  await checkSpan(services, owner, plugin, PERIOD_DAYS[s.period] * 86_400_000);
  // The report plugins' checks read the synchronous store (src/reports).
  reportTrackers(services.store, owner.id, s);
  plugin.check?.(services.store, owner.id, object);
  return {
    title: s.title ?? null,
    plugin: JSON.stringify(object),
    trackers: s.trackers ? JSON.stringify(s.trackers) : null,
    employees: s.employees ? JSON.stringify(s.employees) : null,
    time_filter: s.time_filter ? JSON.stringify(s.time_filter) : null,
    geocoder: s.geocoder ?? null,
    period: s.period,
    run_time: s.run_time,
    format: s.format,
    recipients: JSON.stringify([...new Set(s.recipients.map((r) => r.trim()))]),
    enabled: s.enabled ? 1 : 0,
    run_days: s.run_days ? JSON.stringify(s.run_days) : null,
    // The period already due counts as done: the first report comes at the next run time.
    last_period: duePeriod(s.period, s.run_time, services.now(), owner.time_zone, s.run_days).start,
  };
}

const list = defineCall({
  path: 'report/schedule/list',
  summary: "The user's report schedules.",
  right: 'reports',
  params: z.object({}),
  async handler({ services, owner, user }) {
    return { list: (await services.store.data.reportSchedules.list(owner.id)).map((s) => reportScheduleView(s, user.time_zone)) };
  },
});

const read = defineCall({
  path: 'report/schedule/read',
  summary: 'One report schedule.',
  right: 'reports',
  params: z.object({ schedule_id: id }),
  async handler({ services, owner, user, params }) {
    const s = await services.store.data.reportSchedules.get(owner.id, params.schedule_id);
    if (!s) throw notFound(params.schedule_id);
    return { value: reportScheduleView(s, user.time_zone) };
  },
});

const create = defineCall({
  path: 'report/schedule/create',
  summary: 'Create a report schedule (the documented {enabled, parameters: {report, period, schedule, emails, email_format, sending_time}}, or our flat shape): the report of the previous day, week or month, queued at its sending time and mailed; answers its id.',
  right: 'reports',
  params: z.object({ schedule: scheduleParam }),
  async handler({ services, owner, user, params }) {
    if ((await services.store.data.reportSchedules.count(owner.id)) >= MAX_REPORT_SCHEDULES) throw new DomainError(268, {}, `Over quota: at most ${MAX_REPORT_SCHEDULES} report schedules`);
    const d = await draft(services, owner, scheduleOf(params.schedule, false));
    return { id: await services.store.data.reportSchedules.create(owner.id, user.id, d, services.now()) };
  },
});

const update = defineCall({
  path: 'report/schedule/update',
  summary: 'Replace a report schedule (identified by schedule.id); reports already queued stay.',
  right: 'reports',
  params: z.object({ schedule: scheduleParam }),
  async handler({ services, owner, params }) {
    const s = scheduleOf(params.schedule, true);
    const old = await services.store.data.reportSchedules.get(owner.id, s.id!);
    if (!old) throw notFound(s.id!);
    const d = await draft(services, owner, s);
    // Same period kind: keep its progress (a period sent is never sent again, one not yet sent is sent
    // at the new run time); another kind starts from its next run.
    if (old.period === d.period && old.last_period !== null) d.last_period = old.last_period;
    await services.store.data.reportSchedules.update(owner.id, s.id!, d, services.now());
  },
});

const remove = defineCall({
  path: 'report/schedule/delete',
  summary: 'Delete a report schedule; the reports it queued stay in report/tracker/list.',
  right: 'reports',
  params: z.object({ schedule_id: id }),
  async handler({ services, owner, params }) {
    if (!(await services.store.data.reportSchedules.get(owner.id, params.schedule_id))) throw notFound(params.schedule_id);
    await services.store.data.reportSchedules.delete(owner.id, params.schedule_id);
  },
});

export const reportScheduleCalls = [list, read, create, update, remove];
