// Piscina entry of the report workers (src/reports/queue.ts): lowers the thread's CPU priority,
// registers the TypeScript loader in the thread, then hands Piscina the generator (workers/report.ts).
import { setPriority } from 'node:os';
import { register } from 'tsx/esm/api';

// A long report yields the CPU to the main thread (API answers) and to the telemetry core: on Linux
// a priority set with pid 0 applies to the calling thread only.
try {
  setPriority(0, 10);
} catch {
  // Not permitted here: run at the normal priority.
}

register();
const reports = await import('./report.ts');
export default reports.default;
