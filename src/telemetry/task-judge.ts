/**
 * Applies the task outcome rules (src/telemetry/task-outcome.ts) to stored tasks. Two callers:
 * the telemetry worker, right after it wrote a window's results and inside that transaction, from
 * the visits the window itself computed (`judgeAfterWindow`: nothing it wrote is read back, and the
 * outcomes come back to the main thread with the round's result); and the main thread's timer
 * (`TaskJudge`), every minute, for time-based transitions (failed when the deadline passes, done
 * after enough stay while still inside). Outcomes are recomputed from the facts each time, so
 * restarts and late data need nothing special.
 */
import type { Visit } from '../core/telemetry.ts';
import type { JudgedTask, TelemetryStore } from '../store/telemetry.ts';
import type { TaskStatus } from '../store/tasks.ts';
import type { TrackerStore } from '../store/trackers.ts';
import { judgeRoute, judgeTask, taskFacts, toOutcome, type FormFacts } from './task-outcome.ts';

/** An outcome written for a task or checkpoint. */
export interface TaskChange {
  id: number;
  /** The status before judging. */
  previous: TaskStatus;
  status: TaskStatus;
  /** When the status changed (ms UTC). */
  at: number;
  arrival_date: number | null;
  stay_duration: number;
  completion_date: number | null;
}

/** The stays of a task's tracker in the task's own zone. */
export type VisitsOfTask = (t: JudgedTask) => Visit[];

/** A task's form as the outcome rules see it: every attached form is required (spec: Form). */
export const formFactsOf = (t: Pick<JudgedTask, 'has_form' | 'form_submitted'>): FormFacts | null => (t.has_form ? { required: true, submittedAt: t.form_submitted ?? null } : null);

/** Judge these tasks (and the whole route of any checkpoint among them), write and return the outcomes. */
export function judgeTasks(telemetry: TelemetryStore, tasks: JudgedTask[], visitsOf: VisitsOfTask, now: number): TaskChange[] {
  // One transaction: each outcome with its event (a savepoint inside a window's write).
  return telemetry.transaction(() => judgeAll(telemetry, tasks, visitsOf, now));
}

function judgeAll(telemetry: TelemetryStore, tasks: JudgedTask[], visitsOf: VisitsOfTask, now: number): TaskChange[] {
  const changes: TaskChange[] = [];
  const apply = (t: JudgedTask, j: ReturnType<typeof judgeTask> | null) => {
    const o = j && toOutcome(j, now);
    if (!o) return;
    const change: TaskChange = { id: t.id, previous: t.status, status: o.status, at: o.at, arrival_date: o.arrival_date ?? null, stay_duration: o.stay_duration ?? 0, completion_date: o.completion_date ?? null };
    telemetry.setTaskOutcome(t.id, { status: change.status, at: change.at, arrival_date: change.arrival_date, stay_duration: change.stay_duration, completion_date: change.completion_date });
    // The event log (docs/events.md): a change of status only (re-judging to the same one records nothing).
    if (change.previous !== change.status) telemetry.recordTaskStatus(t, change.previous, change.status, change.at);
    changes.push(change);
  };
  const routes = new Set<number>();
  for (const t of tasks) {
    if (t.type === 'checkpoint' && t.route_id !== null) routes.add(t.route_id);
    else {
      const facts = taskFacts(t, formFactsOf(t));
      apply(t, facts && judgeTask(facts, visitsOf(t), now));
    }
  }
  for (const routeId of routes) {
    const cps = telemetry.checkpointsOf(routeId).filter((c) => c.status !== 'unassigned');
    const facts = cps.map((c) => ({ task: taskFacts(c, formFactsOf(c))!, visits: visitsOf(c) })).filter((f) => f.task);
    judgeRoute(facts, now).forEach((j, i) => apply(cps[i], j));
  }
  return changes;
}

/** What a processed window tells the judge: its device, that device's trackers, where it started and the visits it computed. */
export interface ProcessedWindow {
  sourceId: number;
  trackerIds: number[];
  from: number;
  visits: Visit[];
}

