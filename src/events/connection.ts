/**
 * The connection watcher (issue 12; docs/events.md "Connection"): a timer on the main thread that
 * records connection_lost when a tracker has sent nothing for a while and connection_restored
 * when it sends again. It reads what the gateway's writer keeps with every commit (the device's
 * last receipt), so every transport (TCP, UDP, HTTP) counts, and a restart loses nothing: the
 * lost devices are a table, not memory.
 */
import type { Store } from '../store/index.ts';
import type { ConnectionChanges } from '../store/events.ts';

export class ConnectionWatcher {
  private timer?: NodeJS.Timeout;
  constructor(
    private store: Store,
    private opts: { lostSeconds: number; checkSeconds: number },
    private now: () => number,
    private log?: (msg: string, data?: Record<string, unknown>) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.check().catch((e: unknown) => this.log?.('connection check failed', { error: String((e as Error)?.stack ?? e) }));
    }, this.opts.checkSeconds * 1000);
    this.timer.unref();
  }
  stop(): void {
    clearInterval(this.timer);
  }

  /** One check: the devices recorded as lost and as restored. */
  check(): Promise<ConnectionChanges> {
    return this.store.data.events.checkConnections(this.now(), this.opts.lostSeconds * 1000);
  }
}
