/**
 * The render pool: report files are built in a small Piscina pool (workers/render.ts), so a
 * thousand-page PDF or a large workbook never holds the event loop. One thread by default: files
 * are rare next to telemetry, each render is CPU-bound, and a second waits its turn in the queue.
 */
import { Piscina } from 'piscina';
import { fileKind, type FileFormat, type RenderOptions, type RenderedFile, type ReportFiles, type ReportInput } from './index.ts';

/** Heap of a render worker at most (MB): a file that needs more fails alone, the server stays. */
export const RENDER_WORKER_HEAP_MB = 1024;

export interface RenderTask {
  format: FileFormat;
  report: ReportInput;
  options: RenderOptions;
}

export class RenderPool implements ReportFiles {
  private pool: Piscina;

  constructor(opts: { threads?: number } = {}) {
    this.pool = new Piscina({
      filename: new URL('../../../workers/render-entry.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: opts.threads ?? 1,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: RENDER_WORKER_HEAP_MB },
    });
  }

  async render(format: FileFormat, report: ReportInput, options: RenderOptions): Promise<RenderedFile> {
    const kind = fileKind(format); // an unknown format fails here, before a thread is woken
    // JSON bytes are moved to the worker in a copy of their own: the caller's buffer may be shared
    // (Buffer's pool) or one Node does not let go (zlib's output is not transferable on Node 24).
    const bytes = report instanceof Uint8Array ? new Uint8Array(report) : undefined;
    const task: RenderTask = { format, report: bytes ?? report, options };
    // The worker answers the file's bytes, transferred rather than copied.
    const body = (await this.pool.run(task, bytes ? { transferList: [bytes.buffer as ArrayBuffer] } : {})) as Uint8Array;
    return { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), ...kind };
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
