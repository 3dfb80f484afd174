/**
 * Task outcome rules (issue 5; docs/tasks.md). A pure recomputation from facts: the task's window
 * and conditions, the tracker's stays in the task zone (by fix times), the form's submission time
 * and the current time. Same facts, same answer: reprocessing late data is just judging again.
 * No I/O, no clock, no state kept between calls.
 */
import type { Outcome, TaskRow, TaskStatus } from '../store/tasks.ts';
import type { Visit } from './types.ts';

const MINUTE = 60_000;

/** The attached form, if any. `submittedAt`: the FIRST submission (resubmitting must not move completion). */
export interface FormFacts {
  required: boolean;
  submittedAt: number | null;
}

/** What a task (or checkpoint) is judged by. Times are ms UTC. */
export interface TaskFacts {
  /** Only `unassigned` matters (never judged); every other status is recomputed from the facts. */
  status: TaskStatus;
  from: number;
  to: number;
  /** Minutes after `to` during which completion still counts (as delayed). */
  max_delay: number;
  /** Minutes of cumulative stay in the zone needed for completion. */
  min_stay_duration: number;
  form: FormFacts | null;
}

/** The outcome implied by the facts at `now`. */
export interface Judgement {
  status: TaskStatus;
  /** First moment inside the zone within [from, to + max_delay]. */
  arrival_date: number | null;
  /** Whole seconds inside the zone within [from, min(now, to + max_delay)]. */
  stay_duration: number;
  /** When the current status began, by fact times; null for assigned/unassigned (keep the stored one). */
  status_change_date: number | null;
  /** When the task was completed (done, delayed, faulty). */
  completion_date: number | null;
}

/** Facts of a stored task or checkpoint; null when it has no window (a route, or a malformed row). */
export function taskFacts(row: Pick<TaskRow, 'status' | 'from_time' | 'to_time' | 'max_delay' | 'min_stay_duration'>, form: FormFacts | null = null): TaskFacts | null {
  if (row.from_time === null || row.to_time === null) return null;
  return { status: row.status, from: row.from_time, to: row.to_time, max_delay: row.max_delay, min_stay_duration: row.min_stay_duration, form };
}

/** The form hook's pure part: the facts after a submission at `time` (the earliest submission wins). */
export function withFormSubmitted(task: TaskFacts, time: number): TaskFacts {
  const prev = task.form?.submittedAt ?? null;
  return { ...task, form: { required: task.form?.required ?? true, submittedAt: prev === null ? time : Math.min(prev, time) } };
}

/** The last moment completion still counts: `to` plus max_delay (inclusive). */
export const deadline = (t: TaskFacts): number => t.to + t.max_delay * MINUTE;

/** The tracker is inside at instant `t` of a visit: from its first inside fix until its first outside fix. */
const insideOf = (v: Visit, t: number) => v.enter <= t && (v.exit === null || t < v.exit);

/** Presumed inside at `now`: an open visit stays open until a fix says otherwise. */
const insideAt = (visits: readonly Visit[], now: number) => visits.some((v) => insideOf(v, now));

