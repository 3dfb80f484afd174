/**
 * The one read path of fixes (issue 15, docs/storage.md): a device's history is rows of `fixes`
 * (recent and not yet processed data) and compact chunks of `fix_chunks` (migration 031, encoded
 * by src/core/fix-chunk.ts). Chunks of a device never overlap, and no row lies inside a chunk's
 * [first_time, last_time] (the writer reopens a chunk before a late record lands in it), so a
 * period is a sequence of pieces, each either a chunk or a range of rows, in time order.
 *
 * Every reader of fixes reads through here: `readFixes`/`iterateFixes` give rows (chunks decode
 * only the asked columns); readers with a faster row path of their own (the track columns, the
 * telemetry columns) walk `pieces` and read the row ranges their way.
 */
import type { DB } from './db.ts';
import { decodeFixChunk, decodeFixChunkColumns, FIX_COLUMNS, type FixChunkColumns, type FixColumn, type StoredFix } from '../core/fix-chunk.ts';
import type { FullPointColumns } from '../core/point.ts';

export type { FixColumn, StoredFix } from '../core/fix-chunk.ts';

/** A chunk's key and span; `data` is read when the chunk is decoded. */
export interface ChunkSpan {
  first_time: number;
  last_time: number;
  count: number;
}

/** One piece of a period: a chunk (clipped to the period: [from, to]) or a range of rows. */
export type Piece = { chunk: ChunkSpan; from: number; to: number } | { chunk: null; from: number; to: number };

/** Times are integer ms: the range of rows between two chunks is [last + 1, next first - 1]. */
const END = Number.MAX_SAFE_INTEGER;

const ROW_SQL = `SELECT time, lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, attrs, odometer, hours, fuel_used FROM fixes`;

export class FixChunkStore {
  private s;

  constructor(private db: DB) {
    this.s = {
      // Both ranges of the primary key: the chunk holding (or preceding) a time, and those starting in a span.
      atOrBefore: db.prepare<[number, number], ChunkSpan>('SELECT first_time, last_time, count FROM fix_chunks WHERE source_id = ? AND first_time <= ? ORDER BY first_time DESC LIMIT 1'),
      startingIn: db.prepare<[number, number, number], ChunkSpan>('SELECT first_time, last_time, count FROM fix_chunks WHERE source_id = ? AND first_time > ? AND first_time <= ? ORDER BY first_time'),
      anyIn: db.prepare<[number, number, number], number>('SELECT 1 FROM fix_chunks WHERE source_id = ? AND first_time > ? AND first_time <= ? LIMIT 1').pluck(),
      data: db.prepare<[number, number], Buffer>('SELECT data FROM fix_chunks WHERE source_id = ? AND first_time = ?').pluck(),
      rows: db.prepare<[number, number, number], StoredFix>(`${ROW_SQL} WHERE source_id = ? AND time BETWEEN ? AND ? ORDER BY time`),
      rowsLimit: db.prepare<[number, number, number, number], StoredFix>(`${ROW_SQL} WHERE source_id = ? AND time BETWEEN ? AND ? ORDER BY time LIMIT ?`),
      minReceived: db.prepare<[number, number], number | null>('SELECT min(received) FROM fixes WHERE source_id = ? AND time > ?').pluck(),
    };
  }

  /** The chunk whose span holds `time`, if any. */
  covering(sourceId: number, time: number): ChunkSpan | undefined {
    const c = this.s.atOrBefore.get(sourceId, time);
    return c && c.last_time >= time ? c : undefined;
  }

  /** Whether any chunk of the device overlaps [from, to] (two primary-key seeks). */
  anyIn(sourceId: number, from: number, to: number): boolean {
    return this.covering(sourceId, from) !== undefined || this.s.anyIn.get(sourceId, from, to) !== undefined;
  }

  /** The chunks overlapping [from, to], in time order. */
  chunksIn(sourceId: number, from: number, to: number): ChunkSpan[] {
    const out = this.s.startingIn.all(sourceId, from, to);
    const first = this.covering(sourceId, from);
    if (first) out.unshift(first);
    return out;
  }

  /** [from, to] as chunks and ranges of rows, in time order (empty row ranges between adjacent chunks left out). */
  pieces(sourceId: number, from: number, to: number): Piece[] {
    const out: Piece[] = [];
    let at = from;
    for (const c of this.chunksIn(sourceId, from, to)) {
      if (c.first_time > at) out.push({ chunk: null, from: at, to: c.first_time - 1 });
      out.push({ chunk: c, from: Math.max(at, c.first_time), to: Math.min(to, c.last_time) });
      at = c.last_time + 1;
    }
    if (at <= to) out.push({ chunk: null, from: at, to });
    return out;
  }

  /** A chunk's columns (only `want`'s and time filled when given; null: NaN), in time order. */
  decodeColumns(sourceId: number, chunk: ChunkSpan, want?: readonly FixColumn[]): FixChunkColumns | undefined {
    const data = this.s.data.get(sourceId, chunk.first_time);
    return data ? decodeFixChunkColumns(data, want) : undefined;
  }

