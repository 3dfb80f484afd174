/**
 * `npm run fsm -- retention`: one retention pass now, with progress on the terminal (docs/operations.md#retention).
 */
import { join } from 'node:path';
import type { Store } from '../store/index.ts';
import { giveSpaceBack, rowsOf, runRetention, type RetentionProgress } from './retention.ts';

const MiB = 1048576;
const fmt = (n: number) => n.toLocaleString('en');

export async function retentionCommand(
  store: Store,
  config: { dataDir: string; retention: { days: number; stepRows: number; pauseMs: number } },
  out: (text: string, obj?: Record<string, unknown>) => void,
  json: boolean,
): Promise<void> {
  const started = Date.now();
  const tty = !!process.stderr.isTTY;
  let shown = -1;
  const line = (p: RetentionProgress) => `retention: ${p.done}/${p.total} trackers, ${fmt(rowsOf(p.deleted))} rows deleted (${fmt(p.deleted.fixes)} fixes)`;
  const progress = (p: RetentionProgress) => {
    if (json) return;
    // On a terminal every device, on one line; elsewhere one line per tenth of the devices.
    const tenth = p.total ? Math.floor((p.done / p.total) * 10) : 10;
    if (!tty && tenth === shown) return;
    shown = tenth;
    process.stderr.write(tty ? `\r${line(p)}` : `${line(p)}\n`);
  };
  const p = await runRetention({ store, now: Date.now, mediaDir: join(config.dataDir, 'media') }, config.retention, progress);
  if (tty && !json) process.stderr.write('\n');
  const freed = await giveSpaceBack(store, 128, config.retention.pauseMs);
  const space = await store.data.retention.space();
  const d = p.deleted;
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const given = space.incremental ? `${((freed * space.pageSize) / MiB).toFixed(1)} MiB given back to the file system` : `${(space.freeBytes / MiB).toFixed(1)} MiB free in the file for new data`;
  out(
    `retention done in ${secs} s: ${p.done} trackers, ${p.trimmed} trimmed; deleted ${fmt(d.fixes)} fixes, ${fmt(d.track_points)} track point chunks, ${fmt(d.tracks)} trips and parkings, ${fmt(d.visits)} stays, ${fmt(d.checkpoints)} checkpoints, ${fmt(d.forward_log)} forwarding log entries, ${fmt(d.media)} media files; ${given}`,
    { trackers: p.done, trimmed: p.trimmed, deleted: d, freed_pages: freed, database_bytes: space.bytes, free_bytes: space.freeBytes },
  );
}
