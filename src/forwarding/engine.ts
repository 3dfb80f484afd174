/**
 * The forwarding engine (docs/retranslators.md): one `Forwarder` per enabled retranslator, started,
 * restarted or stopped as soon as a retranslator or its bindings change (their version moves), the
 * statuses for retranslator/list, and the pruning of log entries every cursor has passed. It runs in
 * its own thread (thread.ts) over its own store connection, so forwarding never waits on the API's
 * event loop nor the API on it. The engine reads and prunes through the asynchronous contract
 * (`store.data`); the forwarders' loop over the log and its fixes (forwarder.ts, log-reader.ts) is
 * the engine's fast path on the synchronous store.
 */
import type { Store } from '../store/index.ts';
import { logRowsOf, type CommittedLog } from '../store/retranslators.ts';
import { Forwarder, type ForwarderOptions } from './forwarder.ts';
import { LogReader, type LogReaderOptions } from './log-reader.ts';
import { forwardProtocol } from './protocols/index.ts';
import type { ForwardStatus } from './types.ts';

export interface EngineOptions extends ForwarderOptions {
  /** How often to look for changes made elsewhere (the admin command) and to refresh backlogs. */
  refreshMs: number;
  /** The shared read of the log (tests and benchmarks; defaults otherwise). */
  logReader?: LogReaderOptions;
}

const PRUNE_CHUNK = 20_000;

export class ForwardingEngine {
  private forwarders = new Map<number, Forwarder>();
  private statuses = new Map<number, ForwardStatus>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private stopped = false;
  private nextCount = 0;
  /** One read of the log for every forwarder of the same trackers. */
  readonly reader: LogReader;

  constructor(
    private store: Store,
    private opts: EngineOptions,
  ) {
    this.reader = new LogReader(store, opts.logReader);
  }

  start(): void {
    void this.changed(); // never rejects (changed)
    const tick = async () => {
      await this.changed();
      await this.refreshBacklogs();
      await this.prune();
      if (!this.stopped) this.timer = setTimeout(tick, this.opts.refreshMs);
    };
    this.timer = setTimeout(tick, this.opts.refreshMs);
  }

  /** Applies changes of retranslators and bindings now (serialized: one sync at a time). */
  changed(): Promise<void> {
    this.syncing = this.syncing.then(() => this.sync()).catch(() => undefined);
    return this.syncing;
  }

  /**
   * The writer's hand-off of a commit (docs/retranslators.md "Hand-off"): kept for the forwarders. The store stays the record: a commit not handed off (or refused) is read from it.
   */
  offer(c: CommittedLog): void {
    // no wake-up: a caught-up forwarder takes what came at its next poll, so a batch carries the
    // commits of a poll interval (a batch per commit cost more per fix: a packet per tracker, a request)
    this.reader.offer({ from: c.from, to: c.to, rows: logRowsOf(c) });
  }

  /** New fixes were committed: caught-up forwarders look at once. */
  poke(): void {
    for (const f of this.forwarders.values()) f.poke();
  }

  status(id: number): ForwardStatus | undefined {
    return this.forwarders.get(id)?.status ?? this.statuses.get(id);
  }

  /** The largest backlog of the running (enabled) retranslators: a disabled one's backlog waits by design. */
  largestBacklog(): number {
    let max = 0;
    for (const f of this.forwarders.values()) max = Math.max(max, f.status.backlog);
    return max;
  }

  /** Every retranslator's status, enabled or not. */
  allStatuses(): Array<[number, ForwardStatus]> {
    const out = new Map(this.statuses);
    for (const [id, f] of this.forwarders) out.set(id, f.status);
    return [...out];
  }

  private async sync(): Promise<void> {
    if (this.stopped) return;
    const data = this.store.data;
    const rows = await data.retranslators.all();
    const boundSources = await data.retranslators.boundSources();
    const seen = new Set<number>();
    // A stopped forwarder sends nothing more (its sessions are closed at once); one still waiting for a
    // connection lets it go when it comes. Not waiting for that keeps changes immediate; a late
    // acknowledgement of the old one can only move a cursor forward (never back), so nothing is skipped.
    const stop = (f: Forwarder) => void f.stop().catch(() => undefined);
    for (const row of rows) {
      seen.add(row.id);
      const running = this.forwarders.get(row.id);
      if (running && running.row.version === row.version && row.enabled) continue;
      if (running) {
        this.forwarders.delete(row.id);
        this.statuses.set(row.id, { ...running.status, connected: false });
        stop(running);
      }
      const protocol = forwardProtocol(row.protocol_id);
      if (!row.enabled || !protocol) {
        const prev = this.statuses.get(row.id);
        this.statuses.set(row.id, { connected: false, lastError: prev?.lastError ?? null, lastErrorTime: prev?.lastErrorTime ?? null, backlog: prev?.backlog ?? (await data.retranslators.backlog(row.id)), lastForwarded: prev?.lastForwarded ?? row.last_forwarded, forwarded: prev?.forwarded ?? 0 });
        continue;
      }
      this.forwarders.set(row.id, new Forwarder(this.store, row, protocol, this.opts, this.statuses.get(row.id), this.reader, boundSources));
    }
    for (const [id, f] of this.forwarders) {
      if (seen.has(id)) continue;
      this.forwarders.delete(id);
      stop(f);
    }
    for (const id of this.statuses.keys()) if (!seen.has(id)) this.statuses.delete(id);
  }

  /**
   * A running forwarder keeps its backlog as a running count (only what was logged since is counted).
   * A stopped one's is counted in full, which scans the log from its oldest cursor on: while that is
   * large, it is counted less often (at most a twentieth of the time goes to it).
   */
  private async refreshBacklogs(): Promise<void> {
    for (const f of this.forwarders.values()) {
      try {
        f.refreshBacklog();
      } catch {
        // busy: the next tick counts
      }
    }
    if (Date.now() < this.nextCount) return;
    const t0 = performance.now();
    try {
      for (const [id, s] of [...this.statuses]) if (!this.forwarders.has(id)) s.backlog = await this.store.data.retranslators.backlog(id);
    } catch {
      // busy: the next tick counts
    }
    this.nextCount = Date.now() + 20 * (performance.now() - t0);
  }

  private async prune(): Promise<void> {
    try {
      while ((await this.store.data.retranslators.prune(PRUNE_CHUNK)) === PRUNE_CHUNK && !this.stopped);
    } catch {
      // busy: the next tick prunes
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.syncing;
    await Promise.all([...this.forwarders.values()].map((f) => f.stop()));
    this.forwarders.clear();
  }
}
