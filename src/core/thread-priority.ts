/**
 * The CPU priority of the calling thread, one mechanism for every background thread (the telemetry
 * workers, the forwarding thread): on Linux a priority set with pid 0 applies to the calling thread
 * only, so a background thread yields the CPU to the gateway's threads and the API. Answers whether
 * it was applied (lowering always is; raising a lowered priority again needs privileges).
 */
import { setPriority } from 'node:os';

export function threadPriority(nice: number): boolean {
  try {
    setPriority(0, nice);
    return true;
  } catch {
    // not permitted here: the thread stays as it is
    return false;
  }
}
