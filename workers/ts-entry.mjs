// Entry of every worker thread: registers the TypeScript loader in the thread (a loader registered
// by the main thread does not reach workers), then runs the module named in workerData.__entry.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
// a thread started with workerData.nice lowers its own CPU priority first (src/core/thread-priority.ts)
if (workerData?.nice) (await import('../src/core/thread-priority.ts')).threadPriority(workerData.nice);
await import(workerData.__entry);
