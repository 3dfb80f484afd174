/**
 * `npm run fsm -- compact`: one compaction pass now over everything past the horizon, with progress
 * on the terminal, then the freed pages given back to the file system (docs/storage.md).
 */
import type { Store } from '../store/index.ts';
import { giveSpaceBack } from './retention.ts';
import { compactionHorizon, runCompaction, type CompactionProgress } from './compaction.ts';

const MiB = 1048576;
const fmt = (n: number) => n.toLocaleString('en');
const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;

export async function compactCommand(
  store: Store,
  config: { compaction: { afterHours: number; pauseMs: number } },
  out: (text: string, obj?: Record<string, unknown>) => void,
  json: boolean,
): Promise<void> {
  const started = Date.now();
  const tty = !!process.stderr.isTTY;
  const used = async () => {
    const s = await store.data.retention.space();
    return s.bytes - s.freeBytes;
  };
  const before = await used();
  const waiting = await store.data.compaction.rowsBefore(compactionHorizon(started, config.compaction.afterHours));
  let shown = -1;
  const line = (p: CompactionProgress) => `compact: ${p.done}/${p.total} trackers, ${fmt(p.fixes)}/${fmt(waiting)} fixes into ${fmt(p.chunks)} chunks (${mib(p.bytes)})`;
  const progress = (p: CompactionProgress) => {
    if (json) return;
    // On a terminal every step, on one line; elsewhere one line per tenth of the fixes (and at the end).
    const tenth = waiting ? Math.floor((p.fixes / waiting) * 10) : 10;
    if (!tty && tenth === shown && p.done < p.total) return;
    if (!tty && p.done === p.total && shown === 11) return;
    shown = p.done === p.total ? 11 : tenth;
    process.stderr.write(tty ? `\r${line(p)}` : `${line(p)}\n`);
  };
  const p = await runCompaction({ store, now: Date.now }, config.compaction, progress);
  if (tty && !json) process.stderr.write('\n');
  const freed = await giveSpaceBack(store, 1024, config.compaction.pauseMs);
  const after = await used();
  const space = await store.data.retention.space();
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  out(
    `compaction done in ${secs} s: ${p.done} trackers, ${fmt(p.fixes)} fixes into ${fmt(p.chunks)} chunks (${mib(p.bytes)}); database ${mib(before)} before, ${mib(after)} after; ${space.incremental ? `${mib(freed * space.pageSize)} given back to the file system` : `${mib(space.freeBytes)} free in the file for new data`}`,
    { trackers: p.done, fixes: p.fixes, chunks: p.chunks, chunk_bytes: p.bytes, bytes_before: before, bytes_after: after, freed_pages: freed },
  );
}
