/**
 * Retranslators, their tracker bindings with the durable forwarding cursors, and the forwarding
 * log (migration 022). The API side (one user's rows) and the engine side (every enabled
 * retranslator, batches of the log joined with the fixes) share this class.
 */
import type { DB } from './db.ts';
import { FixChunkStore, type ChunkSpan, type StoredFix } from './fix-chunks.ts';
import { ROW, ROW_WIDTH } from '../core/point.ts';

export interface RetranslatorRow {
  id: number;
  user_id: number;
  name: string;
  protocol_id: number;
  address: string;
  port: number;
  login: string;
  password: string;
  enabled: number;
  version: number;
  last_forwarded: number | null;
}

export interface RetranslatorFields {
  name: string;
  protocolId: number;
  address: string;
  port: number;
  login: string;
  password: string;
  enabled: boolean;
}

export interface BindingRow {
  retranslator_id: number;
  tracker_id: number;
  source_id: number;
  fake_device_id: string | null;
  cursor: number;
  bound: number;
  /** The tracker's device id (the forwarded identity unless a fake id is set). */
  device_id: string;
}

/**
 * One log entry with its fix (a row of `fixes` or out of its chunk), as the engine reads it: an array
 * (no object per row; the members at the `LOG` positions), shared by every retranslator forwarding it.
 */
export type LogRow = [
  seq: number,
  sourceId: number,
  time: number,
  lat: number | null,
  lng: number | null,
  alt: number | null,
  speed: number | null,
  course: number | null,
  satellites: number | null,
  hdop: number | null,
  precision: number | null,
  flags: number,
  received: number,
  attrs: string | null,
  odometer: number | null,
  hours: number | null,
  fuelUsed: number | null,
];

/** The positions in a `LogRow`. */
export const LOG = { seq: 0, sourceId: 1, time: 2, lat: 3, lng: 4, alt: 5, speed: 6, course: 7, satellites: 8, hdop: 9, precision: 10, flags: 11, received: 12, attrs: 13, odometer: 14, hours: 15, fuelUsed: 16 } as const;

const LOG_COLS = `l.seq, l.source_id, l.time, f.lat, f.lng, f.alt, f.speed, f.course, f.satellites, f.hdop, f.precision,
                f.flags, f.received, f.attrs, f.odometer, f.hours, f.fuel_used`;

const fromChunk = (seq: number, sourceId: number, f: StoredFix): LogRow => [
  seq, sourceId, f.time, f.lat, f.lng, f.alt, f.speed, f.course, f.satellites, f.hdop, f.precision, f.flags, f.received, f.attrs, f.odometer, f.hours, f.fuel_used,
];

/**
 * The log entries one commit of the writer appended, with their fixes as the writer inserted them
 * (the hand-off to the forwarding engine, docs/retranslators.md "Hand-off"): the entries (from, to],
 * every one of them, in seq order; `values` the fixes in the writer's packed layout (`ROW`, a fix per
 * entry), `attrs` their attribute texts, `received` the commit's arrival time. Only a commit whose
 * every logged fix was a new row (no merge of a repeated instant, no late fix) is handed off: then
 * the stored fix is exactly what was packed.
 */
export interface CommittedLog {
  from: number;
  to: number;
  received: number;
  values: Float64Array;
  attrs: Array<string | null>;
}

const orNull = (v: number) => (Number.isNaN(v) ? null : v);

/** The rows `entries` would read for a handed-off commit (the same members and values, `LOG` order). */
export function logRowsOf(c: CommittedLog): LogRow[] {
  const v = c.values;
  const rows: LogRow[] = new Array(c.attrs.length);
  for (let i = 0, o = 0; i < rows.length; i++, o += ROW_WIDTH) {
    rows[i] = [
      c.from + 1 + i, v[o + ROW.source], v[o + ROW.time], orNull(v[o + ROW.lat]), orNull(v[o + ROW.lng]), orNull(v[o + ROW.alt]), orNull(v[o + ROW.speed]), orNull(v[o + ROW.course]),
      orNull(v[o + ROW.satellites]), orNull(v[o + ROW.hdop]), orNull(v[o + ROW.precision]), v[o + ROW.flags], c.received, c.attrs[i], orNull(v[o + ROW.odometer]), orNull(v[o + ROW.hours]), orNull(v[o + ROW.fuelUsed]),
    ];
  }
  return rows;
}

