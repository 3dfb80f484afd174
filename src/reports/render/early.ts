/**
 * The xlsx of a big report, started when a report a client asked for is ready, or else when it is
 * retrieved (issue 12, "Speed"; docs/reports.md, "Files"). A client that reads a report's JSON mostly
 * downloads its file next, and a month of a fleet's trips takes seconds to render: started early, the
 * file is ready (or nearly) when the download asks, which then answers it instead of rendering again
 * from the stored body.
 *
 * Only reports asked through the API start when ready (`asked`, then `ready`): a schedule's report is
 * mailed as its own format and nobody downloads it. Started at ready rather than at the retrieve, the
 * render overlaps the client's polling and its retrieve of the JSON (bench/reports: 0.6 s of 29 MiB).
 * A server restarted in between starts it at the retrieve. What can be wasted is one render of a
 * report read as JSON only, in the render thread (lowered priority); only bodies of
 * at least `minBytes` of JSON are started (a small file renders in well under a second on demand).
 * At most `max` files are kept, each for `ttlMs`: the render is the same function over the same stored
 * JSON the download would hand it, so the file is the one the download renders.
 */
import type { RenderedFile, ReportFiles } from './index.ts';

/** Asked reports remembered at most (each a number; one that fails or is deleted unseen goes eventually). */
const ASKED_MAX = 1000;

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
  /** Reports asked through the API and not ready yet (the oldest dropped past ASKED_MAX: one never ready). */
  private readonly asked = new Set<number>();
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

  /** A client asked for report `id` (report/tracker/generate): its xlsx may start when it is ready. */
  askedFor(id: number): void {
    this.asked.add(id);
    if (this.asked.size > ASKED_MAX) this.asked.delete(this.asked.values().next().value!);
  }

  /**
   * Report `id` is ready: when a client asked for it, its JSON is read (`json`, off the event loop)
   * and its xlsx started as at a retrieve. A retrieve meanwhile starts it once only.
   */
  ready(id: number, json: () => Promise<Uint8Array | undefined>): void {
    if (!this.asked.delete(id)) return;
    json().then(
      (j) => j && this.retrieved(id, j),
      () => {}, // not read: the retrieve or the download starts it
    );
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
    this.asked.delete(id);
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
