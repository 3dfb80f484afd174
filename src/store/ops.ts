/**
 * What /metrics reads from the database when it is scraped (docs/operations.md): the telemetry
 * core's backlog and lag, and each retranslator's forwarding backlog. Reads only; each is bounded.
 */
import type { DB } from './db.ts';
import { FixChunkStore } from './fix-chunks.ts';

/**
 * Backlogs are counted up to this many fixes (the telemetry's in all, each retranslator's): a scrape
 * never scans an unbounded range on the main thread. Counting 100,000 waiting fixes takes ~30 ms
 * (1,000,000: ~300 ms); a backlog that large is worth an alert whatever its exact size, and the lag
 * tells how far behind processing is.
 */
export const BACKLOG_CAP = 100_000;

export class OpsStore {
  private s;
  private chunks: FixChunkStore;

  constructor(db: DB) {
    this.chunks = new FixChunkStore(db);
    this.s = {
      // CROSS JOIN keeps the work list outermost: one primary-key range of fixes per waiting tracker.
      backlog: db
        .prepare<[number], number>(
          `SELECT count(*) FROM (SELECT 1 FROM telemetry_pending p CROSS JOIN fixes f ON f.source_id = p.source_id AND f.time >= p.from_time LIMIT ?)`,
        )
        .pluck(),
      // The first waiting fix of each tracker (one index seek per tracker), the earliest received of them.
      oldest: db
        .prepare<[], number | null>(
          `SELECT min((SELECT f.received FROM fixes f WHERE f.source_id = p.source_id AND f.time >= p.from_time ORDER BY f.time LIMIT 1)) FROM telemetry_pending p`,
        )
        .pluck(),
      // Compacted history waiting again (late data reopens its chunk; settings changes reprocess
      // everything): the chunks reaching to or past the work list's start, counted whole.
      chunkBacklog: db
        .prepare<[], number>(
          `SELECT coalesce(sum(c.count), 0) FROM telemetry_pending p CROSS JOIN fix_chunks c ON c.source_id = p.source_id
             AND c.first_time >= coalesce((SELECT b.first_time FROM fix_chunks b WHERE b.source_id = p.source_id AND b.first_time <= p.from_time ORDER BY b.first_time DESC LIMIT 1), p.from_time)
           WHERE c.last_time >= p.from_time`,
        )
        .pluck(),
      // Each waiting tracker's first chunk at or after its start: its first fix there may be older than the first row.
      firstChunks: db.prepare<[], { source_id: number; from_time: number; first_time: number; row_time: number | null }>(
        `SELECT p.source_id, p.from_time, c.first_time, (SELECT f.time FROM fixes f WHERE f.source_id = p.source_id AND f.time >= p.from_time ORDER BY f.time LIMIT 1) AS row_time
         FROM telemetry_pending p CROSS JOIN fix_chunks c ON c.source_id = p.source_id
           AND c.first_time = coalesce((SELECT b.first_time FROM fix_chunks b WHERE b.source_id = p.source_id AND b.first_time <= p.from_time AND b.last_time >= p.from_time),
                                       (SELECT b.first_time FROM fix_chunks b WHERE b.source_id = p.source_id AND b.first_time > p.from_time ORDER BY b.first_time LIMIT 1))`,
      ),
      retranslators: db.prepare<[], number>('SELECT id FROM retranslators ORDER BY id').pluck(),
      // The log entries of the retranslator's trackers past their cursors (index forward_log_source), bounded.
      forwarding: db
        .prepare<[number, number], number>(
          `SELECT count(*) FROM (SELECT 1 FROM retranslator_bindings b CROSS JOIN forward_log l ON l.source_id = b.source_id AND l.seq > b.cursor
           WHERE b.retranslator_id = ? LIMIT ?)`,
        )
        .pluck(),
    };
  }

  /**
   * Fixes committed but not yet processed by the telemetry core (counted up to BACKLOG_CAP), and when the oldest waiting one was received (ms UTC; null: none waits).
   */
  telemetryBacklog(): { fixes: number; oldestReceived: number | null } {
    const fixes = Math.min(BACKLOG_CAP, this.s.backlog.get(BACKLOG_CAP)! + this.s.chunkBacklog.get()!);
    let oldest = this.s.oldest.get() ?? null;
    for (const c of this.s.firstChunks.all()) {
      if (c.row_time !== null && c.row_time < c.first_time) continue;
      const first = this.chunks.readFixes(c.source_id, c.from_time, Number.MAX_SAFE_INTEGER, ['received'], 1)[0];
      if (first && (oldest === null || first.received < oldest)) oldest = first.received;
    }
    return { fixes, oldestReceived: oldest };
  }

  /** Every retranslator with the fixes its receiver has not acknowledged yet (each counted up to BACKLOG_CAP). */
  forwardingBacklogs(): Array<{ id: number; backlog: number }> {
    return this.s.retranslators.all().map((id) => ({ id, backlog: this.s.forwarding.get(id, BACKLOG_CAP)! }));
  }
}
