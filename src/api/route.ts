/**
 * Routes (referenced by the spec as "task/route calls", not shown; designed in docs/tasks-api.md):
 * a route is an ordered list of checkpoints, each a task with its own zone and window. Routes
 * share the tasks' id space: task/read, task/assign and task/delete take route ids too, and
 * task/transmute adds a task to a route.
 */
import { z } from 'zod';
import { routeDraft, routeInput, taskDraft, taskInput, usableTaskTracker, fillAddress, externalIdCounts } from '../tasks/input.ts';
import { initialStatus, requireEditable } from '../tasks/states.ts';
import { loadTaskViews } from '../tasks/view.ts';
import type { DataStore } from '../store/contract.ts';
import type { TaskRow } from '../store/tasks.ts';
import type { UserRow } from '../store/users.ts';
import { parseSort } from '../core/conditions.ts';
import { DomainError } from '../core/errors.ts';
import { applyTaskForm, createFormTemplate } from '../forms/task-forms.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { listParams, listWindow, ownTask } from './task.ts';

/** Most checkpoints one route/create takes. */
export const MAX_CHECKPOINTS = 500;

async function ownRoute(data: DataStore, owner: UserRow, routeId: number): Promise<TaskRow> {
  const row = await ownTask(data, owner, routeId, 'route');
  if (row.type !== 'route') throw new DomainError(201, {}, `Not found in the database: route ${routeId}`);
  return row;
}

async function routeViews(services: Services, rows: TaskRow[], tz: string) {
  const data = services.store.data;
  const ids = await data.tasks.checkpointIds(rows.map((r) => r.id));
  return (await loadTaskViews(data, rows, tz)).map((v) => ({ ...v, checkpoint_ids: ids.get(v.id as number) ?? [] }));
}

/** A checkpoint of route/create and route/update: a task object (its tracker is the route's); `id` names an existing checkpoint in update. */
const checkpointInput = taskInput.omit({ tracker_id: true }).extend({ id: id.optional() });

/** The forms create_form asks for, one per checkpoint (undefined: leave the form alone). */
async function checkpointForms(services: Services, owner: UserRow, createForm: boolean, cps: Array<z.infer<typeof checkpointInput>>) {
  const forms = [];
  for (const c of cps) forms.push(await createFormTemplate(services, owner.id, createForm, c.form_template_id));
  return forms;
}

/** The documented answer of route/create and route/update: the route object with its checkpoint_ids (`result`). */
async function routeResult(services: Services, owner: UserRow, routeId: number, tz: string) {
  return (await routeViews(services, [(await services.store.data.tasks.get(owner.id, routeId))!], tz))[0];
}

const create = defineCall({
  path: 'task/route/create',
  summary: 'Create a route with its checkpoints (task objects, in order); assigned when tracker_id is given; create_form: forms of the checkpoints\' form_template_id. Answers the route as `result`.',
  right: 'task_update',
  params: z.object({ route: routeInput, checkpoints: z.array(checkpointInput).max(MAX_CHECKPOINTS).default([]), create_form: z.boolean().default(false) }),
  async handler({ services, owner, user, params }) {
    const draft = await routeDraft(services, owner, params.route, 'route');
    const drafts: Array<Awaited<ReturnType<typeof taskDraft>>> = [];
    for (const [i, c] of params.checkpoints.entries()) drafts.push(await taskDraft(services, owner, user.time_zone, c, `checkpoints.${i}`, { requireAllFields: true }));
    const trackerId = params.route.tracker_id ?? null;
    if (trackerId !== null) await usableTaskTracker(services, owner, trackerId, 201);
    const forms = await checkpointForms(services, owner, params.create_form, params.checkpoints);
    for (const d of drafts) await fillAddress(services, d);
    const newId = await services.store.data.transaction(async (tx) => {
      const created = await tx.tasks.create(owner.id, { type: 'route', draft, trackerId, status: initialStatus(trackerId), origin: 'manual', now: services.now() }, drafts);
      for (const [i, c] of (await tx.tasks.checkpoints(created)).entries()) await applyTaskForm(tx, services, owner.id, c, forms[i]);
      return created;
    });
    return { result: await routeResult(services, owner, newId, user.time_zone), ...(await externalIdCounts(services, owner, draft.external_id)) };
  },
});