  /** A chunk's rows (only `want`'s members and time filled when given), in time order. */
  decode(sourceId: number, chunk: ChunkSpan, want?: readonly FixColumn[]): StoredFix[] {
    const data = this.s.data.get(sourceId, chunk.first_time);
    return data ? decodeFixChunk(data, want) : [];
  }

  /**
   * The device's fixes of [from, to] in time order, at most `limit`: rows of `fixes` whole, rows of
   * chunks with `columns` filled (all when not given; the others null).
   */
  readFixes(sourceId: number, from: number, to: number, columns?: readonly FixColumn[], limit = Infinity): StoredFix[] {
    const out: StoredFix[] = [];
    for (const p of this.pieces(sourceId, from, to)) {
      if (out.length >= limit) break;
      if (p.chunk) {
        for (const r of this.decode(sourceId, p.chunk, columns)) if (r.time >= p.from && r.time <= p.to && out.length < limit) out.push(r);
      } else if (limit === Infinity) out.push(...this.s.rows.all(sourceId, p.from, p.to));
      else out.push(...this.s.rowsLimit.all(sourceId, p.from, p.to, limit - out.length));
    }
    return out;
  }

  /** The same as `readFixes`, a piece at a time (long periods: rows are read lazily). */
  *iterateFixes(sourceId: number, from: number, to: number, columns?: readonly FixColumn[]): Generator<StoredFix> {
    // One read snapshot over the whole walk: a compaction committing meanwhile (another
    // connection) must not move rows out of a range between its pieces.
    const own = !this.db.inTransaction;
    if (own) this.db.exec('BEGIN');
    try {
      for (const p of this.pieces(sourceId, from, to)) {
        if (p.chunk) {
          for (const r of this.decode(sourceId, p.chunk, columns)) if (r.time >= p.from && r.time <= p.to) yield r;
        } else {
          // rows first (a statement iterating keeps the connection busy while the caller runs)
          const rows = this.s.rows.all(sourceId, p.from, p.to);
          yield* rows;
        }
      }
    } finally {
      if (own && this.db.inTransaction) this.db.exec('COMMIT');
    }
  }

  /** The earliest receipt among the device's fixes after `time` (null: none). */
  minReceivedAfter(sourceId: number, time: number): number | null {
    let min = this.s.minReceived.get(sourceId, time) ?? null;
    for (const c of this.chunksIn(sourceId, time + 1, END)) {
      for (const r of this.decode(sourceId, c, ['received'])) if (r.time > time && (min === null || r.received < min)) min = r.received;
    }
    return min;
  }

  /** The fix of the device at `time` exactly, from a chunk (rows are joined by SQL): `cache` keeps the last decoded chunk per device. */
  chunkFixAt(sourceId: number, time: number, cache: Map<number, { chunk: ChunkSpan; rows: StoredFix[] }>): StoredFix | undefined {
    let hit = cache.get(sourceId);
    if (!hit || time < hit.chunk.first_time || time > hit.chunk.last_time) {
      const chunk = this.covering(sourceId, time);
      if (!chunk) return undefined;
      hit = { chunk, rows: this.decode(sourceId, chunk) };
      cache.set(sourceId, hit);
    }
    return findTime(hit.rows, time);
  }
}

/**
 * Appends the located rows (lat not null) of [from, to] to the telemetry's columns, up to `limit`
 * in all, each value as the row path's aggregate stores it (null: NaN; flags as stored).
 */
export function chunkPointColumns(rows: StoredFix[], from: number, to: number, c: FullPointColumns, limit: number): void {
  const nan = (v: number | null) => v ?? NaN;
  for (const r of rows) {
    if (c.n >= limit) return;
    if (r.time < from || r.time > to || r.lat === null) continue;
    const i = c.n++;
    c.time[i] = r.time;
    c.lat[i] = r.lat;
    c.lng[i] = Number(r.lng);
    c.alt[i] = nan(r.alt);
    c.speed[i] = nan(r.speed);
    c.course[i] = nan(r.course);
    c.satellites[i] = nan(r.satellites);
    c.precision[i] = nan(r.precision);
    c.hdop[i] = nan(r.hdop);
    c.odometer[i] = nan(r.odometer);
    c.hours[i] = nan(r.hours);
    c.fuelUsed[i] = nan(r.fuel_used);
    c.flags[i] = r.flags;
  }
}

/** Binary search of a time among rows in time order. */
export function findTime(rows: StoredFix[], time: number): StoredFix | undefined {
  let a = 0;
  let b = rows.length - 1;
  while (a <= b) {
    const m = (a + b) >> 1;
    const t = rows[m].time;
    if (t === time) return rows[m];
    if (t < time) a = m + 1;
    else b = m - 1;
  }
  return undefined;
}

export { FIX_COLUMNS };
