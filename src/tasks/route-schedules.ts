/**
 * Route schedules (issue 23; docs/schedules.md "Route schedules"): the documented
 * task/schedule/route/* objects. A route schedule is a route template (label, tracker, tags and the
 * days it recurs on) with its checkpoint schedules, each one stop as a task schedule describes it
 * (place, from_time, duration, form template, ...). On each due day the runner
 * (./schedule-run.ts) creates a route with origin `scheduled` and one checkpoint per stop, in order.
 */
import { z } from 'zod';
import { invalidParams } from '../core/errors.ts';
import { formatDateTime } from '../core/time.ts';
import type { TaskScheduleDraft, TaskScheduleRow } from '../store/task-schedules.ts';
import type { UserRow } from '../store/users.ts';
import { MAX_EXTERNAL_ID, MAX_TAGS, taskTracker, type TaskDeps } from './input.ts';
import { dueDays, MAX_DAYS_AHEAD, MAX_DURATION, parametersView, scheduleDraft, scheduleInput, scheduleParameters, scheduleView, seconds, timeOf, windowMinutes, windowOn } from './schedules.ts';

const id = z.number().int().min(1).max(2_147_483_647);
/** Most checkpoints in one route schedule (as task/route/create takes). */
export const MAX_ROUTE_CHECKPOINTS = 500;

/** The documented route schedule entry of task/schedule/route/create (update adds id); the members after parameters are ours, as in task schedules. */
export const routeScheduleInput = z.object({
  tracker_id: id.nullable().default(null),
  label: z.string().trim().min(1).max(200),
  description: z.string().max(1024).default(''),
  parameters: scheduleParameters,
  external_id: z.string().max(MAX_EXTERNAL_ID).nullable().default(null),
  tags: z.array(id).max(MAX_TAGS).default([]),
  days_ahead: z.number().int().min(1).max(MAX_DAYS_AHEAD).default(7),
  enabled: z.boolean().default(true),
});
export type RouteScheduleInput = z.infer<typeof routeScheduleInput>;

/**
 * The documented checkpoint schedule entry: a task schedule's stop without the route's days.
 * `duration` is required (no `to_time` here); `tracker_id` may only repeat the route's;
 * `parent_id` is read-only (the route decides); `order` places the checkpoint (else its place in
 * the list); `id` names a checkpoint of the route to keep in update.
 */
export const checkpointScheduleInput = scheduleInput.omit({ tracker_id: true, parameters: true, days_ahead: true, enabled: true, to_time: true }).extend({
  id: id.optional(),
  tracker_id: id.nullable().optional(),
  parent_id: id.nullable().optional(),
  order: z.number().int().min(0).max(MAX_ROUTE_CHECKPOINTS).optional(),
  duration: z.number().int().min(1).max(MAX_DURATION),
});
export type CheckpointScheduleInput = z.infer<typeof checkpointScheduleInput>;

const checkpointList = z.array(checkpointScheduleInput).min(1).max(MAX_ROUTE_CHECKPOINTS);
/** `checkpoints` of create: at least one. */
export const checkpointsInput = checkpointList;
/** `checkpoints` of update: the documented example sends a single checkpoint as an object; read as a list of one. */
export const checkpointsUpdateInput = z.preprocess((v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? [v] : v), checkpointList);

export interface RouteScheduleDrafts {
  route: TaskScheduleDraft;
  /** In route order; `id` when an existing checkpoint is kept. */
  checkpoints: Array<{ id?: number; draft: TaskScheduleDraft }>;
}

/**
 * Check a route schedule and its checkpoints against the owner's entities (tracker 201/208/236,
 * form templates 204, tags and custom fields 7) and give the rows to write. The route row keeps its
 * first checkpoint's place and the span of its checkpoints' windows (columns a route has no use for
 * otherwise; the span tells the runner when a day is over).
 */
