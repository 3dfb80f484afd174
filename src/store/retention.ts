/**
 * Retention's SQL (issue 15, docs/operations.md#retention): what each device keeps, and the small
 * write transactions that delete its older fixes and the data derived from them. Every delete is a
 * range of one device's primary key or index and takes at most `limit` rows, so a step holds the
 * write lock for milliseconds and the gateway's writer thread commits between two steps.
 *
 * What is deleted before a device's `keptFrom` (the newest telemetry checkpoint at or before the
 * horizon): fixes (except those a retranslator still has to forward), packed track points, closed
 * trips, parkings and single reports that ended before it, closed zone/place/task stays, older
 * checkpoints, and forwarding log entries no enabled retranslator still needs. Per device, so a later
 * columnar fix store can drop whole chunks of a device instead of rows.
 */
import type { DB } from './db.ts';
import { packChunk, TrackPointStore } from './track-points.ts';
import { decodeFixChunk, encodeFixChunk } from '../core/fix-chunk.ts';

export interface RetentionSource {
  source_id: number;
  device_id: string;
  /** The tariff's track storage period in days (0: no limit). */
  storage_days: number;
}

/** The tables a pass deletes from, in the order it does (derived data first, fixes last). */
export const RETENTION_TABLES = ['tracks', 'visits', 'track_points', 'checkpoints', 'forward_log', 'fixes'] as const;
export type RetentionTable = (typeof RETENTION_TABLES)[number];

/** Forwarding's hold on a device's fixes, read once per device and checked again in every step. */
interface ForwardGuard {
  /** Lowest cursor of the device's bindings to enabled retranslators (null: none). */
  cursor: number | null;
  /** The oldest fix time among entries after that cursor, as of `seq` (Infinity: none). */
  minTime: number;
  /** The log's high-water mark when `minTime` was read. */
  seq: number;
}

export class RetentionStore {
  private s;
  private points: TrackPointStore;
  private guards = new Map<number, ForwardGuard>();

  constructor(private db: DB) {
    this.points = new TrackPointStore(db);
    this.s = {
      sources: db.prepare<[], RetentionSource>(
        'SELECT s.id AS source_id, s.device_id, coalesce(t.track_storage_days, 0) AS storage_days FROM sources s LEFT JOIN tariffs t ON t.id = s.tariff_id ORDER BY s.id',
      ),
      mark: db.prepare<[number], number>('SELECT kept_from FROM retention_marks WHERE source_id = ?').pluck(),
      putMark: db.prepare('INSERT INTO retention_marks (source_id, kept_from, updated) VALUES (?, ?, ?) ON CONFLICT (source_id) DO UPDATE SET kept_from = excluded.kept_from, updated = excluded.updated'),
      pending: db.prepare<[number], number>('SELECT from_time FROM telemetry_pending WHERE source_id = ?').pluck(),
      tail: db.prepare<[number], number>('SELECT time FROM telemetry_tail WHERE source_id = ?').pluck(),
      checkpointAtOrBefore: db.prepare<[number, number], number>('SELECT time FROM telemetry_checkpoints WHERE source_id = ? AND time <= ? ORDER BY time DESC LIMIT 1').pluck(),
      anyCheckpoint: db.prepare<[number], number>('SELECT 1 FROM telemetry_checkpoints WHERE source_id = ? LIMIT 1').pluck(),
      // Up to `limit` of the oldest rows: everything before the (limit+1)-th oldest, or before the bound.
      fixes: db.prepare(
        `DELETE FROM fixes WHERE source_id = @source AND time < coalesce((SELECT time FROM fixes WHERE source_id = @source AND time < @bound ORDER BY time LIMIT 1 OFFSET @limit), @bound)`,
      ),
      checkpoints: db.prepare(
        `DELETE FROM telemetry_checkpoints WHERE source_id = @source AND time < coalesce((SELECT time FROM telemetry_checkpoints WHERE source_id = @source AND time < @bound ORDER BY time LIMIT 1 OFFSET @limit), @bound)`,
      ),
      // Chunks wholly before the bound; the one reaching over it is trimmed (`trimChunk`).
      chunks: db.prepare(
        `DELETE FROM track_points WHERE source_id = @source AND last_time < @bound AND first_time < coalesce((SELECT first_time FROM track_points WHERE source_id = @source AND last_time < @bound ORDER BY first_time LIMIT 1 OFFSET @limit), @bound)`,
      ),
      straddling: db.prepare<[number, number, number], { first_time: number; last_time: number }>(
        'SELECT first_time, last_time FROM track_points WHERE source_id = ? AND first_time < ? AND last_time >= ? ORDER BY first_time DESC LIMIT 1',
      ),
      // Fix chunks (migration 031) starting before the bound, oldest first; read one at a time.
      fixChunksBefore: db.prepare<[number, number], { first_time: number; last_time: number; count: number }>(
        'SELECT first_time, last_time, count FROM fix_chunks WHERE source_id = ? AND first_time < ? ORDER BY first_time LIMIT 64',
      ),
      fixChunkData: db.prepare<[number, number], Buffer>('SELECT data FROM fix_chunks WHERE source_id = ? AND first_time = ?').pluck(),
      removeFixChunk: db.prepare('DELETE FROM fix_chunks WHERE source_id = ? AND first_time = ?'),
      insertFixChunk: db.prepare('INSERT INTO fix_chunks (source_id, first_time, last_time, count, data) VALUES (?, ?, ?, ?, ?)'),
      removeChunk: db.prepare('DELETE FROM track_points WHERE source_id = ? AND first_time = ?'),
      insertChunk: db.prepare('INSERT INTO track_points (source_id, first_time, last_time, data) VALUES (?, ?, ?, ?)'),
      // Closed segments that ended before the bound (the open one is the device's present).
      tracks: db.prepare('DELETE FROM tracks WHERE id IN (SELECT id FROM tracks WHERE source_id = @source AND start_time < @bound AND end_time < @bound AND open = 0 ORDER BY start_time LIMIT @limit)'),
      visits: db.prepare('DELETE FROM visits WHERE id IN (SELECT id FROM visits WHERE source_id = @source AND exit_time < @bound ORDER BY exit_time LIMIT @limit)'),
      enabledCursor: db.prepare<[number], number | null>(
        'SELECT min(b.cursor) FROM retranslator_bindings b JOIN retranslators r ON r.id = b.retranslator_id WHERE b.source_id = ? AND r.enabled = 1',
      ).pluck(),
      maxSeq: db.prepare<[], number>("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'forward_log'), 0)").pluck(),
      pendingMinTime: db.prepare<[number, number], number | null>('SELECT min(time) FROM forward_log WHERE source_id = ? AND seq > ?').pluck(),
      // Entries of fixes before the bound that no enabled retranslator still needs.
      forwardLog: db.prepare('DELETE FROM forward_log WHERE seq IN (SELECT seq FROM forward_log WHERE source_id = @source AND seq <= @cursor AND time < @bound ORDER BY seq LIMIT @limit)'),
      autoVacuum: db.prepare<[], number>('PRAGMA auto_vacuum').pluck(),
      freePages: db.prepare<[], number>('PRAGMA freelist_count').pluck(),
      pageSize: db.prepare<[], number>('PRAGMA page_size').pluck(),
      pageCount: db.prepare<[], number>('PRAGMA page_count').pluck(),
    };
  }

