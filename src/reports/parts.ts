/**
 * One report's trackers shared among the report threads (issue 12, "Speed"; docs/reports.md, "The
 * queue"): a month of a fleet took one thread while the other core idled. The queue runs a *lead*
 * task and `threads - 1` *helper* tasks for a report whose plugin has independent trackers
 * (`perTracker`). Each takes the next tracker index from a shared counter until none is left (so a
 * thread on a busier core simply takes fewer), the helpers post their parts to the lead, and the lead
 * merges every part in tracker order, puts the summary first and writes the body, which is the one a
 * single thread writes.
 *
 * The lead never waits for a helper that has not started: a helper counts itself active before it
 * takes an index, and the lead waits only while some helper is active after the counter ran out. A
 * helper queued behind other work finds nothing left and ends at once; a helper thread that dies
 * (`failed`, set by the queue) fails the report.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/** Slots of the shared Int32Array. */
const NEXT = 0; // the next tracker index to take
const ACTIVE = 1; // helpers started and not yet done
const DONE = 2; // trackers finished (progress)
const FAILED = 3; // 1: a helper's thread died
const SLOTS = 4;

export const newSplitState = () => new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));

/** The queue's word that a helper's thread died: the lead fails the report. */
export const helperDied = (state: Int32Array) => Atomics.store(state, FAILED, 1);

/** What a task of a shared report gets besides the report. */
export type SplitTask = { role: 'lead'; state: Int32Array; helpers: MessagePort[] } | { role: 'helper'; state: Int32Array; lead: MessagePort };

/**
 * A tracker's part: its index in the report's tracker list, its sheet as JSON gzip'd on its own (a
 * gzip member of the body: null when left out), its totals; `gone` for a tracker deleted before it
 * was read (no sheet, not in the summary).
 */
export interface PartEntry {
  index: number;
  sheet: Uint8Array | null;
  totals: unknown;
  gone?: true;
}

/** A helper's message to the lead when it ends. */
export type HelperMessage = { entries: PartEntry[] } | { stopped: true } | { error: string };

/** Indices of `count` trackers, taken one at a time until none is left; `done` (awaited) after each finished one. */
export async function takeTrackers(state: Int32Array, count: number, work: (index: number) => Promise<void>, done: (finished: number) => unknown): Promise<void> {
  for (;;) {
    const i = Atomics.add(state, NEXT, 1);
    if (i >= count) return;
    await work(i);
    await done(Atomics.add(state, DONE, 1) + 1);
  }
}

/** Runs a helper's share: counted active for as long as it may hold an index; the lead hears how it ended. */
export async function helpWith(split: Extract<SplitTask, { role: 'helper' }>, run: () => Promise<PartEntry[]>): Promise<void> {
  Atomics.add(split.state, ACTIVE, 1);
  let message: HelperMessage = { entries: [] };
  try {
    message = { entries: await run() };
  } catch (e) {
    message = e instanceof StoppedPart ? { stopped: true } : { error: (e as Error).message || String(e) };
  } finally {
    // Posted before the count drops: the lead, seeing no helper active, finds every message queued.
    try {
      split.lead.postMessage(message);
    } catch {
      // the lead is gone (the report ended)
    }
    Atomics.sub(split.state, ACTIVE, 1);
    split.lead.close();
  }
}

/** A part ended by the server's stop (the report is queued again). */
export class StoppedPart extends Error {}

/**
 * The lead, its own share done (the counter ran out): waits for the helpers still working and
 * returns their entries. Throws StoppedPart when one was stopped (or `stopping` says so), an Error
 * when one failed or its thread died.
 */
export async function gatherHelpers(split: Extract<SplitTask, { role: 'lead' }>, stopping: () => boolean): Promise<PartEntry[]> {
  const messages: HelperMessage[] = [];
  const drain = () => {
    for (const port of split.helpers) for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) messages.push(m.message as HelperMessage);
  };
  while (Atomics.load(split.state, ACTIVE) > 0 && !Atomics.load(split.state, FAILED)) {
    if (stopping()) throw new StoppedPart();
    drain();
    await new Promise((r) => setTimeout(r, 5));
  }
  drain();
  if (Atomics.load(split.state, FAILED)) throw new Error('a report thread sharing the trackers failed');
  const entries: PartEntry[] = [];
  for (const m of messages) {
    if ('stopped' in m) throw new StoppedPart();
    if ('error' in m) throw new Error(m.error);
    entries.push(...m.entries);
  }
  return entries;
}

/** Every index below `count` taken and finished by some part (none lost to a helper that ended early). */
export function complete(entries: PartEntry[], count: number): boolean {
  const seen = new Uint8Array(count);
  for (const e of entries) seen[e.index] = 1;
  return entries.length === count && seen.every((x) => x === 1);
}
