/**
 * Task calls (spec: Tasks, base path /task; States and transitions). Routes and checkpoints share
 * the table and the id space (src/api/route.ts); docs/tasks-api.md records the designed parts.
 */
import { z } from 'zod';
import { parseSort } from '../core/conditions.ts';
import type { DataStore } from '../store/contract.ts';
import { TASK_STATUSES, type TaskRow } from '../store/tasks.ts';
import type { UserRow } from '../store/users.ts';
import { convertBatch, DEFAULT_TASK_BATCH_FIELDS, LOCATION_CHECK_MODES, TASK_BATCH_FIELDS } from '../tasks/batch.ts';
import { dateTime, externalIdCounts, fillAddress, MAX_EXTERNAL_ID, MAX_MINUTES, MAX_RADIUS, taskDraft, taskInput, usableTaskTracker } from '../tasks/input.ts';
import { initialStatus, requireEditable } from '../tasks/states.ts';
import { loadTaskViews } from '../tasks/view.ts';
import { applyTaskForm, createFormTemplate } from '../forms/task-forms.ts';
import { formView } from '../forms/view.ts';
import { parseDateTime } from '../core/time.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { conditionsParam, geocoderParam, id } from './schemas.ts';

/** The owner's task, route or checkpoint, or 201 (`data`: the store, or a transaction's). */
export async function ownTask(data: DataStore, owner: UserRow, taskId: number, what = 'task'): Promise<TaskRow> {
  const row = await data.tasks.get(owner.id, taskId);
  if (!row) throw new DomainError(201, {}, `Not found in the database: ${what} ${taskId}`);
  return row;
}

const create = defineCall({
  path: 'task/create',
  summary: 'Create a task; assigned when tracker_id is given, else unassigned. Answers id and external_id_counts.',
  right: 'task_update',
  params: z.object({ task: taskInput, create_form: z.boolean().default(false) }),
  async handler({ services, owner, user, params }) {
    const { task } = params;
    const draft = await taskDraft(services, owner, user.time_zone, task, 'task', { requireAllFields: true });
    const trackerId = task.tracker_id ?? null;
    if (trackerId !== null) await usableTaskTracker(services, owner, trackerId, 201);
    const template = await createFormTemplate(services, owner.id, params.create_form, task.form_template_id);
    await fillAddress(services, draft);
    const newId = await services.store.data.transaction(async (tx) => {
      const created = await tx.tasks.create(owner.id, { type: 'task', draft, trackerId, status: initialStatus(trackerId), origin: 'manual', now: services.now() });
      await applyTaskForm(tx, services, owner.id, (await tx.tasks.get(owner.id, created))!, template ?? undefined);
      return created;
    });
    return { id: newId, ...(await externalIdCounts(services, owner, draft.external_id)) };
  },
});

const read = defineCall({
  path: 'task/read',
  summary: 'A task, checkpoint or route; a route comes with its checkpoints in order.',
  params: z.object({ task_id: id }),
  async handler({ services, owner, user, params }) {
    const data = services.store.data;
    const row = await ownTask(data, owner, params.task_id);
    const [value] = await loadTaskViews(data, [row], user.time_zone);
    // The form is present only when one is attached (spec: Task table).
    const form = row.type === 'route' ? undefined : await data.forms.ofTask(row.id);
    if (form) value.form = formView(form, user.time_zone);
    if (row.type !== 'route') return { value };
    return { value, checkpoints: await loadTaskViews(data, await data.tasks.checkpoints(row.id), user.time_zone) };
  },
});