/**
 * Judge the tasks of a window's trackers after its results were written (call inside that write
 * transaction). A task's stays are the stored ones that ended before the window (the window left
 * them alone) plus the window's own; only a checkpoint of a route driven by another device reads
 * that device's stays.
 */
export function judgeAfterWindow(telemetry: TelemetryStore, w: ProcessedWindow, now: number): TaskChange[] {
  const visitsOf: VisitsOfTask = (t) => {
    const source = w.trackerIds.includes(t.tracker_id) ? w.sourceId : telemetry.sourceOfTracker(t.tracker_id);
    if (source === undefined) return [];
    if (source !== w.sourceId) return telemetry.visitsOf(source, 'task', t.id);
    const own = w.visits.filter((v) => v.kind === 'task' && v.id === t.id);
    return [...telemetry.visitsEndedBefore(source, 'task', t.id, w.from), ...own];
  };
  return judgeTasks(telemetry, telemetry.tasksToJudge(w.trackerIds, w.from), visitsOf, now);
}

/** Tasks judged per transaction by the timer: the event loop answers calls and frames between slices. */
export const JUDGE_SLICE = 200;
/**
 * How long a slice may hold the event loop: slices shrink (to no fewer than JUDGE_SLICE_MIN tasks)
 * until they take about this long. Failing ~90,000 overdue tasks (bench/forms' data, a year of
 * tasks) took 73 ms of CPU per slice of 200 on average on the loaded 2-core machine, and every API
 * call that arrived meanwhile waited for it.
 */
export const JUDGE_SLICE_MS = 10;
const JUDGE_SLICE_MIN = 10;

/** The main thread's minute timer: time-based transitions of open tasks, from the stored stays. */
export class TaskJudge {
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;
  private stopped = false;
  constructor(
    private telemetry: TelemetryStore,
    private trackers: TrackerStore,
    private now: () => number,
    private opts: { slice?: number; sliceMs?: number; log?: (msg: string, error: unknown) => void } = {},
  ) {}

  /** Check due transitions every `ms` (within a minute of their due time, as the issue asks). */
  start(ms = 30_000): void {
    this.timer = setInterval(() => void this.judgeDue().catch((e) => this.opts.log?.('task judge round failed', e)), ms);
    this.timer.unref();
  }
  /** Stops the timer; a round under way ends after its current slice. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.round;
  }

  /**
   * One round over every open task that may be due now, a slice per transaction with a turn of the
   * event loop between slices, each slice sized to hold the loop about JUDGE_SLICE_MS: thousands of
   * overdue tasks (a large import, a server that was down) never hold the API still. A round still
   * running when the next is due is not started twice.
   */
  judgeDue(): Promise<void> {
    this.round ??= (async () => {
      try {
        const now = this.now();
        const most = this.opts.slice ?? JUDGE_SLICE;
        const budgetMs = this.opts.sliceMs ?? JUDGE_SLICE_MS;
        let slice = most;
        let after = 0;
        while (!this.stopped) {
          const t0 = performance.now();
          const tasks = this.telemetry.tasksDue(now, after, slice);
          if (tasks.length) this.judge(tasks);
          if (tasks.length < slice) break;
          after = tasks[tasks.length - 1].id;
          // The next slice sized to the time budget at this slice's pace.
          const ms = Math.max(performance.now() - t0, 0.01);
          slice = Math.max(Math.min(JUDGE_SLICE_MIN, most), Math.min(most, Math.round((slice * budgetMs) / ms)));
          await new Promise((r) => setImmediate(r));
        }
      } finally {
        this.round = undefined;
      }
    })();
    return this.round;
  }

  judge(tasks: JudgedTask[]): TaskChange[] {
    const visitsOf: VisitsOfTask = (t) => {
      // A tracker's device (and its clones share it): stays in the task's own zone.
      const sourceId = this.trackers.getAny(t.tracker_id)?.source_id;
      return sourceId === undefined ? [] : this.telemetry.visitsOf(sourceId, 'task', t.id);
    };
    return judgeTasks(this.telemetry, tasks, visitsOf, this.now());
  }
}
