/**
 * Compaction's SQL (issue 15, docs/storage.md): a device's processed rows of `fixes` older than the
 * horizon move into chunks of `fix_chunks` (migration 031), one small IMMEDIATE write transaction
 * per chunk, like retention's steps: the gateway's writer thread commits between two of them, and a
 * crash between two loses nothing (a chunk and the deletion of its rows commit together).
 *
 * The slow part, encoding, runs outside the write lock: the write transaction only checks the
 * rows are unchanged and swaps them for the chunk.
 *
 * A chunk holds a run of consecutive rows of one device within one UTC day and not reaching into
 * another chunk's span, at most CHUNK_FIXES (a longer run is cut into equal parts). With it go the
 * packed track points of its span (track reads decode the chunk instead) and the telemetry
 * checkpoints inside it but the earliest (late data there restarts from that one, or from the one
 * before the chunk).
 */
import type { DB } from './db.ts';
import { encodeFixChunk, type StoredFix } from '../core/fix-chunk.ts';
import { emptyColumns } from '../core/point.ts';
import { TrackPointStore } from './track-points.ts';

/** Most fixes in a chunk: a day of 10 s fixes (8,640) is three; reopening one for late data rewrites at most this many rows. */
export const CHUNK_FIXES = 4096;
export const DAY_MS = 86_400_000;

/** What one step did (0 fixes: the rows changed meanwhile, nothing written; try again). */
export interface CompactStep {
  fixes: number;
  /** Bytes of the chunk written. */
  bytes: number;
}

export class CompactionStore {
  private s;
  private points: TrackPointStore;

  constructor(private db: DB) {
    this.points = new TrackPointStore(db);
    this.s = {
      sources: db.prepare<[], number>('SELECT id FROM sources ORDER BY id').pluck(),
      pending: db.prepare<[number], number>('SELECT from_time FROM telemetry_pending WHERE source_id = ?').pluck(),
      first: db.prepare<[number, number], number>('SELECT time FROM fixes WHERE source_id = ? AND time < ? ORDER BY time LIMIT 1').pluck(),
      nextChunk: db.prepare<[number, number], number>('SELECT first_time FROM fix_chunks WHERE source_id = ? AND first_time > ? ORDER BY first_time LIMIT 1').pluck(),
      count: db.prepare<[number, number, number], number>('SELECT count(*) FROM fixes WHERE source_id = ? AND time >= ? AND time < ?').pluck(),
      rows: db.prepare<[number, number, number], StoredFix>(
        `SELECT time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, attrs, odometer, hours, fuel_used
         FROM fixes WHERE source_id = ? AND time >= ? ORDER BY time LIMIT ?`,
      ),
      span: db.prepare<[number, number, number], StoredFix>(
        `SELECT time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, attrs, odometer, hours, fuel_used
         FROM fixes WHERE source_id = ? AND time >= ? AND time <= ? ORDER BY time`,
      ),
      insert: db.prepare('INSERT INTO fix_chunks (source_id, first_time, last_time, count, data) VALUES (?, ?, ?, ?, ?)'),
      remove: db.prepare('DELETE FROM fixes WHERE source_id = ? AND time >= ? AND time <= ?'),
      // Checkpoints inside the span but its earliest one.
      thin: db.prepare(
        `DELETE FROM telemetry_checkpoints WHERE source_id = @source AND time <= @last
           AND time > coalesce((SELECT min(time) FROM telemetry_checkpoints WHERE source_id = @source AND time >= @first AND time <= @last), @last)`,
      ),
      backlog: db.prepare<[number, number], number>(
        `SELECT count(*) FROM fixes f WHERE f.time < ? AND f.time < coalesce((SELECT p.from_time FROM telemetry_pending p WHERE p.source_id = f.source_id), ?)`,
      ).pluck(),
      chunks: db.prepare<[], { chunks: number; fixes: number; bytes: number }>('SELECT count(*) AS chunks, coalesce(sum(count), 0) AS fixes, coalesce(sum(length(data)), 0) AS bytes FROM fix_chunks'),
    };
  }

  /** Every device (source), in id order. */
  sources(): number[] {
    return this.s.sources.all();
  }

  /**
   * One write transaction: the device's oldest run of processed rows before `horizon` (and before
   * its data still pending for the telemetry core) becomes a chunk. Undefined when none is left.
   */
  step(sourceId: number, horizon: number, maxFixes = CHUNK_FIXES): CompactStep | undefined {
    // The run is read and encoded outside the write lock (encoding is the slow part); the write
    // transaction then checks the rows are still exactly those and nothing became pending there.
    const rows = this.db.transaction(() => this.run(sourceId, horizon, maxFixes))();
    if (!rows) return undefined;
    const data = encodeFixChunk(rows);
    const first = rows[0].time;
    const last = rows[rows.length - 1].time;
    return this.db.transaction((): CompactStep => {
      const s = this.s;
      if (last >= Math.min(horizon, s.pending.get(sourceId) ?? Infinity) || !sameRows(s.span.all(sourceId, first, last), rows)) return { fixes: 0, bytes: 0 };
      s.insert.run(sourceId, first, last, rows.length, data);
      s.remove.run(sourceId, first, last);
      this.points.replace(sourceId, first, last, emptyColumns(0));
      s.thin.run({ source: sourceId, first, last });
      return { fixes: rows.length, bytes: data.length };
    }).immediate();
  }

  /** The device's oldest run of processed rows before the horizon: what the next chunk holds. */
  private run(sourceId: number, horizon: number, maxFixes: number): StoredFix[] | undefined {
    const s = this.s;
    const bound = Math.min(horizon, s.pending.get(sourceId) ?? Infinity);
    const t0 = s.first.get(sourceId, bound);
    if (t0 === undefined) return undefined;
    const end = Math.min(Math.floor(t0 / DAY_MS) * DAY_MS + DAY_MS, bound, s.nextChunk.get(sourceId, t0) ?? Infinity);
    const n = s.count.get(sourceId, t0, end)!;
    const take = n <= maxFixes ? n : Math.ceil(n / Math.ceil(n / maxFixes));
    return s.rows.all(sourceId, t0, take);
  }

  /** Rows before the horizon that compaction would take now (processed ones), for progress. */
  rowsBefore(horizon: number): number {
    return this.s.backlog.get(horizon, horizon)!;
  }

  /** The chunks stored: how many, the fixes they hold, their encoded bytes. */
  totals(): { chunks: number; fixes: number; bytes: number } {
    return this.s.chunks.get()!;
  }
}

/** Whether two runs of rows are identical, member by member. */
function sameRows(a: StoredFix[], b: StoredFix[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as unknown as Record<string, unknown>;
    const y = b[i] as unknown as Record<string, unknown>;
    for (const k in x) if (x[k] !== y[k]) return false;
  }
  return true;
}