const COLS = 'id, user_id, name, protocol_id, address, port, login, password, enabled, version, last_forwarded';

export class RetranslatorStore {
  private s;
  private chunks: FixChunkStore;

  constructor(private db: DB) {
    this.chunks = new FixChunkStore(db);
    this.s = {
      list: db.prepare<[number], RetranslatorRow>(`SELECT ${COLS} FROM retranslators WHERE user_id = ? ORDER BY id`),
      get: db.prepare<[number, number], RetranslatorRow>(`SELECT ${COLS} FROM retranslators WHERE id = ? AND user_id = ?`),
      all: db.prepare<[], RetranslatorRow>(`SELECT ${COLS} FROM retranslators ORDER BY id`),
      count: db.prepare<[number], number>('SELECT count(*) FROM retranslators WHERE user_id = ?').pluck(),
      same: db.prepare<[number, string, number, string, number], number>(
        'SELECT id FROM retranslators WHERE user_id = ? AND lower(address) = lower(?) AND port = ? AND login = ? AND id <> ?',
      ).pluck(),
      insert: db.prepare('INSERT INTO retranslators (user_id, name, protocol_id, address, port, login, password, enabled) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      update: db.prepare(
        'UPDATE retranslators SET name = ?, protocol_id = ?, address = ?, port = ?, login = ?, password = ?, enabled = ?, version = version + 1 WHERE id = ? AND user_id = ?',
      ),
      delete: db.prepare('DELETE FROM retranslators WHERE id = ? AND user_id = ?'),
      bindings: db.prepare<[number], BindingRow>(
        `SELECT b.retranslator_id, b.tracker_id, b.source_id, b.fake_device_id, b.cursor, b.bound, s.device_id
         FROM retranslator_bindings b JOIN sources s ON s.id = b.source_id WHERE b.retranslator_id = ? ORDER BY b.tracker_id`,
      ),
      userBindings: db.prepare<[number], BindingRow>(
        `SELECT b.retranslator_id, b.tracker_id, b.source_id, b.fake_device_id, b.cursor, b.bound, s.device_id
         FROM retranslator_bindings b JOIN retranslators r ON r.id = b.retranslator_id JOIN sources s ON s.id = b.source_id
         WHERE r.user_id = ? ORDER BY b.retranslator_id, b.tracker_id`,
      ),
      bind: db.prepare(
        `INSERT INTO retranslator_bindings (retranslator_id, tracker_id, source_id, fake_device_id, cursor, bound)
         VALUES (?, ?, ?, ?, (SELECT coalesce(max(seq), 0) FROM forward_log), ?)
         ON CONFLICT (retranslator_id, tracker_id) DO UPDATE SET fake_device_id = excluded.fake_device_id`,
      ),
      unbind: db.prepare('DELETE FROM retranslator_bindings WHERE retranslator_id = ? AND tracker_id = ?'),
      bump: db.prepare('UPDATE retranslators SET version = version + 1 WHERE id = ?'),
      // The log's own high-water mark: AUTOINCREMENT never reuses a seq, even after pruning.
      maxSeq: db.prepare<[], number>("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'forward_log'), 0)").pluck(),
      // CROSS JOIN keeps the log outermost: it is read in seq order and the read stops at the limit
      // (the other order collects and sorts every entry of the window first).
      // Rows as arrays (`raw`): an object per row cost more than the read itself.
      batch: db
        .prepare<[number, number, number, number], LogRow>(
          `SELECT ${LOG_COLS}
         FROM forward_log l
         CROSS JOIN retranslator_bindings b ON b.source_id = l.source_id AND b.retranslator_id = ?
         LEFT JOIN fixes f ON f.source_id = l.source_id AND f.time = l.time
         WHERE l.seq > ? AND l.seq <= ? AND l.seq > b.cursor
         ORDER BY l.seq LIMIT ?`,
        )
        .raw(true),
      // every retranslator's entries at once: one read shared by the retranslators of the same trackers
      entries: db
        .prepare<[number, number, number], LogRow>(
          `SELECT ${LOG_COLS}
         FROM forward_log l LEFT JOIN fixes f ON f.source_id = l.source_id AND f.time = l.time
         WHERE l.seq > ? AND l.seq <= ? ORDER BY l.seq LIMIT ?`,
        )
        .raw(true),
      boundSources: db.prepare<[], number>('SELECT count(DISTINCT source_id) FROM retranslator_bindings').pluck(),
      // entries after the retranslator's oldest cursor that its bindings have not passed (the log is
      // read by seq: no index by source to keep up on every fix)
      backlog: db.prepare<[number, number], number>(
        `SELECT count(*) FROM forward_log l
         CROSS JOIN retranslator_bindings b ON b.source_id = l.source_id AND b.retranslator_id = ?
         WHERE l.seq > (SELECT coalesce(min(cursor), 0) FROM retranslator_bindings WHERE retranslator_id = ?) AND l.seq > b.cursor`,
      ).pluck(),
      // entries of the retranslator's trackers in (after, upTo], acknowledged or not (the engine's running count adds them)
      logged: db.prepare<[number, number, number], number>(
        `SELECT count(*) FROM forward_log l
         CROSS JOIN retranslator_bindings b ON b.source_id = l.source_id AND b.retranslator_id = ?
         WHERE l.seq > ? AND l.seq <= ?`,
      ).pluck(),
      minCursor: db.prepare<[number], number | null>('SELECT min(cursor) FROM retranslator_bindings WHERE retranslator_id = ?').pluck(),
      // every acknowledged source's cursor in one statement: a JSON array of [source_id, seq] pairs
      advance: db.prepare(
        `UPDATE retranslator_bindings SET cursor = max(cursor, json_extract(j.value, '$[1]'))
         FROM json_each(?) j
         WHERE retranslator_bindings.retranslator_id = ? AND retranslator_bindings.source_id = json_extract(j.value, '$[0]')`,
      ),
      lastForwarded: db.prepare('UPDATE retranslators SET last_forwarded = ? WHERE id = ?'),
      globalMin: db.prepare<[], number | null>('SELECT min(cursor) FROM retranslator_bindings').pluck(),
      // a range of seqs from the oldest entry on (half the work of deleting a LIMITed sub-select's seqs
      // one by one: 0.35 against 0.65 µs per entry); gaps (entries dropped by a reopen) make a step smaller
      prune: db.prepare('DELETE FROM forward_log WHERE seq <= min(?, coalesce((SELECT min(seq) FROM forward_log), 0) + ?)'),
    };
  }

