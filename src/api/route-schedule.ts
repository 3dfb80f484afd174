/**
 * Route schedules (issue 23; docs/schedules.md "Route schedules"): task/schedule/route/* and
 * task/schedule/checkpoint/* as documented. A route schedule creates a route with its checkpoints
 * on each of its days, as a task schedule creates a task; task/schedule/list, read and delete
 * (./task-schedule.ts) take them too. Changes need task_update, like routes.
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { draftOf } from '../store/task-schedules.ts';
import type { UserRow } from '../store/users.ts';
import { checkpointsInput, checkpointsUpdateInput, routeScheduleDrafts, routeScheduleInput, routeSpan } from '../tasks/route-schedules.ts';
import { runSchedule } from '../tasks/schedule-run.ts';
import { MAX_SCHEDULES } from '../tasks/schedules.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';

const notFound = (what: string) => new DomainError(201, {}, `Not found in the database: ${what}`);

function ownRouteSchedule(services: Services, owner: UserRow, routeId: number) {
  const row = services.store.taskSchedules.get(owner.id, routeId);
  if (row?.type !== 'route') throw notFound(`route schedule ${routeId}`);
  return row;
}

function ownCheckpointSchedule(services: Services, owner: UserRow, checkpointId: number) {
  const row = services.store.taskSchedules.get(owner.id, checkpointId);
  if (row?.type !== 'checkpoint') throw notFound(`checkpoint schedule ${checkpointId}`);
  return row;
}

/** Create the routes due by now for the schedule just written; answers their ids. */
function runNow(services: Services, owner: UserRow, routeId: number, now: number): number[] {
  return runSchedule(services, now, services.store.taskSchedules.get(owner.id, routeId));
}

const create = defineCall({
  path: 'task/schedule/route/create',
  summary: 'Create a route schedule with its checkpoints (at least one); answers its id and the routes it created at once (created_task_ids: routes share the tasks\' ids).',
  right: 'task_update',
  params: z.object({ route: routeScheduleInput, checkpoints: checkpointsInput }),
  async handler({ services, owner, params }) {
    const { taskSchedules } = services.store;
    if (taskSchedules.count(owner.id) >= MAX_SCHEDULES) throw new DomainError(268, {}, `Over quota: at most ${MAX_SCHEDULES} task and route schedules`);
    // Documented: a checkpoint's id is ignored in create.
    const drafts = await routeScheduleDrafts(services, owner, params.route, params.checkpoints.map((c) => ({ ...c, id: undefined })));
    const now = services.now();
    const routeId = taskSchedules.saveRoute(owner.id, undefined, drafts.route, drafts.checkpoints, now);
    return { id: routeId, created_task_ids: runNow(services, owner, routeId, now) };
  },
});

const update = defineCall({
  path: 'task/schedule/route/update',
  summary:
    'Replace a route schedule (route.id) and its checkpoints: an entry with id updates that checkpoint, one without is new, the others are deleted. Routes already created stay as they are; answers the routes newly due (created_task_ids).',
  right: 'task_update',
  params: z.object({ route: routeScheduleInput.extend({ id }), checkpoints: checkpointsUpdateInput }),
  async handler({ services, owner, params }) {
    const { taskSchedules } = services.store;
    const check = () => {
      const row = ownRouteSchedule(services, owner, params.route.id);
      for (const c of params.checkpoints) {
        if (c.id !== undefined && taskSchedules.get(owner.id, c.id)?.parent_id !== row.id) throw notFound(`checkpoint ${c.id} of route schedule ${row.id}`);
      }
      return row;
    };
    const row = check();
    const drafts = await routeScheduleDrafts(services, owner, params.route, params.checkpoints);
    const now = services.now();
    // Checked again in the write: the schedule may have changed while addresses were looked up.
    services.store.transaction(() => {
      check();
      taskSchedules.saveRoute(owner.id, row.id, drafts.route, drafts.checkpoints, now);
    });
    return { created_task_ids: runNow(services, owner, row.id, now) };
  },
});

const remove = defineCall({
  path: 'task/schedule/route/delete',
  summary: 'Delete a route schedule with its checkpoints; the routes it created stay.',
  right: 'task_update',
  params: z.object({ id }),
  handler({ services, owner, params }) {
    services.store.taskSchedules.delete(owner.id, ownRouteSchedule(services, owner, params.id).id);
  },
});

const removeCheckpoint = defineCall({
  path: 'task/schedule/checkpoint/delete',
  summary: 'Delete a checkpoint from its route schedule; the others move up. The last one stays (7): delete the route schedule or transmute the checkpoint.',
  right: 'task_update',
  params: z.object({ checkpoint_id: id }),
  handler({ services, owner, params }) {
    const { store } = services;
    store.transaction(() => {
      const cp = ownCheckpointSchedule(services, owner, params.checkpoint_id);
      const rest = store.taskSchedules.checkpoints(cp.parent_id!).filter((c) => c.id !== cp.id);
      if (!rest.length) throw invalidParams([{ parameter: 'checkpoint_id', error: `the only checkpoint of route schedule ${cp.parent_id}: delete the route schedule or transmute the checkpoint` }]);
      const route = store.taskSchedules.get(owner.id, cp.parent_id!)!;
      const drafts = rest.map((c) => ({ id: c.id, draft: draftOf(c) }));
      store.taskSchedules.saveRoute(owner.id, route.id, { ...draftOf(route), ...routeSpan(drafts.map((c) => c.draft)) }, drafts, services.now());
    });
  },
});

const transmute = defineCall({
  path: 'task/schedule/checkpoint/transmute',
  summary: 'Make a checkpoint schedule a task schedule of its own and delete its route schedule with the other checkpoints; answers the tasks it created at once (days its route already created are not created again).',
  right: 'task_update',
  params: z.object({ checkpoint_id: id }),
  handler({ services, owner, params }) {
    const { taskSchedules } = services.store;
    const now = services.now();
    services.store.transaction(() => taskSchedules.transmute(ownCheckpointSchedule(services, owner, params.checkpoint_id), now));
    return { created_task_ids: runSchedule(services, now, taskSchedules.get(owner.id, params.checkpoint_id)) };
  },
});

export const routeScheduleCalls = [create, update, remove, removeCheckpoint, transmute];
