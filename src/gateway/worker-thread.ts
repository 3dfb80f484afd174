/** Start a TypeScript module in a worker thread (see workers/ts-entry.mjs). */
import { Worker, type WorkerOptions } from 'node:worker_threads';

const entry = new URL('../../workers/ts-entry.mjs', import.meta.url);

export function startWorker(module: URL, workerData: Record<string, unknown>, opts: Omit<WorkerOptions, 'workerData'> = {}): Worker {
  return new Worker(entry, { ...opts, workerData: { ...workerData, __entry: module.href } });
}
