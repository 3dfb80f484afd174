/**
 * The main thread's handle on the writer thread. `submit` resolves once the records are committed:
 * only then may a device be acknowledged. It rejects when the store cannot take them (the device
 * then gets no ACK and keeps its buffer).
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from './worker-thread.ts';
import type { DeviceRecord } from '../../protocols/types.ts';
import { pack, type PackedRows } from './packing.ts';
import type { ChannelEnd } from '../core/bounded-channel.ts';

export class StoreUnavailable extends Error {}

export class FixWriter {
  private worker: Worker;
  private next = 1;
  private waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void; at: number; source: number }>();
  private outbox: Array<{ id: number; rows: PackedRows }> = [];
  private flushScheduled = false;
  private dead: Error | null = null;
  private closed?: Promise<void>;
  /** Records committed since start. */
  committed = 0;
  /** Resolves once the writer thread has opened the database. */
  readonly ready: Promise<void>;
  /** Called after every commit (the telemetry core looks for new work then). */
  onCommitted?: () => void;
  /**
   * Called once per group commit with how long its oldest submit waited for it, in seconds
   * (/metrics' commit latency): once per commit, not per record.
   */
  onCommitLatency?: (seconds: number) => void;
  /** Called with the device of each committed submit (the live channel marks its state changed: one Set add, docs/live.md). */
  onStored?: (sourceId: number) => void;

  constructor(dbFile: string, opts: { synchronous?: 'FULL' | 'NORMAL' } = {}) {
    this.worker = startWorker(new URL('./writer-worker.ts', import.meta.url), { dbFile, synchronous: opts.synchronous ?? 'FULL' });
    this.ready = new Promise((resolve, reject) => {
      this.worker.once('message', () => resolve());
      this.worker.once('error', reject);
    });
    this.worker.on('message', (m: { done?: number[]; failed?: number[]; error?: string }) => {
      const oldest = m.done?.length && this.onCommitLatency ? this.waiting.get(m.done[0]) : undefined;
      if (oldest) this.onCommitLatency!((performance.now() - oldest.at) / 1000);
      for (const id of m.done ?? []) this.settle(id);
      for (const id of m.failed ?? []) this.settle(id, new StoreUnavailable(m.error));
      if (m.done?.length) this.onCommitted?.();
    });
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => this.fail(new StoreUnavailable(`writer thread exited (${code})`)));
  }

  private settle(id: number, error?: Error) {
    const w = this.waiting.get(id);
    if (!w) return;
    this.waiting.delete(id);
    if (error) return w.reject(error);
    w.resolve();
    this.onStored?.(w.source);
  }

  private fail(e: Error) {
    this.dead ??= e;
    for (const id of [...this.waiting.keys()]) this.settle(id, e instanceof StoreUnavailable ? e : new StoreUnavailable(e.message));
  }

  /** False once the writer thread failed or exited: nothing more can be committed (/ready). */
  get alive(): boolean {
    return this.dead === null && !this.closed;
  }

  /** How many submits wait for their commit (the gateway applies backpressure on it). */
  get pending(): number {
    return this.waiting.size;
  }

  submit(sourceId: number, records: DeviceRecord[], now: number): Promise<void> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    const rows = pack(sourceId, records, now);
    const p = new Promise<void>((resolve, reject) => this.waiting.set(id, { resolve: () => ((this.committed += records.length), resolve()), reject, at: performance.now(), source: sourceId }));
    this.outbox.push({ id, rows });
    // One message per event-loop turn carries every submit of that turn.
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    return p;
  }

  private flush() {
    this.flushScheduled = false;
    if (!this.outbox.length) return;
    const jobs = this.outbox;
    this.outbox = [];
    this.worker.postMessage({ jobs }, jobs.map((j) => j.rows.values.buffer as ArrayBuffer));
  }

  /**
   * Hands each commit's forwarding log entries with their fixes to the other end's thread (the
   * forwarding engine, wired in src/main.ts), from the next commit on.
   */
  handOff(end: ChannelEnd): void {
    this.worker.postMessage({ handOff: end }, [end.port]);
  }

  /** Commit what is queued, then stop the thread. */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.flush();
      if (this.dead) return resolve();
      this.worker.once('message', () => undefined);
      this.worker.on('message', (m: { closed?: boolean }) => {
        if (m.closed) this.worker.terminate().then(() => resolve());
      });
      this.worker.postMessage({ close: true });
    });
    return this.closed;
  }
}
