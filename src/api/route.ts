/**
 * Routes (referenced by the spec as "task/route calls", not shown; designed in docs/tasks-api.md):
 * a route is an ordered list of checkpoints, each a task with its own zone and window. Routes
 * share the tasks' id space: task/read, task/assign and task/delete take route ids too, and
 * task/transmute adds a task to a route.
 */
import { z } from 'zod';
import { routeDraft, routeInput, taskDraft, taskInput, taskTracker, fillAddress, externalIdCounts } from '../tasks/input.ts';
import { initialStatus, requireEditable } from '../tasks/states.ts';
import { taskViews } from '../tasks/view.ts';
import type { TaskRow } from '../store/tasks.ts';
import type { UserRow } from '../store/users.ts';
import { parseSort } from '../core/conditions.ts';
import { DomainError } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { listParams, listWindow, ownTask } from './task.ts';

/** Most checkpoints one route/create takes. */
export const MAX_CHECKPOINTS = 500;

function ownRoute(services: Services, owner: UserRow, routeId: number): TaskRow {
  const row = ownTask(services, owner, routeId, 'route');
  if (row.type !== 'route') throw new DomainError(201, {}, `Not found in the database: route ${routeId}`);
  return row;
}

function routeViews(services: Services, rows: TaskRow[], tz: string) {
  const ids = services.store.tasks.checkpointIds(rows.map((r) => r.id));
  return taskViews(services.store, rows, tz).map((v) => ({ ...v, checkpoint_ids: ids.get(v.id as number) ?? [] }));
}

const create = defineCall({
  path: 'task/route/create',
  summary: 'Create a route with its checkpoints (task objects, in order); assigned when tracker_id is given.',
  right: 'task_update',
  params: z.object({ route: routeInput, checkpoints: z.array(taskInput.omit({ tracker_id: true })).max(MAX_CHECKPOINTS).default([]) }),
  async handler({ services, owner, user, params }) {
    const draft = routeDraft(services, owner, params.route, 'route');
    const drafts = params.checkpoints.map((c, i) => taskDraft(services, owner, user.time_zone, c, `checkpoints.${i}`, { requireAllFields: true }));
    const trackerId = params.route.tracker_id ?? null;
    if (trackerId !== null) taskTracker(services, owner, trackerId, 201);
    for (const d of drafts) await fillAddress(services, d);
    const { tasks } = services.store;
    const newId = tasks.create(owner.id, { type: 'route', draft, trackerId, status: initialStatus(trackerId), origin: 'manual', now: services.now() }, drafts);
    return { id: newId, checkpoint_ids: tasks.checkpoints(newId).map((c) => c.id), ...externalIdCounts(services, owner, draft.external_id) };
  },
});

const read = defineCall({
  path: 'task/route/read',
  summary: 'A route (with checkpoint_ids) and its checkpoints in order.',
  params: z.object({ route_id: id }),
  handler({ services, owner, user, params }) {
    const row = ownRoute(services, owner, params.route_id);
    const [value] = routeViews(services, [row], user.time_zone);
    return { value, checkpoints: taskViews(services.store, services.store.tasks.checkpoints(row.id), user.time_zone) };
  },
});

const list = defineCall({
  path: 'task/route/list',
  summary: 'Routes matching the filters (external_id, statuses, trackers, from/to, tag_ids, filters), one page, and the count.',
  params: listParams.pick({ external_id: true, statuses: true, trackers: true, from: true, to: true, filters: true, tag_ids: true, offset: true, limit: true, sort: true }),
  handler({ services, owner, user, params: p }) {
    const { tasks } = services.store;
    const { rows, count } = tasks.list({
      userId: owner.id,
      routes: true,
      externalId: p.external_id,
      statuses: p.statuses?.length ? p.statuses : undefined,
      trackers: p.trackers?.length ? p.trackers : undefined,
      ...listWindow(p, user.time_zone),
      filters: p.filters?.length ? p.filters : undefined,
      tagIds: p.tag_ids?.length ? p.tag_ids : undefined,
      sort: parseSort(p.sort ?? undefined),
      offset: p.offset ?? undefined,
      limit: p.limit ?? undefined,
    });
    return { list: routeViews(services, rows, user.time_zone), count };
  },
});

const update = defineCall({
  path: 'task/route/update',
  summary: 'Change label, description, external_id and tags of a route (unassigned or assigned only: 255).',
  right: 'task_update',
  params: z.object({ route: routeInput.extend({ id }) }),
  handler({ services, owner, params }) {
    const row = ownRoute(services, owner, params.route.id);
    requireEditable([row], `route ${row.id}`);
    const draft = routeDraft(services, owner, params.route, 'route');
    services.store.tasks.update(row, { ...draft, from_time: row.from_time, to_time: row.to_time });
    return externalIdCounts(services, owner, draft.external_id);
  },
});

const remove = defineCall({
  path: 'task/route/delete',
  summary: 'Delete a route and all its checkpoints.',
  right: 'task_update',
  params: z.object({ route_id: id }),
  handler({ services, owner, params }) {
    services.store.tasks.delete(ownRoute(services, owner, params.route_id));
  },
});

export const routeCalls = [create, read, list, update, remove];