  /** Every device with its tariff's storage period. */
  sources(): RetentionSource[] {
    return this.s.sources.all();
  }

  /** Where the device's kept history begins (set by a pass), if a pass trimmed it. */
  keptFrom(sourceId: number): number | undefined {
    return this.s.mark.get(sourceId);
  }

  /**
   * Decides, in one write transaction, from which time the device's history is kept for the
   * horizon `horizon`, and records it: the newest checkpoint at or before the horizon, and not after
   * the point the telemetry core would restart from for data still pending. Undefined when nothing
   * may go yet (no such checkpoint: the device's data was never processed that far).
   */
  begin(sourceId: number, horizon: number, now: number): number | undefined {
    return this.db.transaction(() => {
      const pending = this.s.pending.get(sourceId);
      const mark = this.s.mark.get(sourceId);
      // Pending data restarts from the checkpoint at or before max(pending, mark) (telemetry.ts).
      const limit = pending === undefined ? horizon : Math.min(horizon, Math.max(pending, mark ?? -Infinity));
      let keep = this.s.checkpointAtOrBefore.get(sourceId, limit);
      if (keep === undefined) {
        // A device the telemetry core has nothing of (no located fix ever processed, nothing
        // waiting): its records feed no derived data, the horizon itself applies.
        const unprocessed = pending === undefined && this.s.tail.get(sourceId) === undefined && this.s.anyCheckpoint.get(sourceId) === undefined;
        if (!unprocessed) return undefined;
        keep = horizon;
      }
      this.s.putMark.run(sourceId, keep, now);
      this.guards.delete(sourceId);
      return keep;
    }).immediate();
  }

