/**
 * bench/forward-drain --live: the gateway's side in a thread of its own (so the engine's thread does
 * only the engine's work): fixes of the trackers in turn, packed and submitted to the writer thread
 * (FixWriter) every 10 ms at the given rate; the writer hands its commits off on the given channel end.
 * Posts how many fixes were committed, then `done`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ChannelEnd } from '../src/core/bounded-channel.ts';
import { FixWriter } from '../src/gateway/writer.ts';

const { dbFile, sources, rate, total, t0, attrs, handOff } = workerData as { dbFile: string; sources: number[]; rate: number; total: number; t0: number; attrs: string; handOff?: ChannelEnd };
const fw = new FixWriter(dbFile, { synchronous: 'NORMAL' });
await fw.ready;
if (handOff) fw.handOff(handOff);
const record = JSON.parse(attrs) as Record<string, number | boolean>;
const perTick = Math.max(1, Math.round(rate / 100));
const start = performance.now();
const commits: Array<Promise<void>> = [];
let written = 0;
for (let tick = 0; written < total; tick++) {
  const wait = start + tick * 10 - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  for (let k = 0; k < perTick && written < total; k++, written++) {
    const i = written % sources.length;
    const round = Math.floor(written / sources.length);
    commits.push(fw.submit(sources[i], [{ time: t0 + round * 1000, lat: 55.75 + i * 1e-3 + round * 1e-5, lng: 37.61 + round * 1e-5, altitude: 120, speed: 40, course: 90, satellites: 9, hdop: 0.9, valid: true, attributes: record }], Date.now()));
  }
  if (tick % 10 === 0) parentPort!.postMessage({ written });
}
await Promise.all(commits);
await fw.close();
parentPort!.postMessage({ written, done: (performance.now() - start) / 1000 });
