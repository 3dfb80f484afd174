/**
 * Runs the report schedules (src/reports/schedules.ts): once at start (the latest period missed while
 * the server was down, and reports left unmailed by a crash) and then every minute, so a report is
 * queued within a minute of its run time and mailed within a minute of being ready. The clock is
 * the injected `now`, so tests drive `tick()` with their own.
 */
import { schedule, type ScheduledTask } from 'node-cron';
import { mailReady, queueDue, type ScheduleDeps } from './schedules.ts';

export class ReportScheduleRunner {
  private job: ScheduledTask | undefined;
  /** A round in progress: the start round and a cron round never overlap (a report is mailed once). */
  private busy = false;

  constructor(
    private deps: ScheduleDeps,
    private onError: (message: string, error: unknown) => void,
  ) {}

  start(expression = '* * * * *'): void {
    void this.tick();
    this.job = schedule(expression, () => this.tick(), { noOverlap: true });
  }

  /** Queue what is due by the injected clock's now, then mail what is ready. Never throws. */
  async tick(): Promise<{ queued: number[]; mailed: number[] }> {
    if (this.busy) return { queued: [], mailed: [] };
    this.busy = true;
    try {
      return await this.round();
    } finally {
      this.busy = false;
    }
  }

  private async round(): Promise<{ queued: number[]; mailed: number[] }> {
    let queued: number[] = [];
    try {
      queued = await queueDue(this.deps, this.deps.now());
    } catch (e) {
      this.onError('report schedules: queueing failed', e);
    }
    try {
      return { queued, mailed: await mailReady(this.deps) };
    } catch (e) {
      this.onError('report schedules: mailing failed', e);
      return { queued, mailed: [] };
    }
  }

  async stop(): Promise<void> {
    await this.job?.destroy();
    this.job = undefined;
  }
}
