/**
 * The periodic file sweep (docs/files.md): files not uploaded before they expired are deleted,
 * avatars no place, employee or tracker shows any more are deleted, and blobs no file row refers
 * to (their form or check-in was deleted, a crash between rename and commit) are collected, as are
 * temporary files a crash left behind. A blob younger than GRACE_MS is left alone: its upload may
 * be committing its row right now.
 */
import type { FileDeps } from './files.ts';

export const GRACE_MS = 10 * 60_000;
const BATCH = 500;

export interface SweepResult {
  expired: number;
  avatars: number;
  blobs: number;
  temps: number;
}

export async function sweepFiles(deps: Pick<FileDeps, 'store' | 'blobs' | 'now'>, graceMs = GRACE_MS): Promise<SweepResult> {
  const data = deps.store.data;
  const { files } = data;
  const now = deps.now();
  const out: SweepResult = { expired: 0, avatars: 0, blobs: 0, temps: 0 };
  for (;;) {
    const ids = await files.expired(now, BATCH);
    if (!ids.length) break;
    await data.transaction(async (tx) => {
      for (const id of ids) await tx.files.delete(id);
    });
    out.expired += ids.length;
    if (ids.length < BATCH) break;
  }
  for (const a of await files.unusedAvatars(now - graceMs, BATCH)) {
    await files.delete(a.id);
    if (a.storage_key && !(await files.keyUsed(a.storage_key))) await deps.blobs.remove(a.storage_key);
    out.avatars++;
  }
  for await (const b of deps.blobs.walk()) {
    if (b.mtimeMs > now - graceMs || (await files.keyUsed(b.key))) continue;
    await deps.blobs.remove(b.key);
    out.blobs++;
  }
  for (const t of await deps.blobs.staleTemps(now - 24 * 3_600_000)) {
    await deps.blobs.discard(t);
    out.temps++;
  }
  return out;
}

/** Runs the sweep every `seconds` (one at a time; errors go to `log`), from start(). */
export class FileSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  constructor(
    private deps: Pick<FileDeps, 'store' | 'blobs' | 'now'>,
    private seconds: number,
    private log: (msg: string, data?: Record<string, unknown>) => void,
  ) {}
  start(): void {
    // No upload survives a restart: a file left in_progress waits for its bytes again (synchronously,
    // before the first request and the first sweep).
    this.deps.store.files.resetInProgress();
    this.timer = setInterval(() => this.runOnce(), this.seconds * 1000);
    this.timer.unref();
  }
  runOnce(): Promise<unknown> {
    this.running ??= sweepFiles(this.deps)
      .catch((e) => this.log('file sweep failed', { error: String((e as Error)?.message ?? e) }))
      .finally(() => (this.running = undefined));
    return this.running;
  }
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
