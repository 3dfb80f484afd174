// Piscina entry of the render workers (src/reports/render/pool.ts): lowers the thread's CPU
// priority, registers the TypeScript loader in the thread, then hands Piscina the renderer.
import { setPriority } from 'node:os';
import { register } from 'tsx/esm/api';

// Building a large file yields the CPU to the main thread (API answers, gateway acknowledgements):
// on Linux a priority set with pid 0 applies to the calling thread only.
try {
  setPriority(0, 10);
} catch {
  // Not permitted here: run at the normal priority.
}

register();
const renderer = await import('./render.ts');
export default renderer.default;
