/**
 * The event log (migration 024, docs/events.md): reads for history/tracker/list, reports and
 * notifications, and the events the domain code records in the transaction of its change. The
 * events derived from fixes are written by the telemetry core with its window
 * (src/store/telemetry.ts), which replaces those decided in a reprocessed window.
 */
import type { DB } from './db.ts';
import { FixChunkStore } from './fix-chunks.ts';

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
const FROM_SQL = `FROM json_each(@trackers) j JOIN trackers t ON t.id = j.value
  JOIN events e ON e.source_id = t.source_id AND e.time >= @from AND e.time <= @to AND (e.tracker_id IS NULL OR e.tracker_id = t.id)
  WHERE (@types IS NULL OR e.type IN (SELECT value FROM json_each(@types)))`;
const LIST_SQL = `SELECT e.id, t.id AS tracker_id, e.type, e.time, e.lat, e.lng, e.extra ${FROM_SQL}
    AND (@afterTime IS NULL OR e.time > @afterTime OR (e.time = @afterTime AND e.id > @afterId))
  ORDER BY e.time, e.id, t.id LIMIT @limit`;
/** Newest first (history/tracker/list `ascending: false`); no paging. */
const LIST_DESC_SQL = `SELECT e.id, t.id AS tracker_id, e.type, e.time, e.lat, e.lng, e.extra ${FROM_SQL}
  ORDER BY e.time DESC, e.id DESC, t.id DESC LIMIT @limit`;
const COUNT_SQL = `SELECT count(*) ${FROM_SQL}`;

/** What the connection watcher recorded in one check. */
export interface ConnectionChanges {
  lost: number[];
  restored: number[];
}

export class EventStore {
  private listStmt;
  private listDescStmt;
  private countStmt;
  private insertStmt;
  private sourceStmt;
  private silentStmt;
  private backStmt;
  /** Everything with a time after a loss, rows and compacted (docs/storage.md). */
  private chunks: FixChunkStore;
  private markLost;
  private unmarkLost;
  private insertDevice;

  constructor(db: DB) {
    this.listStmt = db.prepare<Record<string, unknown>, Omit<EventRow, 'extra'> & { extra: string | null }>(LIST_SQL);
    this.listDescStmt = db.prepare<Record<string, unknown>, Omit<EventRow, 'extra'> & { extra: string | null }>(LIST_DESC_SQL);
    this.countStmt = db.prepare<Record<string, unknown>, number>(COUNT_SQL).pluck();
    this.insertStmt = db.prepare('INSERT INTO events (source_id, tracker_id, type, time, decided, lat, lng, extra) VALUES (?, ?, ?, ?, NULL, ?, ?, ?)');
    this.sourceStmt = db.prepare<[number], number>('SELECT source_id FROM trackers WHERE id = ?').pluck();
    // Devices with a live tracker, silent since before the cutoff, not yet recorded as lost.
    this.silentStmt = db.prepare<[number], { id: number; last_seen: number; lat: number | null; lng: number | null }>(
      `SELECT s.id, s.last_seen, d.lat, d.lng FROM sources s LEFT JOIN device_state d ON d.source_id = s.id
        WHERE s.last_seen < ? AND NOT EXISTS (SELECT 1 FROM connection_lost c WHERE c.source_id = s.id)
          AND EXISTS (SELECT 1 FROM trackers t WHERE t.source_id = s.id AND t.deleted = 0)`,
    );
    // Lost devices that sent something since.
    this.backStmt = db.prepare<[], { id: number; since: number; lat: number | null; lng: number | null }>(
      `SELECT c.source_id AS id, c.since, d.lat, d.lng FROM connection_lost c JOIN sources s ON s.id = c.source_id
        LEFT JOIN device_state d ON d.source_id = c.source_id WHERE s.last_seen > c.since`,
    );
    // Everything with a time after the loss was received after it: the first receipt among those.
    this.chunks = new FixChunkStore(db);
    this.markLost = db.prepare('INSERT INTO connection_lost (source_id, since) VALUES (?, ?)');
    this.unmarkLost = db.prepare('DELETE FROM connection_lost WHERE source_id = ?');
    this.insertDevice = db.prepare('INSERT INTO events (source_id, tracker_id, type, time, decided, lat, lng, extra) VALUES (?, NULL, ?, ?, NULL, ?, ?, ?)');
    this.tx = db.transaction((now: number, lostAfterMs: number) => this.checkNow(now, lostAfterMs));
  }
  private tx;

  /**
   * The connection watcher's check (docs/events.md "Connection"), in one transaction: devices
   * silent for `lostAfterMs` get connection_lost (dated when the silence reached that length, with
   * the last receipt as `since`); lost devices that sent data since get connection_restored (dated
   * at the first receipt after the loss).
   */
  checkConnections(now: number, lostAfterMs: number): ConnectionChanges {
    return this.tx(now, lostAfterMs);
  }

  private checkNow(now: number, lostAfterMs: number): ConnectionChanges {
    const out: ConnectionChanges = { lost: [], restored: [] };
    for (const b of this.backStmt.all()) {
      const first = this.chunks.minReceivedAfter(b.id, b.since) ?? now;
      const at = Math.max(first, b.since + lostAfterMs);
      this.insertDevice.run(b.id, 'connection_restored', at, b.lat, b.lng, JSON.stringify({ since: b.since, lost_duration: Math.round((at - b.since) / 1000) }));
      this.unmarkLost.run(b.id);
      out.restored.push(b.id);
    }
    for (const d of this.silentStmt.all(now - lostAfterMs)) {
      this.markLost.run(d.id, d.last_seen);
      this.insertDevice.run(d.id, 'connection_lost', d.last_seen + lostAfterMs, d.lat, d.lng, JSON.stringify({ since: d.last_seen }));
      out.lost.push(d.id);
    }
    return out;
  }

  /**
   * The events of these trackers in [from, to], of the given types, ordered by time (then id),
   * at most `limit`; page on with `after` = the last one's time and id.
   */
  /** How many events the query finds without its limit (history/tracker/list `total`). */
  count(q: Omit<EventQuery, 'limit' | 'after'>): number {
    return this.countStmt.get({ trackers: JSON.stringify(q.trackerIds), from: q.from, to: q.to, types: q.types ? JSON.stringify(q.types) : null })!;
  }

  /** `descending`: newest first (without `after`). */
  list(q: EventQuery & { descending?: boolean }): EventRow[] {
    const base = { trackers: JSON.stringify(q.trackerIds), from: q.from, to: q.to, types: q.types ? JSON.stringify(q.types) : null, limit: q.limit };
    const rows = q.descending ? this.listDescStmt.all(base) : this.listStmt.all({ ...base, afterTime: q.after?.time ?? null, afterId: q.after?.id ?? 0 });
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
