// Piscina entry of the telemetry workers: lowers the thread's CPU priority, registers the
// TypeScript loader in the thread, then hands Piscina the processor (workers/telemetry.ts).
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

// Processing yields the CPU to the main thread (API answers, gateway acknowledgements) and the
// writer thread: on Linux a priority set with pid 0 applies to the calling thread only.
// The priority comes validated from the scheduler (FSM_TELEMETRY_NICE in src/config.ts).
register();
(await import('../src/core/thread-priority.ts')).threadPriority(workerData?.nice ?? 10);
const processor = await import('./telemetry.ts');
export default processor.default;
