/**
 * Report schedules (ours, issue 12; docs/schedules.md "Report schedules"): a report request that is
 * queued for the previous day, week (Monday..Sunday) or calendar month once its run time has passed
 * in the user's time zone, through the same queue as report/tracker/generate, and mailed once ready.
 *
 * Queueing is at most once per period: the period is written in the same transaction as the report
 * row. Only the latest due period is queued, so a server down for days sends one report after start.
 * Mailing is at least once: the schedule keeps the report's id until the mail went out, so a crash
 * between ready and mail mails it at the next round (a crash after the mail and before the write may
 * send it twice; losing it would be worse).
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { DomainError } from '../core/errors.ts';
import { addDays, addMonths, formatDateTime, isoWeekday, parseDateTime } from '../core/time.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Store } from '../store/index.ts';
import type { ReportPeriod, ReportScheduleRow } from '../store/report-schedules.ts';
import type { StoredParams } from './generate.ts';
import { word, type Word } from './i18n.ts';
import type { MeasurementSystem } from './model.ts';
import type { ReportRunner } from './queue.ts';
import type { ReportFiles } from './render/index.ts';
import { reportTrackersOf } from './request.ts';

const unzip = promisify(gunzip);

export interface ScheduleDeps {
  store: Store;
  mailer: Mailer;
  reportFiles: ReportFiles;
  reports?: ReportRunner;
  now: () => number;
}

/** Schedules per user (268 beyond). */
export const MAX_REPORT_SCHEDULES = 100;
/** Mail tries of one report before the schedule gives up on it (last_error says why). */
export const MAX_MAIL_ATTEMPTS = 5;
/** The longest each period can be, days (checked against the tariff's and plugin's max time span). */
export const PERIOD_DAYS: Record<ReportPeriod, number> = { previous_day: 1, previous_week: 7, previous_month: 31 };

/** The instant of `HH:mm` on a day in the zone. */
function runAt(day: string, runTime: string, tz: string): number {
  return parseDateTime(`${day} ${runTime}:00`, tz)!;
}

/** The days a schedule fires on (documented `parameters.schedule`); absent: every day, Mondays or the 1st by period. */
export type RunDays = { type: 'weekdays'; weekdays: number[] } | { type: 'month_days'; month_days: number[] };

/** The days a period fires on when the schedule names none. */
export function defaultRunDays(period: ReportPeriod): RunDays {
  if (period === 'previous_day') return { type: 'weekdays', weekdays: [1, 2, 3, 4, 5, 6, 7] };
  return period === 'previous_week' ? { type: 'weekdays', weekdays: [1] } : { type: 'month_days', month_days: [1] };
}

const firesOn = (days: RunDays, day: string) => (days.type === 'weekdays' ? days.weekdays.includes(isoWeekday(day)) : days.month_days.includes(Number(day.slice(8, 10))));

/**
 * The latest period whose run moment is not after `now`: the last day the schedule fires on whose
 * run time has passed, and the period before it (the day before, the 7 days before, or the
 * calendar month before that day's month). Answers its first and next-after-last day (yyyy-MM-dd,
 * in the zone) and its instants [from, to).
 */
export function duePeriod(period: ReportPeriod, runTime: string, now: number, tz: string, runDays: RunDays = defaultRunDays(period)): { start: string; end: string; from: number; to: number } {
  const today = formatDateTime(now, tz).slice(0, 10);
  let day = now >= runAt(today, runTime, tz) ? today : addDays(today, -1);
  // At most a year back: month days such as 31 are met within two months, weekdays within a week.
  for (let i = 0; i < 366 && !firesOn(runDays, day); i++) day = addDays(day, -1);
  let end = day;
  let start: string;
  if (period === 'previous_day') start = addDays(end, -1);
  else if (period === 'previous_week') start = addDays(end, -7);
  else {
    end = `${day.slice(0, 8)}01`;
    start = addMonths(end, -1);
  }
  return { start, end, from: parseDateTime(`${start} 00:00:00`, tz)!, to: parseDateTime(`${end} 00:00:00`, tz)! };
}

/** The stored run days of a schedule. */
export const runDaysOf = (r: Pick<ReportScheduleRow, 'run_days' | 'period'>): RunDays => (r.run_days ? (JSON.parse(r.run_days) as RunDays) : defaultRunDays(r.period));

const DOCUMENTED_PERIOD: Record<ReportPeriod, string> = { previous_day: '1d', previous_week: '1w', previous_month: '1m' };

/**
 * The schedule object the API answers: the documented members (enabled, parameters, fire_time,
 * last_result) and, beside them, the flat members of our older shape (docs/schedules.md).
 */
