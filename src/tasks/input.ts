/**
 * The task object as task/create, task/update and the route calls receive it (spec: Task table),
 * and its checks that need the store: date/times in the user's zone, from < to, tags, custom
 * fields, the tracker (owner's, not blocked, tariff with tasks) and the address filler.
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import type { Geocoder } from '../geocoder/types.ts';
import { addressFor } from '../imports/geocode.ts';
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { TaskDraft } from '../store/tasks.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { parseDateTime } from '../core/time.ts';

/** What the task rules need, passed explicitly by the API, the admin command or a worker. */
export interface TaskDeps {
  store: Store;
  geocoder: Geocoder;
  now: () => number;
}

/** An entity id: a positive 32-bit integer (as the API's ids). */
const id = z.number().int().min(1).max(2_147_483_647);

/** Largest task zone radius, meters (the spec sets none). */
export const MAX_RADIUS = 100_000;
/** Largest max_delay and min_stay_duration, minutes: one year. */
export const MAX_MINUTES = 525_600;
export const MAX_EXTERNAL_ID = 256;
export const MAX_TAGS = 100;

export const dateTime = z.string().regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, 'expected yyyy-MM-dd HH:mm:ss');
const externalId = z
  .string()
  .max(MAX_EXTERNAL_ID)
  .nullable()
  .default(null)
  .transform((s) => (s === '' ? null : s));
const tags = z.array(id).max(MAX_TAGS);
const fields = z.record(z.string(), z.object({ type: z.string(), value: z.unknown() }));

export const locationInput = z.object({
  lat: z.number().min(-90).max(90),
  lng: z.number().min(-180).max(180),
  address: z.string().max(1024).default(''),
  radius: z.number().int().min(1).max(MAX_RADIUS),
});

/** The task object of task/create (ignored fields are dropped); task/update adds id. */
export const taskInput = z.object({
  tracker_id: id.nullable().optional(),
  location: locationInput,
  label: z.string().trim().min(1).max(200),
  description: z.string().max(1024).default(''),
  from: dateTime,
  to: dateTime,
  external_id: externalId,
  max_delay: z.number().int().min(0).max(MAX_MINUTES).default(0),
  min_stay_duration: z.number().int().min(0).max(MAX_MINUTES).default(0),
  tags: tags.optional(),
  fields: fields.optional(),
  form_template_id: id.nullable().optional(),
});
export type TaskInput = z.infer<typeof taskInput>;

/** The route object of task/route/create and update (docs/tasks-api.md). */
export const routeInput = z.object({
  tracker_id: id.nullable().optional(),
  label: z.string().trim().min(1).max(200),
  description: z.string().max(1024).default(''),
  external_id: externalId,
  tags: tags.optional(),
});
export type RouteInput = z.infer<typeof routeInput>;

/**
 * A task object -> the row to write: times parsed in the user's zone (code 7 naming `<p>.from`,
 * `<p>.to`; `to` must be after `from`), tags and custom fields checked against the owner's.
 */
export async function taskDraft(deps: TaskDeps, owner: UserRow, tz: string, t: TaskInput, p: string, opts: { requireAllFields: boolean }): Promise<TaskDraft> {
  const data = deps.store.data;
  const errors: Array<{ parameter: string; error: string }> = [];
  const from = parseDateTime(t.from, tz);
  const to = parseDateTime(t.to, tz);
  if (from === undefined) errors.push({ parameter: `${p}.from`, error: 'not a valid date/time' });
  if (to === undefined) errors.push({ parameter: `${p}.to`, error: 'not a valid date/time' });
  else if (from !== undefined && to <= from) errors.push({ parameter: `${p}.to`, error: 'must be after from' });
  errors.push(...(await tagErrors(data, owner, t.tags, p)));
  if (t.fields) errors.push(...(await data.fields.validate(owner.id, 'task', t.fields as never, { requireAll: opts.requireAllFields, parameter: `${p}.fields` })));
  else if (opts.requireAllFields) errors.push(...(await data.fields.validate(owner.id, 'task', {}, { requireAll: true, parameter: `${p}.fields` })));
  if (errors.length) throw invalidParams(errors);
  return {
    label: t.label,
    description: t.description,
    lat: t.location.lat,
    lng: t.location.lng,
    address: t.location.address.trim(),
    radius: t.location.radius,
    from_time: from!,
    to_time: to!,
    external_id: t.external_id,
    max_delay: t.max_delay,
    min_stay_duration: t.min_stay_duration,
    form_template_id: null,
    tags: t.tags,
    fields: t.fields as TaskDraft['fields'],
  };
}

export async function routeDraft(deps: TaskDeps, owner: UserRow, r: RouteInput, p: string): Promise<TaskDraft> {
  const errors = await tagErrors(deps.store.data, owner, r.tags, p);
  if (errors.length) throw invalidParams(errors);
  return { label: r.label, description: r.description, lat: null, lng: null, address: '', radius: null, from_time: null, to_time: null, external_id: r.external_id, max_delay: 0, min_stay_duration: 0, form_template_id: null, tags: r.tags };
}

async function tagErrors(data: DataStore, owner: UserRow, tagIds: number[] | undefined, p: string) {
  const missing = await data.tags.missing(owner.id, tagIds ?? []);
  return missing.length ? [{ parameter: `${p}.tags`, error: `no such tags: ${missing.join(', ')}` }] : [];
}

/** The tracker a task may be assigned to: the owner's (else `notFound`), not blocked (208), tariff with tasks (236). */
export async function usableTaskTracker(deps: TaskDeps, owner: UserRow, trackerId: number, notFound: 201 | 204): Promise<TrackerRow> {
  const data = deps.store.data;
  const t = await data.trackers.get(owner.id, trackerId);
  return usableTracker(t, t && (await data.tariffs.get(t.tariff_id))?.has_tasks, trackerId, notFound);
}

/**
 * usableTaskTracker on the synchronous store, for the task schedules (src/tasks/schedules.ts),
 * which still check and write on it; the same checks.
 */
export function taskTracker(deps: TaskDeps, owner: UserRow, trackerId: number, notFound: 201 | 204): TrackerRow {
  const t = deps.store.trackers.get(owner.id, trackerId);
  return usableTracker(t, t && deps.store.tariffs.get(t.tariff_id)?.has_tasks, trackerId, notFound);
}

function usableTracker(t: TrackerRow | undefined, hasTasks: boolean | number | undefined, trackerId: number, notFound: 201 | 204): TrackerRow {
  if (!t) throw new DomainError(notFound, {}, `${notFound === 201 ? 'Not found in the database' : 'Entity not found'}: tracker ${trackerId}`);
  if (t.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${trackerId}`);
  if (!hasTasks) throw new DomainError(236, {}, `Feature unavailable due to tariff restrictions: the tariff of tracker ${trackerId} has no tasks`);
  return t;
}

/** Every task with coordinates but no address gets one (issue 4); '' when the geocoder knows nothing or fails. */
export async function fillAddress(deps: TaskDeps, d: TaskDraft): Promise<void> {
  if (d.lat !== null && d.lng !== null) d.address = await addressFor(deps.geocoder, d.lat, d.lng, d.address);
}

/** external_id_counts of task/create and task/update: how many of the owner's tasks carry the task's external_id. */
export async function externalIdCounts(deps: TaskDeps, owner: UserRow, externalId: string | null): Promise<Record<string, unknown>> {
  if (externalId === null) return {};
  return { external_id_counts: [{ external_id: externalId, count: await deps.store.data.tasks.externalIdCount(owner.id, externalId) }] };
}
