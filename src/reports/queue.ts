/**
 * The report queue (issue 12; docs/reports.md). Reports wait in the `reports` table; this main-thread
 * object hands the oldest queued ones to a small Piscina pool of its own (workers/report.ts), at most
 * `threads` at once (the global limit; the telemetry core's pool is another one), and records how
 * each ended. The worker reads, generates and writes through its own connection, so the event loop
 * only dispatches. Every state is in the table: at start, reports a crash left running are queued
 * again, or failed with the reason once they were tried `maxAttempts` times; a clean stop queues the
 * running ones again without counting the try. No report stays at a percent forever.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Geocoder, GeocoderType } from '../geocoder/types.ts';
import type { Store } from '../store/index.ts';
import type { AddressAnswer, AddressAsk, ReportOutcome, ReportTask, StoredParams } from './generate.ts';
import { helperDied, newSplitState } from './parts.ts';
import { PLUGINS } from './plugins/index.ts';

/** What the API needs of the queue: to be told of a new report. */
export interface ReportRunner {
  poke(): void;
}

export interface ReportQueueOptions {
  dbFile: string;
  /** Reports generated at once (FSM_REPORT_THREADS, default 2). */
  threads: number;
  /** Tries before a report that keeps being interrupted is failed (FSM_REPORT_ATTEMPTS, default 3). */
  maxAttempts: number;
  /** Answers the workers' address questions (the API's geocoder). */
  geocoder: Geocoder;
  /** The geocoder types `geocoder` answers from the offline data alone: workers look those up themselves. */
  offlineTypes?: readonly GeocoderType[];
  now?: () => number;
  log?(msg: string, data?: Record<string, unknown>): void;
}

/** Address asks of a worker looked up at once (docs/reports.md, "The queue"). */
export const ADDRESS_SLICE = 32;

/** Heap of a report worker at most (MB): a report that needs more fails alone. */
export const REPORT_WORKER_HEAP_MB = 1024;

export class ReportQueue implements ReportRunner {
  private pool: Piscina;
  private running = new Map<number, Promise<void>>();
  private stop = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;
  /** A dispatch is scheduled or running. */
  private scheduled = false;
  /** Poked while a dispatch ran: dispatch once more after it. */
  private pokedAgain = false;
  private readonly now: () => number;

