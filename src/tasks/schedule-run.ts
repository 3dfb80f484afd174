/**
 * One round of the task and route schedules (./schedules.ts, ./route-schedules.ts): the runner
 * (./schedule-runner.ts) calls it every 15 minutes, create and update at once for their schedule.
 */
import { applyCreateForm } from '../forms/task-forms.ts';
import type { TaskScheduleRow } from '../store/task-schedules.ts';
import type { TaskDraft } from '../store/tasks.ts';
import { taskTracker, type TaskDeps } from './input.ts';
import { routeOccurrences } from './route-schedules.ts';
import { occurrences } from './schedules.ts';
import { initialStatus } from './states.ts';

/** The task (or checkpoint) a stop gives in a window. */
function taskOf(s: TaskScheduleRow, w: { from: number; to: number }): TaskDraft {
  return {
    label: s.label,
    description: s.description,
    lat: s.lat,
    lng: s.lng,
    address: s.address,
    radius: s.radius,
    from_time: w.from,
    to_time: w.to,
    external_id: s.external_id,
    max_delay: s.max_delay,
    min_stay_duration: s.min_stay_duration,
    form_template_id: null,
    tags: s.tags ? (JSON.parse(s.tags) as number[]) : undefined,
    fields: s.fields ? JSON.parse(s.fields) : undefined,
  };
}

/** The route itself (its window is its checkpoints' span, set by the task store). */
function routeOf(s: TaskScheduleRow): TaskDraft {
  const tags = s.tags ? (JSON.parse(s.tags) as number[]) : [];
  return { label: s.label, description: s.description, lat: null, lng: null, address: '', radius: null, from_time: null, to_time: null, external_id: s.external_id, max_delay: 0, min_stay_duration: 0, form_template_id: null, tags: tags.length ? tags : undefined };
}

/** The runner's round: every enabled schedule of every user (runFor). */
export function runSchedules(deps: TaskDeps, now: number): number[] {
  return runFor(deps, now, deps.store.taskSchedules.enabled());
}

/**
 * The same for one schedule just written (create, update, transmute); nothing when it is gone
 * (a schedule deleted meanwhile must not turn this into a round over every user's schedules).
 */
export function runSchedule(deps: TaskDeps, now: number, only: TaskScheduleRow | undefined): number[] {
  return only ? runFor(deps, now, [only]) : [];
}

/**
 * Create the tasks and routes due by `now` for the schedules: each missing day once, in one
 * transaction per task or route (with its checkpoints). A tracker no longer available gives an
 * unassigned task or route, a deleted template tasks without form; the schedule's last_error
 * says so. Answers the ids of the tasks and routes created.
 */
function runFor(deps: TaskDeps, now: number, schedules: TaskScheduleRow[]): number[] {
  const { store } = deps;
  const created: number[] = [];
  for (const s of schedules) {
    if (!s.enabled || s.type === 'checkpoint') continue;
    const owner = store.users.get(s.user_id);
    if (!owner) continue;
    const route = s.type === 'route';
    const stops = route ? store.taskSchedules.checkpoints(s.id) : [s];
    const days = route ? routeOccurrences(s, stops, now, owner.time_zone) : occurrences(s, now, owner.time_zone).map((o) => ({ day: o.day, windows: [o] }));
    for (const o of days) {
      if (store.taskSchedules.hasDay(s.id, o.day)) continue;
      const what = `the ${s.type} of ${o.day}`;
      const problems: string[] = [];
      let trackerId = s.tracker_id;
      if (trackerId !== null) {
        try {
          taskTracker(deps, owner, trackerId, 201);
        } catch (e) {
          problems.push(`${(e as Error).message}; ${what} was created unassigned`);
          trackerId = null;
        }
      }
      const templates = stops.map((c) => (c.form_template_id === null ? undefined : store.formTemplates.get(owner.id, c.form_template_id)));
      const lost = new Set(stops.filter((c, i) => c.form_template_id !== null && !templates[i]).map((c) => c.form_template_id));
      for (const t of lost) problems.push(`form template ${t} no longer exists; ${route ? `its checkpoints in ${what} have` : `${what} has`} no form`);
      const drafts = stops.map((c, i) => taskOf(c, o.windows[i]));
      const status = initialStatus(trackerId);
      store.transaction(() => {
        const id = route
          ? store.tasks.create(owner.id, { type: 'route', draft: routeOf(s), trackerId, status, origin: 'scheduled', now }, drafts)
          : store.tasks.create(owner.id, { type: 'task', draft: drafts[0], trackerId, status, origin: 'scheduled', now });
        const made = route ? store.tasks.checkpoints(id) : [store.tasks.get(owner.id, id)!];
        made.forEach((t, i) => {
          const template = templates[i];
          if (template) applyCreateForm(deps, owner.id, t, template);
        });
        store.taskSchedules.markDay(s.id, o.day, id);
        store.taskSchedules.setError(s.id, problems.length ? problems.join('; ') : null);
        created.push(id);
      });
    }
  }
  return created;
}
