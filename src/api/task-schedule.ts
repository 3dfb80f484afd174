/**
 * Task schedules (ours, issue 12; docs/schedules.md): the spec's task `origin` value `scheduled`
 * needs something that schedules; these calls manage it. Changes need task_update, like tasks.
 * Creating or updating a schedule creates its due tasks at once; the runner does the rest.
 * list, read and delete take route schedules too (documented; ./route-schedule.ts makes them).
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import type { TaskScheduleRow } from '../store/task-schedules.ts';
import { checkpointScheduleView, routeScheduleView } from '../tasks/route-schedules.ts';
import { runSchedule } from '../tasks/schedule-run.ts';
import { MAX_SCHEDULES, scheduleDraft, scheduleInput, scheduleView } from '../tasks/schedules.ts';
import { defineCall } from './kernel.ts';
import { id } from './schemas.ts';

const notFound = (scheduleId: number) => new DomainError(201, {}, `Not found in the database: task schedule ${scheduleId}`);

/** A task or route schedule entry as list and read answer it. */
const entryView = (s: TaskScheduleRow, tz: string) => (s.type === 'route' ? routeScheduleView(s, tz) : scheduleView(s, tz));

const list = defineCall({
  path: 'task/schedule/list',
  summary: "The user's task schedules, or route schedules with types (documented, default [\"task\"]); optionally those of some trackers (unassigned ones too), whose label or description contains filter, carrying all of tag_ids.",
  params: z.object({
    trackers: z.array(id).optional(),
    filter: z.string().max(200).optional(),
    tag_ids: z.array(id).optional(),
    types: z.array(z.enum(['task', 'route'])).optional(),
  }),
  handler({ services, owner, user, params }) {
    const { trackers, tag_ids: tagIds } = params;
    const types: string[] = params.types?.length ? params.types : ['task'];
    const filter = params.filter?.toLowerCase();
    const list = services.store.taskSchedules.list(owner.id).filter((s) => {
      if (!types.includes(s.type)) return false;
      if (trackers && s.tracker_id !== null && !trackers.includes(s.tracker_id)) return false;
      if (filter && !s.label.toLowerCase().includes(filter) && !s.description.toLowerCase().includes(filter)) return false;
      if (tagIds?.length) {
        const tags = new Set(s.tags ? (JSON.parse(s.tags) as number[]) : []);
        if (!tagIds.every((t) => tags.has(t))) return false;
      }
      return true;
    });
    return { list: list.map((s) => entryView(s, user.time_zone)) };
  },
});

const read = defineCall({
  path: 'task/schedule/read',
  summary: 'One task, route or checkpoint schedule, by id (documented) or schedule_id (ours before, still read); a route comes with its checkpoints.',
  params: z.object({ id: id.optional(), schedule_id: id.optional() }),
  handler({ services, owner, user, params }) {
    const scheduleId = params.id ?? params.schedule_id;
    if (scheduleId === undefined) throw invalidParams([{ parameter: 'id', error: 'required' }]);
    const s = services.store.taskSchedules.get(owner.id, scheduleId);
    if (!s) throw notFound(scheduleId);
    const tz = user.time_zone;
    if (s.type === 'checkpoint') return { value: checkpointScheduleView(s, tz) };
    if (s.type === 'route') return { value: routeScheduleView(s, tz), checkpoints: services.store.taskSchedules.checkpoints(s.id).map((c) => checkpointScheduleView(c, tz)) };
    return { value: scheduleView(s, tz) };
  },
});

const create = defineCall({
  path: 'task/schedule/create',
  summary: 'Create a task schedule; answers its id and the tasks it created at once.',
  right: 'task_update',
  params: z.object({ schedule: scheduleInput }),
  async handler({ services, owner, params }) {
    if (services.store.taskSchedules.count(owner.id) >= MAX_SCHEDULES) throw new DomainError(268, {}, `Over quota: at most ${MAX_SCHEDULES} task schedules`);
    const draft = await scheduleDraft(services, owner, params.schedule);
    const now = services.now();
    const scheduleId = services.store.taskSchedules.create(owner.id, draft, now);
    const created = runSchedule(services, now, services.store.taskSchedules.get(owner.id, scheduleId));
    return { id: scheduleId, created_task_ids: created };
  },
});

const update = defineCall({
  path: 'task/schedule/update',
  summary: 'Replace a task schedule (identified by schedule.id); tasks already created stay as they are.',
  right: 'task_update',
  params: z.object({ schedule: scheduleInput.extend({ id }) }),
  async handler({ services, owner, params }) {
    // Documented: 204 for an unknown schedule here (201 is the code of an unknown tracker). A route
    // schedule or one of its checkpoints changes through task/schedule/route/update.
    const check = () => {
      const row = services.store.taskSchedules.get(owner.id, params.schedule.id);
      if (row?.type !== 'task') throw new DomainError(204, {}, `Entity not found: task schedule ${params.schedule.id}${row ? ` (a ${row.type} schedule: task/schedule/route/update changes it)` : ''}`);
    };
    check();
    const draft = await scheduleDraft(services, owner, params.schedule);
    const now = services.now();
    // Checked again in the write: the schedule may have been deleted while the address was looked up.
    services.store.transaction(() => {
      check();
      services.store.taskSchedules.update(owner.id, params.schedule.id, draft, now);
    });
    return { created_task_ids: runSchedule(services, now, services.store.taskSchedules.get(owner.id, params.schedule.id)) };
  },
});

const remove = defineCall({
  path: 'task/schedule/delete',
  summary: 'Delete a task or route schedule (a route with its checkpoints); the tasks and routes it created stay.',
  right: 'task_update',
  params: z.object({ schedule_id: id }),
  handler({ services, owner, params }) {
    const row = services.store.taskSchedules.get(owner.id, params.schedule_id);
    // One checkpoint goes through task/schedule/checkpoint/delete or task/schedule/route/update.
    if (!row || row.type === 'checkpoint') throw notFound(params.schedule_id);
    services.store.taskSchedules.delete(owner.id, params.schedule_id);
  },
});

export const taskScheduleCalls = [list, read, create, update, remove];