const update = defineCall({
  path: 'task/update',
  summary: 'Change a task or checkpoint (unassigned or assigned only: 255); tracker_id and status are ignored.',
  right: 'task_update',
  params: z.object({ task: taskInput.extend({ id }), create_form: z.boolean().default(false) }),
  async handler({ services, owner, user, params }) {
    const { task } = params;
    const row = await ownTask(services.store.data, owner, task.id);
    if (row.type === 'route') throw new DomainError(201, {}, `Not found in the database: task ${task.id} is a route; use task/route/update`);
    requireEditable([row], `task ${row.id}`);
    const draft = await taskDraft(services, owner, user.time_zone, task, 'task', { requireAllFields: task.fields !== undefined });
    const template = await createFormTemplate(services, owner.id, params.create_form, task.form_template_id);
    await fillAddress(services, draft);
    await services.store.data.transaction(async (tx) => {
      // Checked again inside the write: the task may have moved on while the address was looked up.
      const now = await ownTask(tx, owner, task.id);
      requireEditable([now], `task ${now.id}`);
      await tx.tasks.update(now, draft);
      await applyTaskForm(tx, services, owner.id, now, template);
    });
    return externalIdCounts(services, owner, draft.external_id);
  },
});

const remove = defineCall({
  path: 'task/delete',
  summary: 'Delete a task, a checkpoint (its route closes up) or a route with its checkpoints.',
  right: 'task_update',
  params: z.object({ task_id: id }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    await data.tasks.delete(await ownTask(data, owner, params.task_id));
  },
});

const assign = defineCall({
  path: 'task/assign',
  summary: 'Assign a task or route (with its checkpoints) to a tracker, or unassign it with tracker_id null.',
  right: 'task_update',
  params: z.object({ task_id: id, tracker_id: id.nullable() }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    const row = await ownTask(data, owner, params.task_id);
    if (row.type === 'checkpoint') throw new DomainError(255, {}, `Invalid task state: ${row.id} is a checkpoint of route ${row.route_id}; assign the route`);
    requireEditable(row.type === 'route' ? [row, ...(await data.tasks.checkpoints(row.id))] : [row], `${row.type} ${row.id}`);
    if (params.tracker_id !== null) await usableTaskTracker(services, owner, params.tracker_id, 204);
    const status = initialStatus(params.tracker_id);
    await data.transaction(async (tx) => {
      await tx.tasks.assign(row, params.tracker_id, status, services.now());
      // The event log (docs/events.md): for the tracker it is assigned to, or was assigned to.
      const trackerId = params.tracker_id ?? row.tracker_id;
      if (trackerId !== null && status !== row.status) await tx.events.record({ trackerId, type: 'task_status_changed', time: services.now(), lat: row.lat, lng: row.lng, extra: { task_id: row.id, task_label: row.label, old_status: row.status, new_status: status } });
    });
  },
});

const count = defineCall({
  path: 'task/count',
  summary: "Number of the user's tasks (checkpoints included, routes not).",
  params: z.object({}),
  async handler({ services, owner }) {
    return { count: await services.store.data.tasks.count(owner.id) };
  },
});

const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();
export const listParams = z.object({
  external_id: nullable(z.string().max(MAX_EXTERNAL_ID)),
  statuses: nullable(z.array(z.enum(TASK_STATUSES)).max(TASK_STATUSES.length)),
  trackers: nullable(z.array(id).max(10_000)),
  from: nullable(dateTime),
  to: nullable(dateTime),
  conditions: nullable(conditionsParam),
  filter: nullable(z.string().max(760)),
  filters: nullable(z.array(z.string().min(1).max(760)).max(20)),
  tag_ids: nullable(z.array(id).max(100)),
  location: nullable(z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180), radius: z.number().positive().max(20_100_000) })),
  offset: nullable(z.number().int().min(0).max(2_147_483_647)),
  limit: nullable(z.number().int().min(0).max(2_147_483_647)),
  sort: nullable(z.array(z.string().max(100)).max(13)),
});

/** from/to of a list call in the user's zone (code 7 naming them; to must not be before from). */
export function listWindow(p: { from?: string | null; to?: string | null }, tz: string): { from?: number; to?: number } {
  const from = p.from ? parseDateTime(p.from, tz) : undefined;
  const to = p.to ? parseDateTime(p.to, tz) : undefined;
  if (p.from && from === undefined) throw invalidParams([{ parameter: 'from', error: 'not a valid date/time' }]);
  if (p.to && to === undefined) throw invalidParams([{ parameter: 'to', error: 'not a valid date/time' }]);
  if (from !== undefined && to !== undefined && to < from) throw invalidParams([{ parameter: 'to', error: 'must not be before from' }]);
  return { from, to };
}

