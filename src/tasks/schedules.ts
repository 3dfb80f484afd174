/**
 * Task schedules (ours, issue 12; docs/schedules.md): a task template plus the days it recurs on
 * (weekdays, or days of the month) and its wall-clock window in the owner's time zone. Tasks with
 * origin `scheduled` are created `days_ahead` days ahead, each day once (task_schedule_days), so
 * editing or deleting a schedule never touches tasks already created.
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { addDays, formatDateTime, isoWeekday, parseDateTime } from '../core/time.ts';
import type { TaskScheduleDraft, TaskScheduleRow } from '../store/task-schedules.ts';
import type { TaskDraft } from '../store/tasks.ts';
import type { UserRow } from '../store/users.ts';
import { fillAddress, locationInput, MAX_EXTERNAL_ID, MAX_MINUTES, MAX_TAGS, taskTracker, type TaskDeps } from './input.ts';

const id = z.number().int().min(1).max(2_147_483_647);
export const timeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/, 'expected HH:mm:ss');
/** How far ahead tasks are created, days; and how many schedules a user may have. */
export const MAX_DAYS_AHEAD = 31;
export const MAX_SCHEDULES = 1000;
/** Longest window of a scheduled task, minutes (a week). */
export const MAX_DURATION = 7 * 24 * 60;

export const seconds = (time: string) => Number(time.slice(0, 2)) * 3600 + Number(time.slice(3, 5)) * 60 + Number(time.slice(6, 8));
export const timeOf = (s: number) => [Math.floor(s / 3600) % 24, Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':');
/** The window's length in minutes of a schedule made with to_time (a to_time not after from_time ends the next day). */
export function windowMinutes(fromTime: string, toTime: string): number {
  const d = seconds(toTime) - seconds(fromTime);
  return Math.round((d > 0 ? d : d + 86_400) / 60);
}

const days = <T extends number>(max: T) =>
  z
    .array(z.number().int().min(1).max(max))
    .min(1)
    .refine((a) => new Set(a).size === a.length, 'each day once');

export const scheduleParameters = z.discriminatedUnion('type', [
  z.object({ type: z.literal('weekdays'), weekdays: days(7) }),
  z.object({ type: z.literal('month_days'), month_days: days(31) }),
]);

/** The schedule object of task/schedule/create (task/schedule/update adds id). */
export const scheduleInput = z.object({
  label: z.string().trim().min(1).max(200),
  description: z.string().max(1024).default(''),
  location: locationInput,
  tracker_id: id.nullable().default(null),
  max_delay: z.number().int().min(0).max(MAX_MINUTES).default(0),
  min_stay_duration: z.number().int().min(0).max(MAX_MINUTES).default(0),
  external_id: z.string().max(MAX_EXTERNAL_ID).nullable().default(null),
  tags: z.array(id).max(MAX_TAGS).default([]),
  fields: z.record(z.string(), z.object({ type: z.string(), value: z.unknown() })).optional(),
  form_template_id: id.nullable().default(null),
  parameters: scheduleParameters,
  from_time: timeOfDay,
  /** Minutes from from_time to the end of each task's window (documented). */
  duration: z.number().int().min(1).max(MAX_DURATION).optional(),
  /** Ours before issue 23, still read when duration is absent: the window's wall-clock end. */
  to_time: timeOfDay.optional(),
  /** Documented; kept and answered, not applied: the task judge has no minimum arrival time (docs/api.md). */
  min_arrival_duration: z.number().int().min(0).max(MAX_MINUTES).default(0),
  days_ahead: z.number().int().min(1).max(MAX_DAYS_AHEAD).default(7),
  enabled: z.boolean().default(true),
});
export type ScheduleInput = z.infer<typeof scheduleInput>;

/**
 * Check a schedule object against the owner's entities (as task/create does) and give the row to
 * write; `p` names the object in code 7 (a route schedule's checkpoints are `checkpoints.<i>`).
 */
