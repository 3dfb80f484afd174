/**
 * The writer thread: the only writer of fixes. Everything that arrives while a transaction runs is
 * committed by the next one (group commit), so one fsync covers many trackers' messages and the
 * main thread's event loop never waits for the disk.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openFixStore, type Synchronous } from '../store/fixes.ts';
import type { PackedRows } from '../core/point.ts';
import { BoundedSender, type ChannelEnd } from '../core/bounded-channel.ts';
import type { CommittedLog } from '../store/retranslators.ts';

interface Job {
  id: number;
  rows: PackedRows;
}

const { dbFile, synchronous } = workerData as { dbFile: string; synchronous: Synchronous };
// FULL: a committed transaction survives power loss, not only a process crash.
const { fixes, close } = openFixStore(dbFile, synchronous);

/**
 * A commit that finds the database locked (SQLITE_BUSY after the connection's 5 s busy timeout:
 * a long processing, retention or backup transaction on a loaded machine) is tried again with what
 * arrived meanwhile, up to this many times in a row, before its devices are told nothing (their
 * connections close and they send again). A failed try rolled back and wrote nothing.
 */
const BUSY_TRIES = 6;
let busyTries = 0;

/** The forwarding engine's hand-off (docs/retranslators.md "Hand-off"): each commit's log entries with their fixes. */
let handOff: BoundedSender<CommittedLog> | null = null;

let queue: Job[] = [];
parentPort!.postMessage({ ready: true });
let scheduled = false;

function commit(): void {
  scheduled = false;
  const jobs = queue;
  queue = [];
  if (!jobs.length) return;
  // from before the commit until its hand-off is posted, the engine knows one is coming (and waits
  // for it rather than read the same entries from the store)
  handOff?.making();
  // the engine keeps up: the commit's log entries are read back for it (behind, it reads them from the store)
  fixes.handOff = handOff?.hasRoom() ?? false;
  try {
    fixes.write(
      jobs.map((j) => j.rows),
      Date.now(),
    );
    const logged = fixes.logged;
    if (logged && handOff) handOff.offer(logged, logged.attrs.length, [logged.values.buffer as ArrayBuffer]);
    handOff?.made();
    busyTries = 0;
    parentPort!.postMessage({ done: jobs.map((j) => j.id) });
  } catch (e) {
    handOff?.made();
    if ((e as { code?: string })?.code === 'SQLITE_BUSY' && ++busyTries < BUSY_TRIES) {
      queue = jobs.concat(queue);
      if (!scheduled) {
        scheduled = true;
        setTimeout(commit, 100 * busyTries);
      }
      return;
    }
    busyTries = 0;
    parentPort!.postMessage({ failed: jobs.map((j) => j.id), error: String((e as Error)?.message ?? e) });
  }
}

parentPort!.on('message', (msg: { jobs?: Job[]; close?: boolean; handOff?: ChannelEnd }) => {
  if (msg.handOff) {
    handOff = new BoundedSender(msg.handOff);
    return;
  }
  if (msg.close) {
    handOff?.close();
    commit();
    close();
    parentPort!.postMessage({ closed: true });
    return;
  }
  queue.push(...msg.jobs!);
  if (!scheduled) {
    scheduled = true;
    setImmediate(commit);
  }
});
