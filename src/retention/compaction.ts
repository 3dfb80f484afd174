/**
 * Compaction (issue 15, docs/storage.md): each tracker's processed fixes of whole UTC days older
 * than the horizon (FSM_COMPACT_AFTER_HOURS) move into compact chunks, a chunk per write
 * transaction, resting between two steps as retention does, so ingest and the API go on while it
 * runs. Then the pages it freed go back to the file system (incremental vacuum), as after retention.
 */
import { BackgroundPass, type PassLog } from './background-pass.ts';
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

/** The background compaction pass (src/retention/background-pass.ts): every `intervalMinutes`, one at a time. */
export class CompactionService extends BackgroundPass<CompactionProgress> {
  constructor(
    private deps: { store: Store; now: () => number },
    private opts: CompactionOptions & { intervalMinutes: number },
    log: PassLog,
  ) {
    super('compaction', opts.intervalMinutes, log);
  }

  /** The first pass a few minutes after start, then every interval. */
  override start(firstDelayMs = 120_000): void {
    super.start(firstDelayMs);
  }

  /** One pass, then free pages given back. */
  protected async pass(stop: () => boolean): Promise<CompactionProgress> {
    const p = await runCompaction(this.deps, this.opts, undefined, stop);
    const freed = p.chunks ? await giveSpaceBack(this.deps.store, 128, this.opts.pauseMs, stop) : 0;
    if (p.chunks) this.log('info', 'compaction pass', { trackers: p.done, fixes: p.fixes, chunks: p.chunks, chunkBytes: p.bytes, freedPages: freed });
    return p;
  }
}
