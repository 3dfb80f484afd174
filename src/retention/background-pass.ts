/**
 * A pass over stored history that runs by itself in the background (retention, compaction): the
 * first a while after start (not in the rush of devices reconnecting), then every interval, one at a
 * time; on demand with runOnce(); a stop ends a running pass after its current step. Errors are
 * logged, never thrown at the timer.
 */
export type PassLog = (level: 'info' | 'error', msg: string, data?: Record<string, unknown>) => void;

export abstract class BackgroundPass<P> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<P | undefined> | undefined;
  private stopped = false;

  constructor(
    /** What the log says ("retention", "compaction"). */
    private name: string,
    private intervalMinutes: number,
    protected log: PassLog,
  ) {}

  /** One pass; `stop()` says when to end after the current step. */
  protected abstract pass(stop: () => boolean): Promise<P>;

  start(firstDelayMs: number): void {
    if (!this.intervalMinutes) return;
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.runOnce().finally(() => !this.stopped && tick(this.intervalMinutes * 60_000));
      }, delay);
      this.timer.unref();
    };
    tick(firstDelayMs);
  }

  /** One pass now (or the one already running). */
  runOnce(): Promise<P | undefined> {
    this.running ??= this.pass(() => this.stopped)
      .catch((e) => {
        this.log('error', `${this.name} pass failed`, { error: String((e as Error)?.message ?? e) });
        return undefined;
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  /** Ends a running pass after its current step. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}