  /**
   * One small write transaction: deletes up to `limit` rows of the device's `table` before `keep`
   * (fixes: also not those a retranslator still has to forward). Answers how many; 0 when that
   * table has nothing left to delete.
   */
  step(sourceId: number, table: RetentionTable, keep: number, limit: number): number {
    return this.db.transaction((): number => {
      const s = this.s;
      const at = { source: sourceId, bound: keep, limit };
      switch (table) {
        case 'tracks':
          return s.tracks.run(at).changes;
        case 'visits':
          return s.visits.run(at).changes;
        case 'track_points':
          return s.chunks.run(at).changes + this.trimChunk(sourceId, keep);
        case 'checkpoints':
          return s.checkpoints.run(at).changes;
        case 'forward_log':
          return s.forwardLog.run({ ...at, cursor: this.guard(sourceId).cursor ?? Number.MAX_SAFE_INTEGER }).changes;
        case 'fixes': {
          // Rows, then whole chunks (docs/storage.md): a step takes about `limit` fixes either way.
          const bound = Math.min(keep, this.heldFrom(sourceId));
          const n = s.fixes.run({ ...at, bound }).changes;
          return n >= limit ? n : n + this.dropChunks(sourceId, bound, limit - n);
        }
      }
    }).immediate();
  }

  /** Done with a device: forget its cached forwarding hold. */
  end(sourceId: number): void {
    this.guards.delete(sourceId);
  }

  /**
   * Compacted fixes before `bound`: whole chunks go (at least one, until about `budget` fixes), the
   * one reaching over the bound is encoded again with its fixes from the bound on. Answers the fixes removed.
   */
  private dropChunks(sourceId: number, bound: number, budget: number): number {
    let n = 0;
    for (const c of this.s.fixChunksBefore.all(sourceId, bound)) {
      if (n >= budget) break;
      if (c.last_time < bound) {
        this.s.removeFixChunk.run(sourceId, c.first_time);
        n += c.count;
        continue;
      }
      const data = this.s.fixChunkData.get(sourceId, c.first_time)!;
      this.s.removeFixChunk.run(sourceId, c.first_time);
      const kept = decodeFixChunk(data).filter((r) => r.time >= bound);
      if (kept.length) this.s.insertFixChunk.run(sourceId, kept[0].time, kept[kept.length - 1].time, kept.length, encodeFixChunk(kept));
      n += c.count - kept.length;
      break;
    }
    return n;
  }

  /** The chunk reaching over `keep` keeps only its points from `keep` on; answers 1 when it was trimmed. */
  private trimChunk(sourceId: number, keep: number): number {
    const c = this.s.straddling.get(sourceId, keep, keep);
    if (!c) return 0;
    const kept = this.points.read(sourceId, keep, c.last_time, true);
    this.s.removeChunk.run(sourceId, c.first_time);
    if (kept.n) this.s.insertChunk.run(sourceId, kept.time[0], kept.time[kept.n - 1], packChunk(kept, 0, kept.n));
    return 1;
  }

  /**
   * Fixes from this time on are still to be forwarded to an enabled retranslator (Infinity: none).
   * The oldest pending entry is read once per device (a stalled receiver's backlog can be long);
   * each step then looks only at entries logged since, or reads again if a cursor moved back (a
   * retranslator was enabled meanwhile).
   */
  private heldFrom(sourceId: number): number {
    const g = this.guard(sourceId);
    if (g.cursor === null) return Infinity;
    const newer = this.s.pendingMinTime.get(sourceId, Math.max(g.seq, g.cursor)) ?? Infinity;
    return Math.min(g.minTime, newer);
  }

  private guard(sourceId: number): ForwardGuard {
    const cursor = this.s.enabledCursor.get(sourceId) ?? null;
    let g = this.guards.get(sourceId);
    if (!g || (cursor !== null && (g.cursor === null || cursor < g.cursor))) {
      const seq = this.s.maxSeq.get()!;
      g = { cursor, seq, minTime: cursor === null ? Infinity : (this.s.pendingMinTime.get(sourceId, cursor) ?? Infinity) };
      this.guards.set(sourceId, g);
    } else if (cursor !== g.cursor) {
      // The cursor moved on: fewer entries are pending, the older minimum still holds (it is only conservative).
      g.cursor = cursor;
    }
    return g;
  }

  /** SQLite's space figures: the file, its free pages, and whether free pages can be given back. */
  space(): { bytes: number; freeBytes: number; pageSize: number; incremental: boolean } {
    const page = this.s.pageSize.get()!;
    return { bytes: this.s.pageCount.get()! * page, freeBytes: this.s.freePages.get()! * page, pageSize: page, incremental: this.s.autoVacuum.get() === 2 };
  }

  /** Gives up to `pages` free pages back to the file system (INCREMENTAL auto-vacuum only); answers how many. */
  vacuumStep(pages: number): number {
    if (this.s.autoVacuum.get() !== 2) return 0;
    const before = this.s.freePages.get()!;
    this.db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return before - this.s.freePages.get()!;
  }
}
