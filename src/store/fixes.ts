/**
 * Fixes and the latest device state: the writer's side (one transaction per group commit) and
 * simple reads. Rows arrive packed (`PackedRows`, src/core/point.ts) so the gateway's writer thread can
 * insert them without building objects.
 */
import { openDatabase, type DB } from './db.ts';
import type { DeviceStateRow } from './device-state.ts';
import { emptyColumns, isGnssFix, trackPointsOf, ROW as F, ROW_WIDTH as COLS, type PackedRows } from '../core/point.ts';
import { decodeFixChunk, type StoredFix } from '../core/fix-chunk.ts';
import { TrackPointStore } from './track-points.ts';
import type { CommittedLog } from './retranslators.ts';

/** The writer's in-memory device state: the stored row with its attributes parsed. */
type State = Omit<DeviceStateRow, 'source_id' | 'attrs'> & { attrs: Record<string, [unknown, number]> };

const num = (v: number) => (Number.isNaN(v) ? null : v);

/** Rows per INSERT statement: one statement execution per many rows is much cheaper than one per row. */
const ROWS_PER_INSERT = 64;
const COLUMNS = 16;

function insertSql(rows: number): string {
  const values = Array.from({ length: rows }, () => `(${Array(COLUMNS).fill('?').join(', ')})`).join(', ');
  return `INSERT INTO fixes (source_id, time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, attrs, odometer, hours, fuel_used)
       VALUES ${values}
       ON CONFLICT (source_id, time) DO UPDATE SET
         lat = coalesce(excluded.lat, lat), lng = coalesce(excluded.lng, lng), alt = coalesce(excluded.alt, alt),
         speed = coalesce(excluded.speed, speed), course = coalesce(excluded.course, course),
         satellites = coalesce(excluded.satellites, satellites), hdop = coalesce(excluded.hdop, hdop),
         precision = coalesce(excluded.precision, precision), flags = flags | excluded.flags,
         odometer = coalesce(excluded.odometer, odometer), hours = coalesce(excluded.hours, hours), fuel_used = coalesce(excluded.fuel_used, fuel_used),
         attrs = CASE WHEN attrs IS NULL THEN excluded.attrs WHEN excluded.attrs IS NULL THEN attrs ELSE json_patch(attrs, excluded.attrs) END`;
}

/** Durability of a commit: FULL survives power loss, NORMAL (in WAL mode) a process crash. */
export type Synchronous = 'FULL' | 'NORMAL';

/** The writer thread's own connection and fix store, with the durability it commits at. */
export function openFixStore(dbFile: string, synchronous: Synchronous): { fixes: FixStore; close(): void } {
  const db = openDatabase(dbFile);
  db.pragma(`synchronous = ${synchronous}`);
  return { fixes: new FixStore(db), close: () => db.close() };
}

export class FixStore {
  private insertStmt;
  private insertMany;
  private stateGet;
  private statePut;
  private seenStmt;
  private pendingStmt;
  private chunkAt;
  private chunkDelete;
  private logHigh;
  private logDrop;
  private logSince;
  private points: TrackPointStore;
  /** Latest state per source, kept in memory by the single writer (loaded on first touch). */
  private states = new Map<number, State>();
  /**
   * Keep what each commit appended to the forwarding log (`logged`) for the hand-off to the forwarding
   * engine; off, a commit does no more than the triggers do.
   */
  handOff = false;
  /** The last commit's log entries with their fixes, when it can be handed off (`CommittedLog`). */
  logged: CommittedLog | null = null;

