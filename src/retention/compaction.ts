/**
 * Compaction (issue 15, docs/storage.md): each tracker's processed fixes of whole UTC days older
 * than the horizon (FSM_COMPACT_AFTER_HOURS) move into compact chunks, a chunk per write
 * transaction, resting between two steps as retention does, so ingest and the API go on while it
 * runs. Then the pages it freed go back to the file system (incremental vacuum), as after retention.
 */
import type { Store } from '../store/index.ts';
import { DAY_MS } from '../store/compaction.ts';
import { giveSpaceBack } from './retention.ts';

export interface CompactionOptions {
  /** FSM_COMPACT_AFTER_HOURS: fixes younger than this stay rows (whole days older are compacted). */
  afterHours: number;
  /** Rest between two steps, ms (at least as long as the step held the write lock). */
  pauseMs: number;
}

export interface CompactionProgress {
  /** Devices looked at so far, and in all. */
  done: number;
  total: number;
  fixes: number;
  chunks: number;
  /** Encoded bytes of the chunks written. */
  bytes: number;
}

/** Fixes before this time may be compacted: the start of the UTC day the horizon falls in. */
export function compactionHorizon(now: number, afterHours: number): number {
  return Math.floor((now - afterHours * 3_600_000) / DAY_MS) * DAY_MS;
}

/** One pass over every device. `stop()` true ends it after the current step (shutdown). */
export async function runCompaction(deps: { store: Store; now: () => number }, opts: CompactionOptions, onProgress?: (p: CompactionProgress) => void, stop: () => boolean = () => false): Promise<CompactionProgress> {
  const { store } = deps;
  const sources = store.compaction.sources();
  const p: CompactionProgress = { done: 0, total: sources.length, fixes: 0, chunks: 0, bytes: 0 };
  for (const source of sources) {
    if (stop()) break;
    const horizon = compactionHorizon(deps.now(), opts.afterHours);
    for (let missed = 0; missed < 3; ) {
      if (stop()) break;
      const t0 = performance.now();
      const step = store.compaction.step(source, horizon);
      if (!step) break;
      // The rows changed between reading and writing (late data): read again, a few times at most.
      if (!step.fixes) {
        missed++;
        continue;
      }
      p.fixes += step.fixes;
      p.chunks++;
      p.bytes += step.bytes;
      onProgress?.(p);
      // The write lock stays free at least as long as the step held it: the writer gets it between two steps.
      await new Promise((r) => setTimeout(r, Math.max(opts.pauseMs, performance.now() - t0)));
    }
    p.done++;
    onProgress?.(p);
    await new Promise((r) => setImmediate(r));
  }
  return p;
}

/** Runs a pass every `intervalMinutes` (one at a time), from start(); errors go to `log`. */
export class CompactionService {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<CompactionProgress | undefined> | undefined;
  private stopped = false;

  constructor(
    private deps: { store: Store; now: () => number },
    private opts: CompactionOptions & { intervalMinutes: number },
    private log: (level: 'info' | 'error', msg: string, data?: Record<string, unknown>) => void,
  ) {}

  /** The first pass a few minutes after start (not in the rush of devices reconnecting), then every interval. */
  start(firstDelayMs = 120_000): void {
    if (!this.opts.intervalMinutes) return;
    const tick = (delay: number) => {
      this.timer = setTimeout(() => {
        void this.runOnce().finally(() => !this.stopped && tick(this.opts.intervalMinutes * 60_000));
      }, delay);
      this.timer.unref();
    };
    tick(firstDelayMs);
  }

  /** One pass now (or the one already running), then free pages given back. */
  runOnce(): Promise<CompactionProgress | undefined> {
    this.running ??= (async () => {
      const stop = () => this.stopped;
      const p = await runCompaction(this.deps, this.opts, undefined, stop);
      const freed = p.chunks ? await giveSpaceBack(this.deps.store, 128, this.opts.pauseMs, stop) : 0;
      if (p.chunks) this.log('info', 'compaction pass', { trackers: p.done, fixes: p.fixes, chunks: p.chunks, chunkBytes: p.bytes, freedPages: freed });
      return p;
    })()
      .catch((e) => {
        this.log('error', 'compaction pass failed', { error: String((e as Error)?.message ?? e) });
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
