// Entry of every worker thread: registers the TypeScript loader in the thread (a loader registered
// by the main thread does not reach workers), then runs the module named in workerData.__entry.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.__entry);
