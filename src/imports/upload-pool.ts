/**
 * The shared upload mechanism (issue 10): every file upload's CPU work (unzip, parse, geometry:
 * src/imports/upload-tasks.ts) runs in a small Piscina pool (workers/upload.ts), so a large or
 * hostile file never holds the event loop; the main thread only stores the result, in batches
 * (src/imports/pacing.ts). The worker's heap is capped: a file that still exhausts it answers 234.
 */
import { Piscina } from 'piscina';
import { DomainError } from '../core/errors.ts';
import { runUploadTask, type UploadResult, type UploadTask } from './upload-tasks.ts';

/** Runs an upload task somewhere and answers its result or throws its DomainError. */
export interface UploadRunner {
  run(task: UploadTask): Promise<UploadResult>;
}

/** Heap of an upload worker at most (MB): a parse that needs more fails alone, the server stays. */
export const UPLOAD_WORKER_HEAP_MB = 512;

export class UploadPool implements UploadRunner {
  private pool: Piscina;

  constructor(opts: { threads?: number } = {}) {
    this.pool = new Piscina({
      filename: new URL('../../workers/upload-entry.mjs', import.meta.url).href,
      minThreads: 0,
      maxThreads: opts.threads ?? 1,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: UPLOAD_WORKER_HEAP_MB },
    });
  }

  async run(task: UploadTask): Promise<UploadResult> {
    let answer;
    try {
      answer = await this.pool.run(task);
    } catch (e) {
      // The worker died (out of its heap) or threw something unexpected: the file is the cause.
      if ((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw new DomainError(234, {}, 'Invalid data format: the file needs more memory to read than an upload may use');
      throw e;
    }
    return unwrap(answer);
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

/** The same work on the calling thread: for tools and tests that build services without a pool. */
export const inlineUploads: UploadRunner = {
  async run(task) {
    return unwrap(runUploadTask(task));
  },
};

function unwrap(answer: ReturnType<typeof runUploadTask>): UploadResult {
  if (!answer.ok) throw new DomainError(answer.code, answer.extra, answer.description);
  return answer.result;
}
