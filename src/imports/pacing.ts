/**
 * Long loops of an upload on the main thread (geocoding rows, storing batches) give way to other
 * calls: awaiting promises that are already resolved never lets the event loop take I/O, so the
 * loop yields with setImmediate once it has run for SLICE_MS (a monotonic clock, only for pacing).
 */
import { performance } from 'node:perf_hooks';

/** Main-thread time an upload takes at a stretch before it lets other calls run. */
export const SLICE_MS = 10;

export const yieldToOthers = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class Pacer {
  private since = performance.now();

  constructor(private sliceMs = SLICE_MS) {}

  /** Call between units of work: yields when the current slice is used up. */
  async step(): Promise<void> {
    if (performance.now() - this.since < this.sliceMs) return;
    await yieldToOthers();
    this.since = performance.now();
  }
}
