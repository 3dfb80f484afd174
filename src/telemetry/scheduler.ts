/**
 * Runs the telemetry pipeline over what the gateway stored, in rounds: a round takes the pending
 * windows of several devices (each device in at most one round at a time: per-device order); one
 * Piscina worker reads their points, processes them, writes all results and the task outcomes they
 * imply in one transaction, and answers what changed; this thread only schedules (docs/telemetry.md). Work to do is
 * the `telemetry_pending` table, written in the same transaction as the fixes, so nothing committed
 * is ever skipped, also across restarts. In-order data continues from the stored tail state; late
 * data restarts from the checkpoint before it, and everything derived from there on is replaced.
 */
import { Piscina } from 'piscina';
import { cpus } from 'node:os';
import type { Store } from '../store/index.ts';
import type { RoundResult, RoundTask, SimplifyTask } from './round.ts';
import type { TrackerSettings } from './types.ts';
import type { Pending } from '../store/telemetry.ts';

export interface SchedulerOptions {
  dbFile: string;
  threads?: number;
  /** Start the worker threads at once (default) rather than on the first round. */
  warm?: boolean;
  /** Devices in one round (default 16). */
  roundDevices?: number;
  /** Most points of one device per round (a longer window continues in the next one). */
  windowPoints?: number;
  pollMs?: number;
  /** Least time between two windows of one device (default 1 s). */
  minIntervalMs?: number;
  /** The clock (every time this scheduler reads; default: the wall clock). */
  now?: () => number;
  /** CPU priority the worker threads lower themselves to (FSM_TELEMETRY_NICE; default 10, 0: normal). */
  nice?: number;
  /** Called with each round's result: the devices written, the task outcomes and visits of the round. */
  onProcessed?(result: RoundResult): void;
  log?(msg: string, data?: Record<string, unknown>): void;
}

/** A window taken into a round, with what processing it needs besides its points. */
interface Taken {
  sourceId: number;
  version: number;
  lateVersion: number;
  from: number;
  state: string | null;
  trackerIds: number[];
  ownerIds: number[];
  settings: TrackerSettings;
  fuelPer100Km?: number;
  /** Points read (known once the round's points are read). */
  points: number;
  /** Most points asked for: a window that got this many may have more. */
  limit: number;
}

export class TelemetryScheduler {
  private pool: Piscina;
  private inFlight = new Set<number>();
  private lastDone = new Map<number, number>();
  private cut = new Set<number>();
  private rounds = 0;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private readonly maxRounds: number;
  /** Points processed since start. */
  processed = 0;
  private readonly now: () => number;

