/**
 * What /metrics reads from the database when it is scraped (docs/operations.md): the telemetry
 * core's backlog and lag, and each retranslator's forwarding backlog. Reads only; each is bounded.
 */
import type { DB } from './db.ts';

/**
 * Backlogs are counted up to this many fixes (the telemetry's in all, each retranslator's): a scrape
 * never scans an unbounded range on the main thread. Counting 100,000 waiting fixes takes ~30 ms
 * (1,000,000: ~300 ms); a backlog that large is worth an alert whatever its exact size, and the lag
 * tells how far behind processing is.
 */
export const BACKLOG_CAP = 100_000;

export class OpsStore {
  private s;

  constructor(db: DB) {
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
    return { fixes: this.s.backlog.get(BACKLOG_CAP)!, oldestReceived: this.s.oldest.get() ?? null };
  }

  /** Every retranslator with the fixes its receiver has not acknowledged yet (each counted up to BACKLOG_CAP). */
  forwardingBacklogs(): Array<{ id: number; backlog: number }> {
    return this.s.retranslators.all().map((id) => ({ id, backlog: this.s.forwarding.get(id, BACKLOG_CAP)! }));
  }
}