  list(userId: number): RetranslatorRow[] {
    return this.s.list.all(userId);
  }
  get(userId: number, id: number): RetranslatorRow | undefined {
    return this.s.get.get(id, userId);
  }
  /** Every retranslator of every user (the engine). */
  all(): RetranslatorRow[] {
    return this.s.all.all();
  }
  count(userId: number): number {
    return this.s.count.get(userId)!;
  }
  /** Another retranslator of the user with the same address (case-insensitive), port and login. */
  sameTarget(userId: number, address: string, port: number, login: string, exceptId = 0): number | undefined {
    return this.s.same.get(userId, address, port, login, exceptId);
  }
  create(userId: number, f: RetranslatorFields): number {
    return Number(this.s.insert.run(userId, f.name, f.protocolId, f.address, f.port, f.login, f.password, f.enabled ? 1 : 0).lastInsertRowid);
  }
  update(userId: number, id: number, f: RetranslatorFields): boolean {
    return this.s.update.run(f.name, f.protocolId, f.address, f.port, f.login, f.password, f.enabled ? 1 : 0, id, userId).changes > 0;
  }
  delete(userId: number, id: number): boolean {
    return this.s.delete.run(id, userId).changes > 0;
  }

  bindings(retranslatorId: number): BindingRow[] {
    return this.s.bindings.all(retranslatorId);
  }
  userBindings(userId: number): BindingRow[] {
    return this.s.userBindings.all(userId);
  }
  /**
   * Binds (or changes the fake id of) a tracker; a new binding starts at the log's end, so only
   * fixes committed after it are forwarded.
   */
  bind(retranslatorId: number, trackerId: number, sourceId: number, fakeDeviceId: string | null, now: number): void {
    this.db.transaction(() => {
      this.s.bind.run(retranslatorId, trackerId, sourceId, fakeDeviceId, now);
      this.s.bump.run(retranslatorId);
    })();
  }
  unbind(retranslatorId: number, trackerId: number): boolean {
    return this.db.transaction(() => {
      const gone = this.s.unbind.run(retranslatorId, trackerId).changes > 0;
      if (gone) this.s.bump.run(retranslatorId);
      return gone;
    })();
  }

