/**
 * The event log (migration 024, docs/events.md): reads for history/tracker/list, reports and
 * notifications, and the events the domain code records in the transaction of its change. The
 * events derived from fixes are written by the telemetry core with its window
 * (src/store/telemetry.ts), which replaces those decided in a reprocessed window.
 */
import type { DB } from './db.ts';

/** An event as read: which tracker it is listed for, its type, time and place, its members. */
export interface EventRow {
  id: number;
  tracker_id: number;
  type: string;
  time: number;
  lat: number | null;
  lng: number | null;
  /** The type's members (docs/events.md). */
  extra: Record<string, unknown>;
}

export interface EventQuery {
  /** The trackers (each listed with its device's events and its own). */
  trackerIds: number[];
  /** ms UTC, both included. */
  from: number;
  to: number;
  /** Only these types; absent: all. */
  types?: string[];
  limit: number;
  /** Paging: only events after this one in the list's order (time, id). */
  after?: { time: number; id: number };
}

/** A domain event, recorded for one tracker. */
export interface DomainEvent {
  trackerId: number;
  type: string;
  time: number;
  lat: number | null;
  lng: number | null;
  extra?: Record<string, unknown>;
}

// One index range per tracker: (source_id, time). Domain events of a tracker are not its clones'.
const LIST_SQL = `SELECT e.id, t.id AS tracker_id, e.type, e.time, e.lat, e.lng, e.extra
  FROM json_each(@trackers) j JOIN trackers t ON t.id = j.value
  JOIN events e ON e.source_id = t.source_id AND e.time >= @from AND e.time <= @to AND (e.tracker_id IS NULL OR e.tracker_id = t.id)
  WHERE (@types IS NULL OR e.type IN (SELECT value FROM json_each(@types)))
    AND (@afterTime IS NULL OR e.time > @afterTime OR (e.time = @afterTime AND e.id > @afterId))
  ORDER BY e.time, e.id, t.id LIMIT @limit`;

export class EventStore {
  private listStmt;
  private insertStmt;
  private sourceStmt;

  constructor(db: DB) {
    this.listStmt = db.prepare<Record<string, unknown>, Omit<EventRow, 'extra'> & { extra: string | null }>(LIST_SQL);
    this.insertStmt = db.prepare('INSERT INTO events (source_id, tracker_id, type, time, decided, lat, lng, extra) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)');
    this.sourceStmt = db.prepare<[number], number>('SELECT source_id FROM trackers WHERE id = ?').pluck();
  }

  /**
   * The events of these trackers in [from, to], of the given types, ordered by time (then id),
   * at most `limit`; page on with `after` = the last one's time and id.
   */
  list(q: EventQuery): EventRow[] {
    const rows = this.listStmt.all({
      trackers: JSON.stringify(q.trackerIds),
      from: q.from,
      to: q.to,
      types: q.types ? JSON.stringify(q.types) : null,
      afterTime: q.after?.time ?? null,
      afterId: q.after?.id ?? 0,
      limit: q.limit,
    });
    return rows.map((r) => ({ ...r, extra: r.extra ? (JSON.parse(r.extra) as Record<string, unknown>) : {} }));
  }

  /** Record a domain event (call it inside the transaction of the change it reports). */
  record(e: DomainEvent): number {
    const source = this.sourceStmt.get(e.trackerId);
    if (source === undefined) throw new Error(`no tracker ${e.trackerId}`);
    const extra = e.extra && Object.keys(e.extra).length ? JSON.stringify(e.extra) : null;
    return Number(this.insertStmt.run(source, e.trackerId, e.type, e.time, e.lat, e.lng, extra).lastInsertRowid);
  }
}