  constructor(
    private store: Store,
    private opts: SchedulerOptions,
  ) {
    const threads = opts.threads ?? Math.max(1, Math.min(4, cpus().length));
    this.now = opts.now ?? Date.now;
    this.pool = new Piscina({
      filename: new URL('../../workers/telemetry-entry.mjs', import.meta.url).href,
      minThreads: opts.warm === false ? 0 : threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      workerData: { nice: opts.nice ?? 10 },
    });
    // One round running and one waiting per thread: rounds are large.
    this.maxRounds = threads * 2;
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.opts.pollMs ?? 250);
    this.timer.unref();
    this.kick();
  }

  /**
   * Look for work shortly (the gateway calls it after each commit): a short wait gathers more of a
   * device's points into one window, since each window costs reads and writes.
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
    if (this.building || this.closed || this.rounds >= this.maxRounds) return;
    this.building = true;
    this.build()
      .catch((e) => this.opts.log?.('telemetry round failed', { error: String((e as Error)?.stack ?? e) }))
      .finally(() => {
        this.building = false;
      });
  }
  private building = false;

  /** Sends rounds while there is work and room in the pool. */
  private async build(): Promise<void> {
    while (!this.closed && this.rounds < this.maxRounds) {
      const round = this.takeRound();
      if (!round) return;
      this.rounds++;
      this.runRound(round)
        .catch((e) => this.opts.log?.('telemetry round failed', { error: String((e as Error)?.stack ?? e) }))
        .finally(() => {
          this.rounds--;
          const done = this.now();
          for (const t of round) {
            this.inFlight.delete(t.sourceId);
            this.lastDone.set(t.sourceId, done);
            // A window cut at its point limit has more waiting: it continues without a rest.
            if (t.points >= t.limit) this.cut.add(t.sourceId);
            else this.cut.delete(t.sourceId);
          }
          if (this.lastDone.size > 100_000) this.lastDone.clear();
          // Only what is already waiting: fresh data is gathered by soon().
          if (!this.closed) setImmediate(() => this.kick());
        });
      await new Promise((r) => setImmediate(r)); // the API and the gateway go between rounds
    }
  }

  /** Resolves true when nothing is pending or in flight (tests, benchmarks), false on timeout. */
  idle(timeoutMs = 60_000): Promise<boolean> {
    return new Promise((resolve) => {
      // A timer, not the clock: an injected clock may stand still.
      let timedOut = false;
      const deadline = setTimeout(() => (timedOut = true), timeoutMs);
      const check = () => {
        if (!this.rounds && !this.building && !this.store.telemetry.pendingAfter(-1, 1).length) {
          clearTimeout(deadline);
          return resolve(true);
        }
        if (timedOut) return resolve(false);
        this.kick();
        setTimeout(check, 20);
      };
      check();
    });
  }

  /**
   * The next pending devices, round robin by source id from where the last round stopped (fair and
   * cheap: a range of the primary key, however many devices wait).
   */
  private candidates(limit: number): Pending[] {
    const rows = this.store.telemetry.pendingAfter(this.cursor, limit);
    if (rows.length < limit && this.cursor >= 0) for (const r of this.store.telemetry.pendingAfter(-1, limit - rows.length)) if (r.source_id <= this.cursor) rows.push(r);
    return rows;
  }
  private cursor = -1;

  /**
   * The windows of one round: pending devices not in flight, where each continues (its tail, or
   * the checkpoint before late data) and what it needs besides its points. No point is read on
   * this thread: a worker reads them (`runRound`).
   */
  private takeRound(): Taken[] | undefined {
    const devices = this.opts.roundDevices ?? 16;
    const perWindow = this.opts.windowPoints ?? 2_000;
    const rested = this.now() - (this.opts.minIntervalMs ?? 1000);
    const taken: Taken[] = [];
    // One read transaction: one snapshot, and one lock instead of one per statement.
    this.store.telemetry.readSnapshot(() => {
      for (const p of this.candidates(256)) {
        if (taken.length >= devices) break;
        this.cursor = p.source_id;
        if (this.inFlight.has(p.source_id)) continue;
        // A device processed a moment ago waits a little: its next window then carries more points
        // (each window costs reads and writes).
        if ((this.lastDone.get(p.source_id) ?? 0) > rested && !this.cut.has(p.source_id)) continue;
        this.inFlight.add(p.source_id);
        taken.push(this.window(p, perWindow));
      }
    });
    return taken.length ? taken : undefined;
  }

  /** One device's window: in-order data continues from the tail; late data restarts from the checkpoint before it. */
  private window(pending: Pending, limit: number): Taken {
    const { store } = this;
    const sourceId = pending.source_id;
    const tail = store.telemetry.tail(sourceId);
    let from: number;
    let state: string | null;
    if (tail && pending.from_time > tail.time) {
      from = tail.time + 1;
      state = tail.state;
    } else {
      const cp = store.telemetry.checkpoint(sourceId, pending.from_time);
      from = cp?.time ?? 0;
      state = cp?.state ?? null;
    }
    const trackers = store.trackers.bySource(sourceId);
    const fuel = trackers.length ? store.employees.byTracker(trackers[0].id)?.fuel_consumption : undefined;
    return {
      sourceId,
      version: pending.version,
      lateVersion: pending.late_version,
      from,
      state,
      trackerIds: trackers.map((t) => t.id),
      ownerIds: [...new Set(trackers.map((t) => t.user_id))],
      settings: store.telemetry.settings(sourceId),
      fuelPer100Km: fuel || undefined,
      points: 0,
      limit,
    };
  }

  /**
   * One pool task per round: the worker reads the windows' points through its own connection,
   * processes them, writes the results with the task outcomes they imply, and answers what changed.
   * Neither points nor visits pass through this thread.
   */
  private async runRound(taken: Taken[]): Promise<void> {
    const task: RoundTask = {
      kind: 'process',
      dbFile: this.opts.dbFile,
      geoVersion: this.store.telemetry.geoVersion(),
      now: this.now(),
      withVisits: !!this.opts.onProcessed,
      stop: this.stopFlag,
      windows: taken.map((t) => ({
        sourceId: t.sourceId,
        ownerIds: t.ownerIds,
        trackerIds: t.trackerIds,
        settings: t.settings,
        fuelPer100Km: t.fuelPer100Km,
        state: t.state,
        from: t.from,
        limit: t.limit,
        version: t.version,
        lateVersion: t.lateVersion,
      })),
    };
    const result: RoundResult = await this.pool.run(task);
    taken.forEach((t, i) => (t.points = result.points[i]));
    this.processed += result.processed;
    this.opts.onProcessed?.(result);
  }

  /** Simplifies a long track line in the pool (off the event loop); the arrays are transferred. */
  async simplify(lat: Float64Array, lng: Float64Array, limit: number): Promise<Int32Array> {
    return this.pool.run({ kind: 'simplify', lat, lng, limit } satisfies SimplifyTask, { transferList: [lat.buffer as ArrayBuffer, lng.buffer as ArrayBuffer] });
  }

  /** Set when closing: running rounds end after their current window (src/telemetry/round.ts). */
  private readonly stopFlag = new Int32Array(new SharedArrayBuffer(4));

  async close(graceMs = 10_000): Promise<void> {
    this.closed = true;
    Atomics.store(this.stopFlag, 0, 1);
    clearInterval(this.timer);
    clearTimeout(this.soonTimer);
    // Running rounds end after their current window; past the grace time the threads are ended,
    // which rolls back a round's unfinished transaction (its windows stay pending: nothing is lost).
    const deadline = Date.now() + graceMs;
    while ((this.rounds || this.building) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.pool.destroy();
  }
}
