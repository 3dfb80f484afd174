/**
 * Applies the task outcome rules (src/telemetry/task-outcome.ts) to stored tasks: after a device's
 * window is processed (visits may have changed), and every minute for time-based transitions
 * (failed when the deadline passes, done after enough stay while still inside). Outcomes are
 * recomputed from the facts each time, so restarts and late data need nothing special.
 */
import type { JudgedTask, TelemetryStore } from '../store/telemetry.ts';
import type { TrackerStore } from '../store/trackers.ts';
import { judgeRoute, judgeTask, taskFacts, toOutcome, type Judgement } from './task-outcome.ts';

export class TaskJudge {
  private timer?: NodeJS.Timeout;
  constructor(
    private telemetry: TelemetryStore,
    private trackers: TrackerStore,
    private now: () => number = Date.now,
  ) {}

  /** Re-judge the tasks of these trackers after data from `since` on was (re)processed. */
  afterProcessing(trackerIds: number[], since: number): void {
    this.judge(this.telemetry.tasksToJudge(trackerIds, since));
  }

  /** Check due transitions every `ms` (within a minute of their due time, as the issue asks). */
  start(ms = 30_000): void {
    this.timer = setInterval(() => this.judge(this.telemetry.tasksDue(this.now())), ms);
    this.timer.unref();
  }
  stop(): void {
    clearInterval(this.timer);
  }

  judge(tasks: JudgedTask[]): void {
    const now = this.now();
    const routes = new Set<number>();
    for (const t of tasks) {
      if (t.type === 'checkpoint' && t.route_id !== null) routes.add(t.route_id);
      else this.apply(t, this.judgeOne(t, now), now);
    }
    for (const routeId of routes) {
      const cps = this.telemetry.checkpointsOf(routeId).filter((c) => c.status !== 'unassigned');
      const facts = cps.map((c) => ({ task: taskFacts(c)!, visits: this.visits(c) })).filter((f) => f.task);
      judgeRoute(facts, now).forEach((j, i) => this.apply(cps[i], j, now));
    }
  }

  private visits(t: JudgedTask) {
    // A tracker's device (and its clones share it): stays in the task's own zone.
    const sourceId = this.trackers.getAny(t.tracker_id)?.source_id;
    return sourceId === undefined ? [] : this.telemetry.visitsOf(sourceId, 'task', t.id);
  }

  private judgeOne(t: JudgedTask, now: number): Judgement | null {
    const facts = taskFacts(t);
    return facts && judgeTask(facts, this.visits(t), now);
  }

  private apply(t: JudgedTask, j: Judgement | null, now: number): void {
    const o = j && toOutcome(j, now);
    if (!o) return;
    this.telemetry.setTaskOutcome(t.id, { status: o.status, at: o.at, arrival_date: o.arrival_date ?? null, stay_duration: o.stay_duration ?? 0, completion_date: o.completion_date ?? null });
  }
}