  constructor(
    private store: Store,
    private opts: ReportQueueOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.pool = new Piscina({
      filename: new URL('../../workers/report-entry.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: opts.threads,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: REPORT_WORKER_HEAP_MB },
    });
  }

  /** Recover what a crash left running, then generate what is queued. */
  async start(): Promise<void> {
    const data = this.store.data;
    for (const r of await data.reports.running()) {
      if (r.attempts >= this.opts.maxAttempts) await data.reports.fail(r.id, `generation was interrupted ${r.attempts} times (server stopped or crashed during it)`, this.now());
      else await data.reports.requeue(r.id, false);
    }
    this.poke();
  }

  /**
   * A report was queued (or a slot freed): dispatch soon, once per turn of the event loop. One
   * dispatch at a time (it awaits the store): a poke while one runs makes it go round once more.
   */
  poke(): void {
    if (this.closed) return;
    if (this.scheduled) {
      this.pokedAgain = true;
      return;
    }
    this.scheduled = true;
    setImmediate(() => void this.dispatch());
  }

  private async dispatch(): Promise<void> {
    try {
      do {
        this.pokedAgain = false;
        await this.pump();
      } while (this.pokedAgain && !this.closed);
    } catch (e) {
      this.opts.log?.('report queue failed', { error: (e as Error).message });
    } finally {
      this.scheduled = false;
    }
  }

  /** Reports being generated now. */
  get active(): number {
    return this.running.size;
  }

  /** Resolves when nothing is queued or running (tests), false after `ms`. */
  async idle(ms: number): Promise<boolean> {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (!this.running.size && !(await this.store.data.reports.nextQueued(1)).length) return true;
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  private async pump(): Promise<void> {
    if (this.closed) return;
    const free = this.opts.threads - this.running.size;
    if (free <= 0) return;
    const data = this.store.data;
    for (const r of await data.reports.nextQueued(free)) {
      if (this.closed || !(await data.reports.start(r.id))) continue;
      const done: Promise<void> = this.generate(r.id).finally(() => {
        // Only its own entry: ids are never reused (migration 034), but an entry is never taken
        // for another generation's either.
        if (this.running.get(r.id) === done) this.running.delete(r.id);
        this.poke();
      });
      this.running.set(r.id, done);
    }
  }

  private async generate(id: number): Promise<void> {
    // A report of independent trackers (the plugin's `perTracker`) is shared with helper tasks, one
    // per further thread: its trackers are generated on every core (src/reports/parts.ts). The lead
    // goes first into the pool, so it runs even when the helpers wait for a thread.
    const data = this.store.data;
    const helpers = await this.helpersFor(id);
    const state = helpers ? newSplitState() : undefined;
    const links = Array.from({ length: helpers }, () => new MessageChannel());
    const lead = this.run({ dbFile: this.opts.dbFile, id, stop: this.stop, offlineTypes: this.opts.offlineTypes, ...(state ? { split: { role: 'lead', state, helpers: links.map((l) => l.port1) } } : {}) }, links.map((l) => l.port1));
    for (const l of links) {
      // A helper's outcome is the lead's to report; a helper whose thread died fails the report there.
      this.run({ dbFile: this.opts.dbFile, id, stop: this.stop, offlineTypes: this.opts.offlineTypes, split: { role: 'helper', state: state!, lead: l.port2 } }, [l.port2]).catch(() => helperDied(state!));
    }
    let outcome: ReportOutcome;
    try {
      outcome = await lead;
    } catch (e) {
      // The worker died (out of its heap, or destroyed by close): tried again up to maxAttempts.
      if (this.closed) return;
      const row = await data.reports.byId(id);
      this.opts.log?.('report worker failed', { report: id, error: (e as Error).message });
      if (row && row.attempts >= this.opts.maxAttempts) await data.reports.fail(id, `generation failed ${row.attempts} times: ${(e as Error).message}`, this.now());
      else await data.reports.requeue(id, false);
      return;
    }
    if (outcome.kind === 'failed') {
      this.opts.log?.('report failed', { report: id, error: outcome.error });
      await data.reports.fail(id, outcome.error, this.now());
    } else if (outcome.kind === 'stopped') await data.reports.requeue(id, true);
  }

  /** Helper tasks for a report: one per further thread when its plugin's trackers are independent and it has several. */
  private async helpersFor(id: number): Promise<number> {
    const row = await this.store.data.reports.byId(id);
    if (!row || !PLUGINS.get(row.plugin_id)?.perTracker) return 0;
    const trackers = (JSON.parse(row.params) as StoredParams).trackers.length;
    return Math.max(0, Math.min(this.opts.threads, trackers) - 1);
  }

  /** One task of a report in the pool, with a port of its own for address asks. */
  private async run(task: Omit<ReportTask, 'addresses'>, transfer: MessagePort[]): Promise<ReportOutcome> {
    const { port1, port2 } = new MessageChannel();
    // Batches are answered one after another, a slice at a time (answer below).
    let answering = Promise.resolve();
    port1.on('message', (asks: AddressAsk[]) => {
      answering = answering.then(() => this.answer(port1, asks));
    });
    try {
      return (await this.pool.run({ ...task, addresses: port2 }, { transferList: [port2, ...transfer] })) as ReportOutcome;
    } finally {
      port1.close();
    }
  }

  /**
   * A batch of a worker's address asks, ADDRESS_SLICE at a time, each slice answered in one message:
   * a batch of thousands never holds the event loop (offline look-ups are synchronous) nor sends
   * more than a slice of requests at once to a remote geocoder.
   */
  private async answer(port: MessagePort, asks: AddressAsk[]): Promise<void> {
    for (let i = 0; i < asks.length; i += ADDRESS_SLICE) {
      if (i) await new Promise((r) => setImmediate(r));
      const slice = asks.slice(i, i + ADDRESS_SLICE);
      const answers = await Promise.all(
        slice.map((a) =>
          // Background work: `ui` lets a failing remote provider be skipped at once (docs/geocoder.md).
          this.opts.geocoder.reverse(a.lat, a.lng, { type: a.type as GeocoderType, lang: a.lang, goal: 'ui' }).then(
            (r): AddressAnswer => ({ n: a.n, address: r?.address ?? '' }),
            (): AddressAnswer => ({ n: a.n, address: '' }),
          ),
        ),
      );
      if (this.closed) return;
      try {
        port.postMessage(answers);
      } catch {
        return; // the report ended (its port is closed)
      }
    }
  }

  /** Stop: running reports end at their next tracker and are queued again (the try not counted). */
  async close(ms = 5000): Promise<void> {
    this.closed = true;
    Atomics.store(this.stop, 0, 1);
    const all = Promise.all(this.running.values());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
    const left = [...this.running.keys()];
    await this.pool.destroy();
    // Still running after the wait: destroyed mid-way; queued again for the next start.
    for (const id of left) await this.store.data.reports.requeue(id, true);
  }
}