  constructor(private db: DB) {
    this.insertStmt = db.prepare(insertSql(1));
    this.insertMany = db.prepare(insertSql(ROWS_PER_INSERT));
    this.stateGet = db.prepare<[number], DeviceStateRow>('SELECT * FROM device_state WHERE source_id = ?');
    this.statePut = db.prepare(
      `INSERT OR REPLACE INTO device_state (source_id, fix_time, lat, lng, alt, speed, course, satellites, precision, last_time, attrs, updated)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // Compacted history (migration 031, docs/storage.md): the chunk a late record falls into.
    this.chunkAt = db.prepare<[number, number], { first_time: number; last_time: number; data: Buffer }>(
      'SELECT first_time, last_time, data FROM fix_chunks WHERE source_id = ? AND first_time <= ? ORDER BY first_time DESC LIMIT 1',
    );
    this.chunkDelete = db.prepare('DELETE FROM fix_chunks WHERE source_id = ? AND first_time = ?');
    // Reopened rows are no new data: the forwarding log entries their inserts logged go again.
    this.logHigh = db.prepare<[], number>("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'forward_log'), 0)").pluck();
    this.logDrop = db.prepare('DELETE FROM forward_log WHERE source_id = ? AND seq > ?');
    this.logSince = db.prepare<[number], [number, number]>('SELECT source_id, time FROM forward_log WHERE seq > ? ORDER BY seq').raw(true);
    this.points = new TrackPointStore(db);
    this.seenStmt = db.prepare('UPDATE sources SET last_seen = ?, first_seen = coalesce(first_seen, ?) WHERE id = ?');
    // What the telemetry core still has to process: the earliest new fix time per device (migration 009).
    this.pendingStmt = db.prepare(
      `INSERT INTO telemetry_pending (source_id, from_time, version, late_from, late_version) VALUES (?, ?, 1, ?, ?)
       ON CONFLICT (source_id) DO UPDATE SET from_time = min(from_time, excluded.from_time), version = version + 1,
         late_from = CASE WHEN excluded.late_from IS NULL THEN late_from ELSE min(coalesce(late_from, excluded.late_from), excluded.late_from) END,
         late_version = late_version + excluded.late_version`,
    );
  }

  private state(sourceId: number): State {
    let s = this.states.get(sourceId);
    if (!s) {
      const row = this.stateGet.get(sourceId);
      s = row ? { ...row, attrs: JSON.parse(row.attrs) } : { fix_time: null, lat: null, lng: null, alt: null, speed: null, course: null, satellites: null, precision: null, last_time: null, attrs: {} };
      this.states.set(sourceId, s);
    }
    return s;
  }

  /** Insert packed rows and bring the device states up to date, in one transaction. */
  write(batches: PackedRows[], now: number): number {
    let n = 0;
    const touched = new Set<number>();
    const earliest = new Map<number, number>();
    const newestBefore = new Map<number, number | null>();
    // every row a new one (not at or before its device's newest fix): then each logged fix is stored as packed
    let fresh = this.handOff;
    let logFrom = 0;
    this.logged = null;
    const run = this.db.transaction(() => {
      if (fresh) logFrom = this.logHigh.get()!;
      const params: unknown[] = [];
      for (const b of batches) {
        const v = b.values;
        // one packed message holds the rows of one device
        for (let r = 0; r < b.attrs.length; r++) {
          const o = r * COLS;
          const sourceId = v[o + F.source];
          const time = v[o + F.time];
          const flags = v[o + F.flags];
          // Late data into compacted history: its chunk goes back to rows first, so the repeat of
          // an instant merges exactly as into an uncompacted row (compaction packs it again later).
          const last = this.state(sourceId).last_time;
          if (last !== null && time <= last) {
            fresh = false;
            this.reopen(sourceId, time);
          }
          params.push(sourceId, time, num(v[o + F.lat]), num(v[o + F.lng]), num(v[o + F.alt]), num(v[o + F.speed]), num(v[o + F.course]), num(v[o + F.satellites]), num(v[o + F.hdop]), num(v[o + F.precision]), flags, now, b.attrs[r], num(v[o + F.odometer]), num(v[o + F.hours]), num(v[o + F.fuelUsed]));
          if (params.length === ROWS_PER_INSERT * COLUMNS) {
            this.insertMany.run(params);
            params.length = 0;
          }
          const st = this.state(sourceId);
          // The device's newest fix before this commit: new data at or before it is late data.
          if (!touched.has(sourceId)) newestBefore.set(sourceId, st.last_time);
          this.advance(st, v, o);
          touched.add(sourceId);
          const e = earliest.get(sourceId);
          if (e === undefined || time < e) earliest.set(sourceId, time);
          n++;
        }
        if (b.latest && b.attrs.length) mergeLatest(this.state(v[F.source]).attrs, b.latest);
      }
      // The rest, one row at a time. (Within one statement, a row repeating an instant of an
      // earlier row of the same statement is merged like any other repeat.)
      for (let i = 0; i < params.length; i += COLUMNS) this.insertStmt.run(params.slice(i, i + COLUMNS));
      for (const id of touched) {
        const s = this.states.get(id)!;
        this.statePut.run(id, s.fix_time, s.lat, s.lng, s.alt, s.speed, s.course, s.satellites, s.precision, s.last_time, JSON.stringify(s.attrs), now);
        this.seenStmt.run(now, now, id);
        const from = earliest.get(id)!;
        const newest = newestBefore.get(id);
        const late = newest !== null && newest !== undefined && from <= newest;
        this.pendingStmt.run(id, from, late ? from : null, late ? 1 : 0);
      }
      if (fresh) this.logged = this.committedLog(batches, logFrom, now);
    });
    try {
      // IMMEDIATE: the write lock is taken at BEGIN, where a busy database is waited for (busy
      // timeout); a deferred transaction that read first would fail at once on its first write.
      run.immediate();
    } catch (e) {
      // The transaction rolled back: forget the in-memory states so they are read again from the file.
      for (const id of touched) this.states.delete(id);
      this.logged = null;
      throw e;
    }
    return n;
  }

  /**
   * The log entries after `from` (this transaction's) matched to the packed rows they were logged for,
   * in order: the triggers log every row of a bound device, so entry k is the next row of its device
   * and time. Null when nothing was logged or anything does not match (nothing is then handed off).
   */
  private committedLog(batches: PackedRows[], from: number, now: number): CommittedLog | null {
    const to = this.logHigh.get()!;
    if (to <= from) return null;
    const entries = this.logSince.all(from);
    if (entries.length !== to - from) return null;
    const values = new Float64Array(entries.length * COLS);
    const attrs: Array<string | null> = new Array(entries.length);
    let k = 0;
    for (const b of batches) {
      const v = b.values;
      for (let r = 0; r < b.attrs.length && k < entries.length; r++) {
        const o = r * COLS;
        if (v[o + F.source] !== entries[k][0] || v[o + F.time] !== entries[k][1]) continue;
        values.set(v.subarray(o, o + COLS), k * COLS);
        attrs[k++] = b.attrs[r];
      }
    }
    return k === entries.length ? { from, to, received: now, values, attrs } : null;
  }

  /**
   * The chunk holding `time`, if any, back into rows of `fixes` (and its track points back into the
   * packed points, which compaction had dropped), in the writer's transaction.
   */
  private reopen(sourceId: number, time: number): void {
    const c = this.chunkAt.get(sourceId, time);
    if (!c || c.last_time < time) return;
    const rows = decodeFixChunk(c.data);
    this.chunkDelete.run(sourceId, c.first_time);
    const logged = this.logHigh.get()!;
    const params: unknown[] = [];
    const put = (r: StoredFix) => params.push(sourceId, r.time, r.lat, r.lng, r.alt, r.speed, r.course, r.satellites, r.hdop, r.precision, r.flags, r.received, r.attrs, r.odometer, r.hours, r.fuel_used);
    let i = 0;
    for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT) {
      params.length = 0;
      for (let k = i; k < i + ROWS_PER_INSERT; k++) put(rows[k]);
      this.insertMany.run(params);
    }
    for (; i < rows.length; i++) {
      params.length = 0;
      put(rows[i]);
      this.insertStmt.run(params);
    }
    this.logDrop.run(sourceId, logged);
    const cols = emptyColumns(rows.length);
    for (const r of rows) {
      cols.time[cols.n] = r.time;
      cols.lat[cols.n] = r.lat ?? NaN;
      cols.lng[cols.n] = r.lng ?? NaN;
      cols.flags[cols.n++] = r.flags;
    }
    this.points.replace(sourceId, c.first_time, c.last_time, trackPointsOf(cols));
  }

  /** Newer data wins: the last valid GNSS fix (LBS excluded), the last record. */
  private advance(s: State, v: Float64Array, o: number): void {
    const time = v[o + F.time];
    if (s.last_time === null || time > s.last_time) s.last_time = time;
    const flags = v[o + F.flags];
    const hasFix = !Number.isNaN(v[o + F.lat]) && !Number.isNaN(v[o + F.lng]);
    if (hasFix && isGnssFix(flags) && (s.fix_time === null || time >= s.fix_time)) {
      s.fix_time = time;
      s.lat = v[o + F.lat];
      s.lng = v[o + F.lng];
      s.alt = num(v[o + F.alt]);
      s.speed = num(v[o + F.speed]);
      s.course = num(v[o + F.course]);
      s.satellites = num(v[o + F.satellites]);
      s.precision = num(v[o + F.precision]);
    }
  }
}

/** Every attribute's latest value wins, whatever order messages arrive in (late buffered data does not overwrite newer values). */
function mergeLatest(into: Record<string, [unknown, number]>, latestJson: string): void {
  const latest = JSON.parse(latestJson) as Record<string, [unknown, number]>;
  for (const k in latest) {
    const prev = into[k];
    if (!prev || prev[1] <= latest[k][1]) into[k] = latest[k];
  }
}
