/**
 * Runs the telemetry pipeline over what the gateway stored, in rounds: a round takes the pending
 * windows of many devices (each device in at most one round at a time: per-device order), sends
 * them to a Piscina worker as one task, and writes all results in one transaction. Work to do is
 * the `telemetry_pending` table, written in the same transaction as the fixes, so nothing committed
 * is ever skipped, also across restarts. In-order data continues from the stored tail state; late
 * data restarts from the checkpoint before it, and everything derived from there on is replaced.
 */
import { Piscina } from 'piscina';
import { cpus } from 'node:os';
import type { Store } from '../store/index.ts';
import type { RoundResult, RoundTask, WindowTask } from '../../workers/telemetry.ts';
import { encodeColumns } from './batch.ts';

export interface SchedulerOptions {
  dbFile: string;
  threads?: number;
  /** Start the worker threads at once (default) rather than on the first round. */
  warm?: boolean;
  /** Most points in one round, and per device per round (a longer window continues next round). */
  roundPoints?: number;
  windowPoints?: number;
  pollMs?: number;
  /** Least time between two windows of one device (default 1 s). */
  minIntervalMs?: number;
  now?: () => number;
  /** Called after a device's window (data from `since` on) was processed and written: tasks are judged there. */
  onProcessed?(trackerIds: number[], since: number): void;
  log?(msg: string, data?: Record<string, unknown>): void;
}

interface Taken {
  sourceId: number;
  version: number;
  from: number;
  trackerIds: number[];
  points: number;
  /** Most points asked for: a window that got this many may have more. */
  limit: number;
}

export class TelemetryScheduler {
  private pool: Piscina;
  private inFlight = new Set<number>();
  private lastDone = new Map<number, number>();
  private rounds = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly maxRounds: number;
  /** Points processed since start. */
  processed = 0;

  constructor(
    private store: Store,
    private opts: SchedulerOptions,
  ) {
    const threads = opts.threads ?? Math.max(1, Math.min(4, cpus().length));
    this.pool = new Piscina({ filename: new URL('../../workers/telemetry-entry.mjs', import.meta.url).href, minThreads: opts.warm === false ? 0 : threads, maxThreads: threads, idleTimeout: 60_000 });
    this.maxRounds = threads * 6;
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.opts.pollMs ?? 250);
    this.timer.unref();
    this.kick();
  }

  /**
   * Look for work shortly (the gateway calls it after each commit): a short wait gathers more of a
   * device's points into one window, since each window costs reads and writes on this thread.
   */
  soon(delayMs = 200): void {
    if (this.soonTimer || this.closed) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = undefined;
      this.kick();
    }, delayMs);
    this.soonTimer.unref();
  }
  private soonTimer?: NodeJS.Timeout;

  /** Look for work now. */
  kick(): void {
    while (!this.closed && this.rounds < this.maxRounds) {
      const round = this.takeRound();
      if (!round) return;
      this.rounds++;
      this.runRound(round.task, round.taken)
        .catch((e) => this.opts.log?.('telemetry round failed', { error: String((e as Error)?.stack ?? e) }))
        .finally(() => {
          this.rounds--;
          const done = Date.now();
          for (const t of round.taken) {
            this.inFlight.delete(t.sourceId);
            this.lastDone.set(t.sourceId, done);
          }
          if (this.lastDone.size > 100_000) this.lastDone.clear();
          // Only what is already waiting: fresh data is gathered by soon().
          if (!this.closed) setImmediate(() => this.kick());
        });
    }
  }

  /** Resolves true when nothing is pending or in flight (tests, benchmarks), false on timeout. */
  idle(timeoutMs = 60_000): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    return new Promise((resolve) => {
      const check = () => {
        this.kick();
        if (!this.rounds && !this.store.telemetry.pending(1).length) return resolve(true);
        if (Date.now() > end) return resolve(false);
        setTimeout(check, 20);
      };
      check();
    });
  }

  /** The windows of one round: pending devices not in flight, up to the point budget. */
  private takeRound(): { task: RoundTask; taken: Taken[] } | undefined {
    const { store } = this;
    // Small rounds: reading and writing a round blocks this thread, so it must stay short (API latency).
    const budget = this.opts.roundPoints ?? 2_000;
    const perWindow = this.opts.windowPoints ?? 5_000;
    const now = (this.opts.now ?? Date.now)();
    const geoVersion = store.telemetry.geoVersion();
    const windows: WindowTask[] = [];
    const taken: Taken[] = [];
    const transfer: ArrayBuffer[] = [];
    let points = 0;
    const rested = Date.now() - (this.opts.minIntervalMs ?? 1000);
    for (const p of store.telemetry.pending(512)) {
      if (points >= budget) break;
      if (this.inFlight.has(p.source_id)) continue;
      // A device processed a moment ago waits a little: its next window then carries more points
      // (each window costs reads and writes on this thread).
      if ((this.lastDone.get(p.source_id) ?? 0) > rested) continue;
      const tail = store.telemetry.tail(p.source_id);
      let from: number;
      let state: string | null;
      if (tail && p.from_time > tail.time) {
        from = tail.time + 1; // in order: continue
        state = tail.state;
      } else {
        const cp = store.telemetry.checkpoint(p.source_id, p.from_time); // late: from the checkpoint before it
        from = cp?.time ?? 0;
        state = cp?.state ?? null;
      }
      const limit = Math.min(perWindow, budget - points);
      const pts = store.telemetry.pointColumns(p.source_id, from, limit);
      this.inFlight.add(p.source_id);
      const trackers = store.trackers.bySource(p.source_id);
      const trackerIds = trackers.map((t) => t.id);
      taken.push({ sourceId: p.source_id, version: p.version, from, trackerIds, points: pts.n, limit });
      if (!pts.n) continue; // nothing with a location: cleared after the round
      const bytes = encodeColumns(pts);
      transfer.push(bytes.buffer as ArrayBuffer);
      const fuel = trackers.length ? store.employees.byTracker(trackers[0].id)?.fuel_consumption : undefined;
      windows.push({
        sourceId: p.source_id,
        ownerIds: [...new Set(trackers.map((t) => t.user_id))],
        trackerIds,
        settings: store.telemetry.settings(p.source_id),
        fuelPer100Km: fuel || undefined,
        state,
        from,
        points: bytes,
      });
      points += pts.n;
    }
    if (!taken.length) return undefined;
    return { task: { dbFile: this.opts.dbFile, geoVersion, now, windows, transfer, write: [] }, taken };
  }

  private async runRound(task: RoundTask, taken: Taken[]): Promise<void> {
    const { transfer, ...payload } = task;
    // The worker processes the windows and writes their results through its own connection: the
    // writes are off this thread (SQLite serializes them with the gateway's commits).
    const windows = taken.map((t) => ({ sourceId: t.sourceId, from: t.from, version: t.version, complete: t.points < t.limit }));
    const result: RoundResult = await this.pool.run({ ...payload, write: windows }, { transferList: transfer });
    this.processed += result.processed;
    for (const t of taken) if (result.written.includes(t.sourceId)) this.opts.onProcessed?.(t.trackerIds, t.from);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    clearTimeout(this.soonTimer);
    while (this.rounds) await new Promise((r) => setTimeout(r, 10));
    await this.pool.destroy();
  }
}
