/**
 * Runs the task and route schedules (src/tasks/schedule-run.ts): once at start (catching up
 * whatever came due while the server was down) and then on a cron expression, every 15 minutes by
 * default. The clock is the injected `now`, so tests drive `tick()` with their own.
 */
import { schedule, type ScheduledTask } from 'node-cron';
import type { TaskDeps } from './input.ts';
import { runSchedules } from './schedule-run.ts';

export class TaskScheduleRunner {
  private job: ScheduledTask | undefined;

  constructor(
    private deps: TaskDeps,
    private onError: (message: string, error: unknown) => void,
  ) {}

  start(expression = '*/15 * * * *'): void {
    this.tick();
    this.job = schedule(expression, () => void this.tick(), { noOverlap: true });
  }

  /** Create every task due by the injected clock's now; answers their ids. Never throws. */
  tick(): number[] {
    try {
      return runSchedules(this.deps, this.deps.now());
    } catch (e) {
      this.onError('task schedules: a round failed', e);
      return [];
    }
  }

  async stop(): Promise<void> {
    await this.job?.destroy();
    this.job = undefined;
  }
}
