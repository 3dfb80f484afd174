/**
 * What /metrics reads from the database when it is scraped (docs/operations.md): the telemetry
 * core's backlog and lag, and each retranslator's forwarding backlog. Reads only; each is bounded.
 */
import type { DB } from './db.ts';

/** The telemetry backlog is counted up to this many fixes: a scrape never scans an unbounded range. */
export const TELEMETRY_BACKLOG_CAP = 1_000_000;

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
      forwarding: db.prepare<[], { id: number; backlog: number }>(
        `SELECT r.id, coalesce(sum((SELECT count(*) FROM forward_log l WHERE l.source_id = b.source_id AND l.seq > b.cursor)), 0) AS backlog
         FROM retranslators r LEFT JOIN retranslator_bindings b ON b.retranslator_id = r.id GROUP BY r.id ORDER BY r.id`,
      ),
    };
  }

  /**
   * Fixes committed but not yet processed by the telemetry core (counted up to
   * TELEMETRY_BACKLOG_CAP), and when the oldest waiting one was received (ms UTC; null: none waits).
   */
  telemetryBacklog(): { fixes: number; oldestReceived: number | null } {
    return { fixes: this.s.backlog.get(TELEMETRY_BACKLOG_CAP)!, oldestReceived: this.s.oldest.get() ?? null };
  }

  /** Every retranslator with the fixes its receiver has not acknowledged yet. */
  forwardingBacklogs(): Array<{ id: number; backlog: number }> {
    return this.s.forwarding.all();
  }
}