const nonEmpty = <T>(a: T[] | null | undefined) => (a?.length ? a : undefined);

const list = defineCall({
  path: 'task/list',
  summary: 'Tasks and checkpoints matching all given filters, one page, and the total count.',
  params: listParams,
  async handler({ services, owner, user, params: p }) {
    const data = services.store.data;
    const tz = user.time_zone;
    const { rows, count } = await data.tasks.list({
      userId: owner.id,
      routes: false,
      externalId: p.external_id,
      statuses: nonEmpty(p.statuses),
      trackers: nonEmpty(p.trackers),
      ...listWindow(p, tz),
      conditions: p.conditions ?? undefined,
      timeZone: tz,
      filter: p.filter || undefined,
      filters: nonEmpty(p.filters),
      tagIds: nonEmpty(p.tag_ids),
      location: p.location ?? undefined,
      sort: parseSort(p.sort ?? undefined),
      offset: p.offset ?? undefined,
      limit: p.limit ?? undefined,
    });
    return { list: await loadTaskViews(data, rows, tz), count };
  },
});

const batchConvert = defineCall({
  path: 'task/batch_convert',
  summary: 'Convert tab-delimited rows into task objects (not saved), each with its errors; limit_exceeded when cut.',
  right: 'task_update',
  params: z.object({
    batch: z.string().max(5_000_000),
    fields: z
      .array(z.enum(TASK_BATCH_FIELDS))
      .min(1)
      .max(TASK_BATCH_FIELDS.length)
      .refine((f) => new Set(f).size === f.length, 'each field at most once')
      .default([...DEFAULT_TASK_BATCH_FIELDS]),
    geocoder: geocoderParam,
    default_radius: z.number().int().min(1).max(MAX_RADIUS).default(100),
    default_max_delay: z.number().int().min(0).max(MAX_MINUTES).default(0),
    default_duration: z.number().int().min(1).max(MAX_MINUTES).default(60),
    default_min_stay_duration: z.number().int().min(0).max(MAX_MINUTES).default(0),
    location_check_mode: z.enum(LOCATION_CHECK_MODES).default('entity_location'),
    employee_ids: z.array(id).max(1000).nullable().optional(),
    // No vehicles API yet: accepted and ignored (docs/tasks-api.md).
    vehicle_ids: z.array(id).max(1000).nullable().optional(),
  }),
  handler({ services, owner, user, params }) {
    return convertBatch(services, owner, user.time_zone, params);
  },
});

const transmute = defineCall({
  path: 'task/transmute',
  summary: 'Turn a task into a checkpoint of a route, inserted at the zero-based order.',
  right: 'task_update',
  params: z.object({ task_id: id, route_id: id, order: z.number().int().min(0).max(100_000) }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    const task = await ownTask(data, owner, params.task_id);
    const route = await ownTask(data, owner, params.route_id, 'route');
    if (route.type !== 'route') throw new DomainError(201, {}, `Not found in the database: route ${params.route_id}`);
    if (task.type !== 'task') throw new DomainError(255, {}, `Invalid task state: ${task.id} is a ${task.type}, not a task`);
    const checkpoints = await data.tasks.checkpoints(route.id);
    requireEditable([task], `task ${task.id}`);
    requireEditable([route, ...checkpoints], `route ${route.id}`);
    if (params.order > checkpoints.length) throw invalidParams([{ parameter: 'order', error: `at most ${checkpoints.length}: the route has ${checkpoints.length} checkpoints` }]);
    await data.tasks.transmute(task, route, params.order, services.now());
  },
});

export const taskCalls = [create, read, update, remove, assign, count, list, batchConvert, transmute];