export async function routeScheduleDrafts(deps: TaskDeps, owner: UserRow, r: RouteScheduleInput, cps: CheckpointScheduleInput[]): Promise<RouteScheduleDrafts> {
  if (r.tracker_id !== null) taskTracker(deps, owner, r.tracker_id, 201);
  const errors: Array<{ parameter: string; error: string }> = [];
  const missing = deps.store.tags.missing(owner.id, r.tags);
  if (missing.length) errors.push({ parameter: 'route.tags', error: `no such tags: ${missing.join(', ')}` });
  cps.forEach((c, i) => {
    if (c.tracker_id != null && c.tracker_id !== r.tracker_id) errors.push({ parameter: `checkpoints.${i}.tracker_id`, error: 'a checkpoint goes with its route: give route.tracker_id or null' });
  });
  const ids = cps.flatMap((c) => (c.id === undefined ? [] : [c.id]));
  if (new Set(ids).size !== ids.length) errors.push({ parameter: 'checkpoints', error: 'each checkpoint id once' });
  if (errors.length) throw invalidParams(errors);
  // A stable sort: entries without `order` keep their place in the list.
  const ordered = cps.map((c, i) => ({ c, i })).sort((a, b) => (a.c.order ?? a.i) - (b.c.order ?? b.i));
  const checkpoints: RouteScheduleDrafts['checkpoints'] = [];
  for (const { c, i } of ordered) {
    const { id: cid, tracker_id: _t, parent_id: _p, order: _o, ...stop } = c;
    const d = await scheduleDraft(deps, owner, { ...stop, tracker_id: null, parameters: r.parameters, days_ahead: r.days_ahead, enabled: r.enabled }, `checkpoints.${i}`);
    checkpoints.push({ id: cid, draft: { ...d, tracker_id: r.tracker_id } });
  }
  const route: TaskScheduleDraft = {
    ...routeSpan(checkpoints.map((c) => c.draft)),
    label: r.label,
    description: r.description,
    tracker_id: r.tracker_id,
    max_delay: 0,
    min_stay_duration: 0,
    min_arrival_duration: 0,
    external_id: r.external_id === '' ? null : r.external_id,
    tags: JSON.stringify(r.tags),
    fields: null,
    form_template_id: null,
    kind: checkpoints[0].draft.kind,
    days: checkpoints[0].draft.days,
    days_ahead: r.days_ahead,
    enabled: r.enabled ? 1 : 0,
  };
  return { route, checkpoints };
}

/** What a route schedule row keeps of its checkpoints (in order, at least one): the first one's place, and the span of their windows. */
export function routeSpan(stops: Array<Pick<TaskScheduleDraft, 'lat' | 'lng' | 'address' | 'radius' | 'from_time' | 'duration' | 'to_time'>>) {
  const minutes = (d: (typeof stops)[number]) => d.duration ?? windowMinutes(d.from_time, d.to_time);
  const start = Math.min(...stops.map((d) => seconds(d.from_time)));
  const end = Math.max(...stops.map((d) => seconds(d.from_time) + minutes(d) * 60));
  const { lat, lng, address, radius } = stops[0];
  return { lat, lng, address, radius, from_time: timeOf(start), to_time: timeOf(end), duration: Math.round((end - start) / 60) };
}

/** The documented route schedule entry, with our members after it. */
export function routeScheduleView(r: TaskScheduleRow, tz: string) {
  return {
    id: r.id,
    user_id: r.user_id,
    type: r.type,
    tracker_id: r.tracker_id,
    label: r.label,
    description: r.description,
    parameters: parametersView(r),
    external_id: r.external_id,
    tags: r.tags ? (JSON.parse(r.tags) as number[]) : [],
    days_ahead: r.days_ahead,
    enabled: r.enabled === 1,
    last_error: r.last_error,
    created: formatDateTime(r.created, tz),
    updated: formatDateTime(r.updated, tz),
  };
}

/** The documented checkpoint schedule entry: a task schedule without the route's members, with parent_id and order. */
export function checkpointScheduleView(c: TaskScheduleRow, tz: string) {
  const { parameters: _p, days_ahead: _d, enabled: _e, last_error: _l, ...v } = scheduleView(c, tz);
  return { ...v, parent_id: c.parent_id, order: c.ord };
}

/**
 * The routes a route schedule should have by `now`: each due day (as for task schedules) with each
 * checkpoint's window that day, in order; a day is over when its last window is.
 */
export function routeOccurrences(r: TaskScheduleRow, checkpoints: TaskScheduleRow[], now: number, tz: string): Array<{ day: string; to: number; windows: Array<{ from: number; to: number }> }> {
  if (!checkpoints.length) return [];
  return dueDays(r, now, tz, (day) => {
    const windows = checkpoints.map((c) => windowOn(c, day, tz));
    if (windows.some((w) => w === undefined)) return undefined;
    const ws = windows as Array<{ from: number; to: number }>;
    return { to: Math.max(...ws.map((w) => w.to)), windows: ws };
  });
}