export function reportScheduleView(r: ReportScheduleRow, tz: string) {
  const targets = r.employees ? { employees: JSON.parse(r.employees) as number[] } : { trackers: JSON.parse(r.trackers!) as number[] };
  return {
    id: r.id,
    enabled: r.enabled === 1,
    parameters: {
      period: DOCUMENTED_PERIOD[r.period],
      schedule: runDaysOf(r),
      report: { ...targets, title: r.title, time_filter: r.time_filter ? JSON.parse(r.time_filter) : null, geocoder: r.geocoder, plugin: JSON.parse(r.plugin) },
      emails: JSON.parse(r.recipients) as string[],
      // Our xlsx is what the documentation's "xls" asks for (as report/tracker/download).
      email_format: r.format === 'xlsx' ? 'xls' : 'pdf',
      email_zip: false,
      sending_time: `${r.run_time}:00`,
    },
    fire_time: r.last_run === null ? null : formatDateTime(r.last_run, tz),
    last_result: r.last_report_id === null ? null : { success: r.last_error === null, id: r.last_report_id },
    title: r.title,
    plugin: JSON.parse(r.plugin),
    ...targets,
    time_filter: r.time_filter ? JSON.parse(r.time_filter) : null,
    geocoder: r.geocoder,
    period: r.period,
    run_time: r.run_time,
    format: r.format,
    recipients: JSON.parse(r.recipients) as string[],
    last_run: r.last_run === null ? null : formatDateTime(r.last_run, tz),
    last_error: r.last_error,
    created: formatDateTime(r.created, tz),
    updated: formatDateTime(r.updated, tz),
  };
}

/**
 * Queue the report of every enabled schedule whose latest due period was not queued yet. A request
 * no longer valid (a tracker gone, reports left the tariff) skips the period with last_error set.
 * Answers the reports queued.
 */
export async function queueDue(deps: ScheduleDeps, now: number): Promise<number[]> {
  const data = deps.store.data;
  const queued: number[] = [];
  for (const s of await data.reportSchedules.enabled()) {
    const user = await data.users.get(s.user_id);
    const owner = await data.users.get(s.owner_id);
    if (!user || !owner) continue;
    // Days and run time in the owner's time zone, as task schedules; language and units the user's.
    const tz = owner.time_zone;
    const p = duePeriod(s.period, s.run_time, now, tz, runDaysOf(s));
    if (s.last_period !== null && s.last_period >= p.start) continue;
    const plugin = JSON.parse(s.plugin) as StoredParams['plugin'];
    let reportId: number | null = null;
    let error: string | null = null;
    await data.transaction(async (tx) => {
      try {
        const trackers = await reportTrackersOf(tx, s.owner_id, { trackers: s.trackers ? JSON.parse(s.trackers) : undefined, employees: s.employees ? JSON.parse(s.employees) : undefined });
        const params: StoredParams = {
          geocoder: s.geocoder ?? user.default_geocoder,
          trackers,
          ...(s.employees ? { employees: JSON.parse(s.employees) as number[] } : {}),
          plugin,
          time_filter: s.time_filter ? JSON.parse(s.time_filter) : null,
          locale_info: { locale: user.locale, time_zone: tz, measurement_system: user.measurement_system as MeasurementSystem },
        };
        const title = s.title ?? word(user.locale, `title.${plugin.plugin_id}` as Word);
        reportId = await tx.reports.create({ ownerId: s.owner_id, userId: s.user_id, pluginId: plugin.plugin_id, title, created: now, from: p.from, to: p.to, params: JSON.stringify(params) });
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        error = `the report of ${p.start} was not queued: ${(e as Error).message}`;
      }
      await tx.reportSchedules.queued(s.id, p.start, now, reportId, error);
    });
    if (reportId !== null) queued.push(reportId);
  }
  if (queued.length) deps.reports?.poke();
  return queued;
}

/** Mail the reports of the schedules that became ready (or note those that failed). Answers the schedules mailed. */
export async function mailReady(deps: ScheduleDeps): Promise<number[]> {
  const data = deps.store.data;
  const mailed: number[] = [];
  for (const s of await data.reportSchedules.pending()) {
    const reportId = s.report_id!;
    const r = await data.reports.get(s.owner_id, reportId);
    if (!r) {
      await data.reportSchedules.done(s.id, reportId, `report ${reportId} was deleted before it was mailed`);
      continue;
    }
    if (r.state === 'failed') {
      await data.reportSchedules.done(s.id, reportId, `report ${reportId} failed: ${r.error}`);
      continue;
    }
    if (r.state !== 'ready') continue;
    const owner = await data.users.get(s.owner_id);
    const recipients = JSON.parse(s.recipients) as string[];
    // Documented: emails are optional; without any the report is only queued (report/tracker/list).
    if (!recipients.length) {
      await data.reportSchedules.done(s.id, reportId, null);
      continue;
    }
    try {
      // The JSON goes to the render thread as bytes: parsed there, not on the event loop.
      const file = await deps.reportFiles.render(s.format, await unzip((await data.reports.body(s.owner_id, reportId))!), { headless: false });
      const tz = owner?.time_zone ?? 'UTC';
      const from = formatDateTime(r.from_time, tz).slice(0, 10);
      const last = formatDateTime(r.to_time - 1, tz).slice(0, 10);
      const period = from === last ? from : `${from}..${last}`;
      await deps.mailer.send({
        to: recipients.join(', '),
        subject: `${r.title}: ${period}`,
        text: `${r.title}, ${period}: the report is attached.`,
        attachments: [{ filename: `${r.title} ${period}.${file.extension}`, content: file.body, contentType: file.contentType }],
      });
      await data.reportSchedules.done(s.id, reportId, null);
      mailed.push(s.id);
    } catch (e) {
      const error = `report ${reportId} could not be mailed: ${(e as Error).message}`;
      if (s.mail_attempts + 1 >= MAX_MAIL_ATTEMPTS) await data.reportSchedules.done(s.id, reportId, `${error} (gave up after ${MAX_MAIL_ATTEMPTS} tries)`);
      else await data.reportSchedules.mailFailed(s.id, error);
    }
  }
  return mailed;
}
