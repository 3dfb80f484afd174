/**
 * Retention (issue 15, docs/operations.md#retention): each tracker's history is kept for its
 * tariff's track storage period, or the operator's FSM_RETENTION_DAYS when that is shorter. A pass
 * walks the devices one by one and deletes, per device, what lies before its horizon in small write
 * transactions (`stepRows` rows each), yielding to the event loop and the gateway's writer between
 * two steps, so ingest and the API go on while it runs. Media files the device sent go too.
 */
import { BackgroundPass, type PassLog } from './background-pass.ts';
import { readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { mediaFolder, mediaReceived } from '../core/media.ts';
import type { Store } from '../store/index.ts';
import { RETENTION_TABLES, type RetentionTable } from '../store/retention.ts';

export const DAY_MS = 86_400_000;

export interface RetentionOptions {
  /** FSM_RETENTION_DAYS: the longest any tracker's data is kept (0: only the tariffs decide). */
  days: number;
  /** Rows deleted per write transaction. */
  stepRows: number;
  /** Rest between two steps, ms (0: just yield to the event loop). */
  pauseMs: number;
}

export interface RetentionDeps {
  store: Store;
  now: () => number;
  /** The gateway's media folder (<data>/media): files devices sent before the horizon go too. */
  mediaDir?: string;
}

export type Deleted = Record<RetentionTable | 'media', number>;

export interface RetentionProgress {
  /** Devices (trackers' sources) looked at so far, and in all. */
  done: number;
  total: number;
  /** Rows (and media files) deleted so far, per table. */
  deleted: Deleted;
  /** Devices whose history was trimmed in this pass. */
  trimmed: number;
}

/**
 * How long a tracker's data is kept, in days: the shorter of its tariff's period and the global
 * setting, where 0 means "no limit" for either; undefined when neither limits it.
 */
export function keepDays(tariffDays: number, globalDays: number): number | undefined {
  const limits = [tariffDays, globalDays].filter((d) => d > 0);
  return limits.length ? Math.min(...limits) : undefined;
}

const emptyDeleted = (): Deleted => ({ tracks: 0, visits: 0, track_points: 0, checkpoints: 0, forward_log: 0, fixes: 0, media: 0 });

/** Total rows in a Deleted. */
export const rowsOf = (d: Deleted): number => RETENTION_TABLES.reduce((s, t) => s + d[t], 0);

/** One pass over every device. `stop()` true ends it after the current step (shutdown). */
export async function runRetention(deps: RetentionDeps, opts: RetentionOptions, onProgress?: (p: RetentionProgress) => void, stop: () => boolean = () => false): Promise<RetentionProgress> {
  const data = deps.store.data;
  const sources = await data.retention.sources();
  const progress: RetentionProgress = { done: 0, total: sources.length, deleted: emptyDeleted(), trimmed: 0 };
  // After a step, the write lock stays free at least as long as the step held it (and `pauseMs`):
  // the gateway's writer thread, waiting on it, gets it between two steps.
  const rest = (heldMs: number) => new Promise<void>((r) => setTimeout(r, Math.max(opts.pauseMs, heldMs)));
  for (const src of sources) {
    if (stop()) break;
    const days = keepDays(src.storage_days, opts.days);
    const now = deps.now();
    const keep = days === undefined ? undefined : await data.retention.begin(src.source_id, now - days * DAY_MS, now);
    if (keep !== undefined) {
      let any = false;
      try {
        for (const table of RETENTION_TABLES) {
          for (;;) {
            if (stop()) break;
            const t0 = performance.now();
            const n = await data.retention.step(src.source_id, table, keep, opts.stepRows);
            progress.deleted[table] += n;
            any ||= n > 0;
            if (n) await rest(performance.now() - t0);
            if (n < opts.stepRows) break;
          }
        }
      } finally {
        await data.retention.end(src.source_id);
      }
      if (deps.mediaDir && !stop()) progress.deleted.media += await removeMedia(deps.mediaDir, src.device_id, keep - DAY_MS);
      if (any) progress.trimmed++;
    }
    progress.done++;
    onProgress?.(progress);
    await new Promise((r) => setImmediate(r));
  }
  return progress;
}

/** Gives free pages back to the file system in small steps (databases with INCREMENTAL auto-vacuum). */
export async function giveSpaceBack(store: Store, pagesPerStep = 128, pauseMs = 10, stop: () => boolean = () => false): Promise<number> {
  let freed = 0;
  for (;;) {
    if (stop()) return freed;
    const t0 = performance.now();
    const n = await store.data.retention.vacuumStep(pagesPerStep);
    freed += n;
    if (n < pagesPerStep) return freed;
    await new Promise((r) => setTimeout(r, Math.max(pauseMs, performance.now() - t0)));
  }
}

/**
 * Media files of the device received before `before` (a day before the kept history begins: a file
 * is named by when it arrived, its record by the device's clock). Answers how many were deleted.
 */
async function removeMedia(mediaDir: string, deviceId: string, before: number): Promise<number> {
  const dir = join(mediaDir, mediaFolder(deviceId));
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0; // no media from this device
  }
  let n = 0;
  for (const name of names) {
    const received = mediaReceived(name);
    if (received === undefined || received >= before) continue;
    try {
      await unlink(join(dir, name));
      n++;
    } catch {
      /* gone meanwhile */
    }
  }
  return n;
}

/** The background retention pass (src/retention/background-pass.ts): every `intervalMinutes`, one at a time. */
export class RetentionService extends BackgroundPass<RetentionProgress> {
  constructor(
    private deps: RetentionDeps,
    private opts: RetentionOptions & { intervalMinutes: number },
    log: PassLog,
  ) {
    super('retention', opts.intervalMinutes, log);
  }

  /** The first pass a minute after start, then every interval. */
  override start(firstDelayMs = 60_000): void {
    super.start(firstDelayMs);
  }

  /** One pass, then free pages given back. */
  protected async pass(stop: () => boolean): Promise<RetentionProgress> {
    const p = await runRetention(this.deps, this.opts, undefined, stop);
    const freed = await giveSpaceBack(this.deps.store, 128, this.opts.pauseMs, stop);
    if (rowsOf(p.deleted) || p.deleted.media) this.log('info', 'retention pass', { trackers: p.done, trimmed: p.trimmed, ...p.deleted, freedPages: freed });
    return p;
  }
}