/** Inside spans [start, end), overlaps merged, sorted, clipped to [from, end]. */
function spansWithin(visits: readonly Visit[], from: number, end: number): Array<[number, number]> {
  const sorted = visits.map((v): [number, number] => [v.enter, v.exit ?? Infinity]).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const [a0, b0] of sorted) {
    const a = Math.max(a0, from);
    const b = Math.min(b0, end);
    if (b <= a) continue;
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** First instant inside the zone within [from, end] (both inclusive). */
function arrivalWithin(visits: readonly Visit[], from: number, end: number): number | null {
  let first: number | null = null;
  for (const v of visits) {
    const a = Math.max(v.enter, from);
    if (a <= end && insideOf(v, a) && (first === null || a < first)) first = a;
  }
  return first;
}

/** Total stay within [from, end] and the moment it reached `minStay` (ms); with no minimum, the arrival. */
function stayWithin(visits: readonly Visit[], from: number, end: number, minStay: number) {
  const arrival = arrivalWithin(visits, from, end);
  let reached = minStay <= 0 ? arrival : null;
  let stay = 0;
  for (const [a, b] of spansWithin(visits, from, end)) {
    if (reached === null && stay + (b - a) >= minStay) reached = a + (minStay - stay);
    stay += b - a;
  }
  return { arrival, reached, stay };
}

/** The outcome of one task at `now` (a standalone task, or a checkpoint without its route's order rule). */
export function judgeTask(task: TaskFacts, visits: readonly Visit[], now: number): Judgement {
  const base: Judgement = { status: task.status, arrival_date: null, stay_duration: 0, status_change_date: null, completion_date: null };
  if (task.status === 'unassigned') return base;
  const due = deadline(task);
  const end = Math.min(now, due);
  const { arrival, reached, stay } = stayWithin(visits, task.from, end, task.min_stay_duration * MINUTE);
  const j: Judgement = { status: 'assigned', arrival_date: arrival, stay_duration: Math.floor(stay / 1000), status_change_date: null, completion_date: null };
  const completed = completionTime(task, reached, end);
  if (completed !== null) return { ...j, status: completed <= task.to ? 'done' : 'delayed', status_change_date: completed, completion_date: completed };
  if (now > due) return { ...j, status: 'failed', status_change_date: due };
  if (arrival !== null) return { ...j, status: 'arrived', status_change_date: arrival };
  return j;
}

/** Completion = enough stay and, with a required form, its submission; both by `end` (the deadline or now). */
function completionTime(task: TaskFacts, reached: number | null, end: number): number | null {
  if (reached === null) return null;
  if (!task.form?.required) return reached;
  const sub = task.form.submittedAt;
  return sub !== null && sub <= end ? Math.max(reached, sub) : null;
}

/**
 * The earliest time after `now` at which, with no new facts, the status would change: the window
 * opening while the tracker already sits in the zone, the stay reaching the minimum while inside,
 * or the deadline passing (failed at deadline + 1 ms). Null when nothing is due (final statuses).
 */
export function nextDueTime(task: TaskFacts, visits: readonly Visit[], now: number): number | null {
  const j = judgeTask(task, visits, now);
  if (j.status !== 'assigned' && j.status !== 'arrived') return null;
  const due = deadline(task);
  let next = due + 1;
  if (insideAt(visits, now)) {
    if (now < task.from) next = Math.min(next, task.from);
    else if (!task.form?.required || (task.form.submittedAt !== null && task.form.submittedAt <= now)) {
      // Inside and the form (if required) already in: done when the stay reaches the minimum.
      const left = task.min_stay_duration * MINUTE - stayMs(task, visits, now);
      if (now + left <= due) next = Math.min(next, now + left);
    }
  }
  return next > now ? next : null;
}

/** Exact stay in ms (the judgement rounds to seconds). */
function stayMs(task: TaskFacts, visits: readonly Visit[], now: number): number {
  return stayWithin(visits, task.from, Math.min(now, deadline(task)), Infinity).stay;
}

/** One checkpoint of a route: its facts and the tracker's stays in its zone. */
export interface CheckpointFacts {
  task: TaskFacts;
  visits: readonly Visit[];
}

/**
 * Checkpoints in route order. A checkpoint completed after a LATER checkpoint was already completed
 * (strictly earlier completion time) was visited out of order: it becomes faulty at its completion.
 * Only the late-completed one is marked, so no checkpoint ever goes back from done.
 */
export function judgeRoute(checkpoints: readonly CheckpointFacts[], now: number): Judgement[] {
  const out = checkpoints.map((c) => judgeTask(c.task, c.visits, now));
  let laterFirst = Infinity; // earliest completion among the checkpoints after the current one
  for (let i = out.length - 1; i >= 0; i--) {
    const c = out[i].completion_date;
    if (c === null) continue;
    if (laterFirst < c) out[i] = { ...out[i], status: 'faulty' };
    laterFirst = Math.min(laterFirst, c);
  }
  return out;
}

/** The earliest due time of any checkpoint (a checkpoint's faultiness changes only at its own completion). */
export function nextRouteDueTime(checkpoints: readonly CheckpointFacts[], now: number): number | null {
  let next: number | null = null;
  for (const c of checkpoints) {
    const t = nextDueTime(c.task, c.visits, now);
    if (t !== null && (next === null || t < next)) next = t;
  }
  return next;
}

/** The judgement as `store.tasks.setOutcome` takes it; null for tasks never judged (unassigned). */
export function toOutcome(j: Judgement, now: number): Outcome | null {
  if (j.status === 'unassigned') return null;
  return { status: j.status, at: j.status_change_date ?? now, arrival_date: j.arrival_date, stay_duration: j.stay_duration, completion_date: j.completion_date };
}