const read = defineCall({
  path: 'task/route/read',
  summary: 'A route (with checkpoint_ids) and its checkpoints in order.',
  params: z.object({ route_id: id }),
  async handler({ services, owner, user, params }) {
    const data = services.store.data;
    const row = await ownRoute(data, owner, params.route_id);
    const [value] = await routeViews(services, [row], user.time_zone);
    return { value, checkpoints: await loadTaskViews(data, await data.tasks.checkpoints(row.id), user.time_zone) };
  },
});

const list = defineCall({
  path: 'task/route/list',
  summary: 'Routes matching the filters (external_id, statuses, trackers, from/to, tag_ids, filters), one page, and the count.',
  params: listParams.pick({ external_id: true, statuses: true, trackers: true, from: true, to: true, filters: true, tag_ids: true, offset: true, limit: true, sort: true }),
  async handler({ services, owner, user, params: p }) {
    const { tasks } = services.store.data;
    const { rows, count } = await tasks.list({
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
    return { list: await routeViews(services, rows, user.time_zone), count };
  },
});

const update = defineCall({
  path: 'task/route/update',
  summary:
    'Change label, description, external_id and tags of a route (unassigned or assigned only: 255); with `checkpoints` its checkpoints become that list (an entry with id updates that checkpoint, one without is new, the others are deleted); create_form: forms of their form_template_id. Answers the route as `result`.',
  right: 'task_update',
  params: z.object({ route: routeInput.extend({ id }), checkpoints: z.array(checkpointInput).max(MAX_CHECKPOINTS).nullable().optional(), create_form: z.boolean().default(false) }),
  async handler({ services, owner, user, params }) {
    const data = services.store.data;
    const row = await ownRoute(data, owner, params.route.id);
    const cps = params.checkpoints ?? undefined;
    // Replacing the checkpoints needs each of them editable too; a change of the route alone, the route.
    const editable = async (d: DataStore, r: TaskRow) => (cps ? [r, ...(await d.tasks.checkpoints(r.id))] : [r]);
    requireEditable(await editable(data, row), `route ${row.id}`);
    const draft = await routeDraft(services, owner, params.route, 'route');
    let items: Array<{ row: TaskRow | undefined; draft: Awaited<ReturnType<typeof taskDraft>> }> | undefined;
    if (cps) {
      items = [];
      for (const [i, c] of cps.entries()) {
        const existing = c.id === undefined ? undefined : await data.tasks.get(owner.id, c.id);
        if (c.id !== undefined && existing?.route_id !== row.id) throw new DomainError(201, {}, `Not found in the database: checkpoint ${c.id} of route ${row.id}`);
        items.push({ row: existing, draft: await taskDraft(services, owner, user.time_zone, c, `checkpoints.${i}`, { requireAllFields: !existing || c.fields !== undefined }) });
      }
    }
    const forms = cps ? await checkpointForms(services, owner, params.create_form, cps) : [];
    for (const item of items ?? []) await fillAddress(services, item.draft);
    await data.transaction(async (tx) => {
      // Checked again inside the write: the route may have moved on while addresses were looked up.
      const now = await ownRoute(tx, owner, row.id);
      requireEditable(await editable(tx, now), `route ${now.id}`);
      await tx.tasks.update(now, { ...draft, from_time: now.from_time, to_time: now.to_time });
      if (!items) return;
      const ids = await tx.tasks.replaceCheckpoints(now, items, services.now());
      for (const [i, cid] of ids.entries()) await applyTaskForm(tx, services, owner.id, (await tx.tasks.get(owner.id, cid))!, forms[i]);
    });
    return { result: await routeResult(services, owner, row.id, user.time_zone), ...(await externalIdCounts(services, owner, draft.external_id)) };
  },
});

const remove = defineCall({
  path: 'task/route/delete',
  summary: 'Delete a route and all its checkpoints.',
  right: 'task_update',
  params: z.object({ route_id: id }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    await data.tasks.delete(await ownRoute(data, owner, params.route_id));
  },
});

export const routeCalls = [create, read, list, update, remove];
