/**
 * The xlsx of a big report, started when the report is retrieved (issue 12, "Speed"; docs/reports.md,
 * "Files"). A client that reads a report's JSON mostly downloads its file next, and a month of a
 * fleet's trips takes seconds to render: started at the retrieve, the file is ready (or nearly) when
 * the download asks, which then answers it instead of rendering again from the stored body.
 *
 * Why at the retrieve and not when the report is ready: a report nobody reads (a schedule's, mailed
 * as its own format) costs nothing, and a retrieve comes a moment after ready. What can be wasted is
 * one render of a report read as JSON only, in the render thread (lowered priority); only bodies of
 * at least `minBytes` of JSON are started (a small file renders in well under a second on demand).
 * At most `max` files are kept, each for `ttlMs`: the render is the same function over the same stored
 * JSON the download would hand it, so the file is the one the download renders.
 */
import type { RenderedFile, ReportFiles } from './index.ts';

export interface EarlyXlsxOptions {
  /** Files kept at most (the oldest goes first). */
  max?: number;
  /** How long a file is kept after it was started. */
  ttlMs?: number;
  /** Smallest report JSON whose xlsx is started at the retrieve. */
  minBytes?: number;
  now?: () => number;
}

export class EarlyXlsx {
  private readonly kept = new Map<number, { started: number; file: Promise<RenderedFile> }>();
  private readonly max: number;
  private readonly ttlMs: number;
  private readonly minBytes: number;
  private readonly now: () => number;

  constructor(
    private readonly files: ReportFiles,
    opts: EarlyXlsxOptions = {},
  ) {
    this.max = opts.max ?? 4;
    this.ttlMs = opts.ttlMs ?? 10 * 60_000;
    this.minBytes = opts.minBytes ?? 1 << 20;
    this.now = opts.now ?? Date.now;
  }

  /** Report `id` was retrieved, its JSON at hand: its xlsx starts rendering when it is big and not kept yet. */
  retrieved(id: number, json: Uint8Array): void {
    this.expire();
    if (json.byteLength < this.minBytes || this.kept.has(id)) return;
    this.keep(id, this.render(json));
  }

  /** The xlsx of report `id`: the one started at its retrieve, else rendered now from `json()`. */
  async xlsx(id: number, json: () => Promise<Uint8Array>): Promise<RenderedFile> {
    this.expire();
    const early = this.kept.get(id);
    if (early) {
      try {
        return await early.file;
      } catch {
        this.kept.delete(id); // failed early: rendered again below, its error answered if it fails again
      }
    }
    return this.render(await json());
  }

  /** The report was deleted. */
  forget(id: number): void {
    this.kept.delete(id);
  }

  private render(json: Uint8Array): Promise<RenderedFile> {
    return this.files.render('xlsx', json, { headless: false });
  }

  private keep(id: number, file: Promise<RenderedFile>): void {
    file.catch(() => {}); // a failure is the download's to answer (xlsx above), not an unhandled rejection
    this.kept.set(id, { started: this.now(), file });
    while (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
  }

  private expire(): void {
    const now = this.now();
    for (const [id, k] of this.kept) if (now - k.started > this.ttlMs) this.kept.delete(id);
  }
}
