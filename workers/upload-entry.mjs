// Piscina entry of the upload workers (src/imports/upload-pool.ts): lowers the thread's CPU
// priority, registers the TypeScript loader in the thread, then hands Piscina the task runner.
import { setPriority } from 'node:os';
import { register } from 'tsx/esm/api';

// Parsing a large upload yields the CPU to the main thread (API answers) on a busy machine: on Linux
// a priority set with pid 0 applies to the calling thread only.
try {
  setPriority(0, 10);
} catch {
  // Not permitted here: run at the normal priority.
}

register();
const uploads = await import('./upload.ts');
export default uploads.default;