export async function scheduleDraft(deps: TaskDeps, owner: UserRow, s: ScheduleInput, p = 'schedule'): Promise<TaskScheduleDraft> {
  if (s.tracker_id !== null) taskTracker(deps, owner, s.tracker_id, 201);
  // Documented: 204 for an unknown form template (201 stays the code of an unknown tracker).
  if (s.form_template_id !== null && !deps.store.formTemplates.get(owner.id, s.form_template_id)) throw new DomainError(204, {}, `Entity not found: form template ${s.form_template_id}`);
  const errors: Array<{ parameter: string; error: string }> = [];
  const missing = deps.store.tags.missing(owner.id, s.tags);
  if (missing.length) errors.push({ parameter: `${p}.tags`, error: `no such tags: ${missing.join(', ')}` });
  errors.push(...deps.store.fields.validate(owner.id, 'task', (s.fields ?? {}) as never, { requireAll: true, parameter: `${p}.fields` }));
  if (s.duration === undefined && s.to_time === undefined) errors.push({ parameter: `${p}.duration`, error: 'required' });
  else if (s.duration === undefined && s.from_time === s.to_time) errors.push({ parameter: `${p}.to_time`, error: 'must differ from from_time' });
  else if (s.duration !== undefined && s.to_time !== undefined && s.to_time !== timeOf(seconds(s.from_time) + s.duration * 60)) {
    errors.push({ parameter: `${p}.to_time`, error: `disagrees with duration (${s.duration} minutes from ${s.from_time}); send only duration` });
  }
  if (errors.length) throw invalidParams(errors);
  const place = { lat: s.location.lat, lng: s.location.lng, address: s.location.address.trim() } as TaskDraft;
  await fillAddress(deps, place);
  const params = s.parameters;
  return {
    label: s.label,
    description: s.description,
    lat: s.location.lat,
    lng: s.location.lng,
    address: place.address,
    radius: s.location.radius,
    tracker_id: s.tracker_id,
    max_delay: s.max_delay,
    min_stay_duration: s.min_stay_duration,
    external_id: s.external_id === '' ? null : s.external_id,
    tags: JSON.stringify(s.tags),
    fields: s.fields ? JSON.stringify(s.fields) : null,
    form_template_id: s.form_template_id,
    kind: params.type,
    days: JSON.stringify(params.type === 'weekdays' ? [...params.weekdays].sort((a, b) => a - b) : [...params.month_days].sort((a, b) => a - b)),
    from_time: s.from_time,
    // With duration the window is that many minutes long; to_time is then its wall-clock end, kept for reading only.
    to_time: s.duration !== undefined ? timeOf(seconds(s.from_time) + s.duration * 60) : s.to_time!,
    duration: s.duration ?? null,
    min_arrival_duration: s.min_arrival_duration,
    days_ahead: s.days_ahead,
    enabled: s.enabled ? 1 : 0,
  };
}

/** The documented `parameters` of a schedule: the days it recurs on. */
export function parametersView(r: Pick<TaskScheduleRow, 'kind' | 'days'>) {
  const d = JSON.parse(r.days) as number[];
  return r.kind === 'weekdays' ? { type: 'weekdays' as const, weekdays: d } : { type: 'month_days' as const, month_days: d };
}

/** The schedule object the API answers. */
export function scheduleView(r: TaskScheduleRow, tz: string) {
  return {
    id: r.id,
    user_id: r.user_id,
    type: r.type,
    label: r.label,
    description: r.description,
    location: { lat: r.lat, lng: r.lng, address: r.address, radius: r.radius },
    tracker_id: r.tracker_id,
    max_delay: r.max_delay,
    min_stay_duration: r.min_stay_duration,
    external_id: r.external_id,
    tags: r.tags ? (JSON.parse(r.tags) as number[]) : [],
    fields: r.fields ? JSON.parse(r.fields) : {},
    form_template_id: r.form_template_id,
    parameters: parametersView(r),
    from_time: r.from_time,
    duration: r.duration ?? windowMinutes(r.from_time, r.to_time),
    min_arrival_duration: r.min_arrival_duration,
    days_ahead: r.days_ahead,
    enabled: r.enabled === 1,
    last_error: r.last_error,
    created: formatDateTime(r.created, tz),
    updated: formatDateTime(r.updated, tz),
  };
}

/** Whether the schedule recurs on the calendar day. */
export function recursOn(kind: TaskScheduleRow['kind'], days: number[], day: string): boolean {
  return days.includes(kind === 'month_days' ? Number(day.slice(8, 10)) : isoWeekday(day));
}

/**
 * The occurrences a schedule should have by `now`: each recurring day from today (in `tz`) through
 * today + days_ahead whose window has not ended yet, with the window as instants (a to_time not after
 * from_time ends the next day).
 */
export function occurrences(r: Pick<TaskScheduleRow, 'kind' | 'days' | 'from_time' | 'to_time' | 'days_ahead'> & { duration?: number | null }, now: number, tz: string): Array<{ day: string; from: number; to: number }> {
  return dueDays(r, now, tz, (day) => windowOn(r, day, tz));
}

/** The window of a schedule (or of one checkpoint schedule) on a calendar day, as instants; undefined when a time does not exist that day. */
export function windowOn(r: Pick<TaskScheduleRow, 'from_time' | 'to_time'> & { duration?: number | null }, day: string, tz: string): { from: number; to: number } | undefined {
  const from = parseDateTime(`${day} ${r.from_time}`, tz);
  const to = from !== undefined && r.duration ? from + r.duration * 60_000 : parseDateTime(`${r.to_time > r.from_time ? day : addDays(day, 1)} ${r.to_time}`, tz);
  return from === undefined || to === undefined ? undefined : { from, to };
}

/** The recurring days from today (in `tz`) through today + days_ahead whose window (`windowOf`) exists and has not ended by `now`. */
export function dueDays<T extends { to: number }>(r: Pick<TaskScheduleRow, 'kind' | 'days' | 'days_ahead'>, now: number, tz: string, windowOf: (day: string) => T | undefined): Array<T & { day: string }> {
  const today = formatDateTime(now, tz).slice(0, 10);
  const days = JSON.parse(r.days) as number[];
  const out: Array<T & { day: string }> = [];
  for (let i = 0; i <= r.days_ahead; i++) {
    const day = addDays(today, i);
    if (!recursOn(r.kind, days, day)) continue;
    const w = windowOf(day);
    if (w === undefined || w.to <= now) continue;
    out.push({ day, ...w });
  }
  return out;
}