  // ---- the engine's side

  /**
   * How long this connection's writes wait for the write lock (busy_timeout). The forwarding engine's
   * own connection waits briefly: its writes (cursors, pruning) are retried later anyway, and a long
   * wait would block the engine's thread while the gateway's writer commits back to back.
   */
  lockWait(ms: number): void {
    this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(ms))}`);
  }

  maxSeq(): number {
    return this.s.maxSeq.get()!;
  }
  /** Up to `limit` of the retranslator's entries after `after` (and at most `upTo`) not yet acknowledged, in arrival order, with their fixes. */
  batch(retranslatorId: number, after: number, upTo: number, limit: number): LogRow[] {
    return this.withFixes((a, want) => this.s.batch.all(retranslatorId, a, upTo, want), after, limit);
  }
  /**
   * Up to `limit` entries after `after` (and at most `upTo`) of every retranslator, in arrival order,
   * with their fixes; with the seq the read reached (`upTo`, or the last entry's when the limit cut it).
   */
  entries(after: number, upTo: number, limit: number): { rows: LogRow[]; to: number } {
    let cut = false;
    const rows = this.withFixes(
      (a, want) => {
        const got = this.s.entries.all(a, upTo, want);
        cut = got.length === want;
        return got;
      },
      after,
      limit,
    );
    return { rows, to: cut && rows.length ? rows[rows.length - 1][LOG.seq] : upTo };
  }
  /** Distinct trackers bound to any retranslator. */
  boundSources(): number {
    return this.s.boundSources.get()!;
  }
  /**
   * Reads entries with `read` (after, how many) until `limit` or the end: a fix no longer a row is in
   * its chunk (compacted while the receiver lagged, docs/storage.md); an entry whose fix is gone
   * altogether is left out, as the inner join did.
   */
  private withFixes(read: (after: number, want: number) => LogRow[], after: number, limit: number): LogRow[] {
    return this.db.transaction(() => {
      let out: LogRow[] | undefined;
      const cache = new Map<number, { chunk: ChunkSpan; rows: StoredFix[] }>();
      while ((out?.length ?? 0) < limit) {
        const want = limit - (out?.length ?? 0);
        const rows = read(after, want);
        if (!out && rows.every((r) => r[LOG.flags] !== null)) out = rows;
        else {
          out ??= [];
          for (const r of rows) {
            if (r[LOG.flags] !== null) out.push(r);
            else {
              const f = this.chunks.chunkFixAt(r[LOG.sourceId], r[LOG.time], cache);
              if (f) out.push(fromChunk(r[LOG.seq], r[LOG.sourceId], f));
            }
          }
        }
        if (rows.length < want) break;
        after = rows[rows.length - 1][LOG.seq];
      }
      return out ?? [];
    })();
  }
  /** Fixes waiting for the retranslator's receiver. */
  backlog(retranslatorId: number): number {
    return this.s.backlog.get(retranslatorId, retranslatorId)!;
  }
  /** The backlog and the log's end it was counted at, read together. */
  backlogAt(retranslatorId: number): { backlog: number; maxSeq: number } {
    return this.db.transaction(() => ({ backlog: this.backlog(retranslatorId), maxSeq: this.maxSeq() }))();
  }
  /** Entries logged for the retranslator's trackers in (after, upTo], whatever their cursors. */
  logged(retranslatorId: number, after: number, upTo: number): number {
    return this.s.logged.get(retranslatorId, after, upTo)!;
  }
  minCursor(retranslatorId: number): number | null {
    return this.s.minCursor.get(retranslatorId) ?? null;
  }
  /** After an acknowledgement: each source's cursor moves up to the highest acknowledged seq (never back). */
  advance(retranslatorId: number, cursors: Map<number, number>, lastFixTime: number): void {
    this.db.transaction(() => {
      this.s.advance.run(JSON.stringify([...cursors]), retranslatorId);
      this.s.lastForwarded.run(lastFixTime, retranslatorId);
    })();
  }
  /** Drops the log entries every cursor has passed among the `limit` seqs from the oldest entry on (up to `limit`); answers how many. */
  prune(limit: number): number {
    const min = this.s.globalMin.get() ?? this.maxSeq();
    return this.s.prune.run(min, limit).changes;
  }
}
