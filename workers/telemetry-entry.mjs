// Piscina entry of the telemetry workers: lowers the thread's CPU priority, registers the
// TypeScript loader in the thread, then hands Piscina the processor (workers/telemetry.ts).
import { setPriority } from 'node:os';
import { register } from 'tsx/esm/api';

// Processing yields the CPU to the main thread (API answers, gateway acknowledgements) and the
// writer thread: on Linux a priority set with pid 0 applies to the calling thread only.
// FSM_TELEMETRY_NICE (default 10; 0 keeps the normal priority).
try {
  setPriority(0, Number(process.env.FSM_TELEMETRY_NICE ?? 10) || 0);
} catch {
  // Not permitted here: run at the normal priority.
}

register();
const processor = await import('./telemetry.ts');
export default processor.default;
