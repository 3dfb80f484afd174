/**
 * The writer thread: the only writer of fixes. Everything that arrives while a transaction runs is
 * committed by the next one (group commit), so one fsync covers many trackers' messages and the
 * main thread's event loop never waits for the disk.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openFixStore, type Synchronous } from '../store/fixes.ts';
import type { PackedRows } from '../core/point.ts';

interface Job {
  id: number;
  rows: PackedRows;
}

const { dbFile, synchronous } = workerData as { dbFile: string; synchronous: Synchronous };
// FULL: a committed transaction survives power loss, not only a process crash.
const { fixes, close } = openFixStore(dbFile, synchronous);

let queue: Job[] = [];
parentPort!.postMessage({ ready: true });
let scheduled = false;

function commit(): void {
  scheduled = false;
  const jobs = queue;
  queue = [];
  if (!jobs.length) return;
  try {
    fixes.write(
      jobs.map((j) => j.rows),
      Date.now(),
    );
    parentPort!.postMessage({ done: jobs.map((j) => j.id) });
  } catch (e) {
    parentPort!.postMessage({ failed: jobs.map((j) => j.id), error: String((e as Error)?.message ?? e) });
  }
}

parentPort!.on('message', (msg: { jobs?: Job[]; close?: boolean }) => {
  if (msg.close) {
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
