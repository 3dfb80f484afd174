/**
 * Packed track points (migration 014): the points of a device (valid fixes with a location, not
 * 0,0: `isTrackPoint`, src/core/point.ts) in chunks of up to CHUNK_POINTS consecutive points, each
 * one row holding its times, latitudes, longitudes and GSM LBS marks as packed arrays. track/read of a day of 1 s fixes then
 * reads ~700 small blobs instead of 86,400 rows through a JS call each (~5x faster).
 *
 * Derived data, like tracks: the telemetry workers write them for the span of every window they
 * process (`replace`, in the transaction with the window's other results), so they cover a device's
 * history up to what was processed (`coveredUntil`); readers take newer points from `fixes`.
 *
 * Chunks of one device never overlap in time and are keyed by their first point's time. A window
 * replaces the points of its span and merges them with its neighbours, the partly filled chunk
 * before it included: appending a few live points rewrites one small chunk.
 */
import type { DB } from './db.ts';
import { appendColumns, emptyColumns, FLAG, type PointColumns } from '../core/point.ts';
import { FixChunkStore } from './fix-chunks.ts';

/** ~3.2 KB a chunk: small enough to rewrite on every live window, few enough to read a day quickly. */
export const CHUNK_POINTS = 128;
const BYTES_PER_POINT = 25; // time, lat, lng (float64) + a GSM LBS mark (uint8)

/** Track points (all valid): the common columns. */
export type PackedPoints = PointColumns;
export const emptyPacked = emptyColumns;

/**
 * The stored mark of a point (on disk since migration 014, so it stays): 1 for GSM LBS, else 0.
 * Every stored point is valid, so the flags read back are `valid` plus `lbs` from the mark.
 */
const markOf = (flags: number) => (flags & FLAG.lbs ? 1 : 0);
const flagsOfMark = (mark: number) => (mark ? FLAG.valid | FLAG.lbs : FLAG.valid);

/** Little-endian columns one after the other: time[n], lat[n], lng[n] as float64, then the marks[n]. */
export function packChunk(p: PackedPoints, a: number, b: number): Buffer {
  const n = b - a;
  const buf = Buffer.alloc(n * BYTES_PER_POINT);
  const f = new Float64Array(buf.buffer, buf.byteOffset, n * 3);
  f.set(p.time.subarray(a, b), 0);
  f.set(p.lat.subarray(a, b), n);
  f.set(p.lng.subarray(a, b), 2 * n);
  for (let i = 0; i < n; i++) buf[n * 24 + i] = markOf(p.flags[a + i]);
  return buf;
}

/** Appends a chunk's points to `out` (which must have room). */
function unpackInto(data: Uint8Array, out: PackedPoints): void {
  const n = data.length / BYTES_PER_POINT;
  // A copy to an aligned buffer: SQLite's blob may sit at any offset.
  const f = new Float64Array(Uint8Array.prototype.slice.call(data, 0, n * 24).buffer);
  out.time.set(f.subarray(0, n), out.n);
  out.lat.set(f.subarray(n, 2 * n), out.n);
  out.lng.set(f.subarray(2 * n, 3 * n), out.n);
  for (let i = 0; i < n; i++) out.flags[out.n + i] = flagsOfMark(data[n * 24 + i]);
  out.n += n;
}

/**
 * Appends a chunk's points in [from, to] (GSM LBS ones only with `includeLbs`) to `out`: a chunk
 * wholly inside with nothing to leave out is copied column by column (a month's tracks are read
 * for the trips report: bench/reports), others point by point.
 */
function unpackKept(data: Uint8Array, out: PackedPoints, from: number, to: number, includeLbs: boolean): void {
  const n = data.length / BYTES_PER_POINT;
  if (!n) return;
  const f = new Float64Array(Uint8Array.prototype.slice.call(data, 0, n * 24).buffer);
  const marks = data.subarray(n * 24, n * 25);
  if (f[0] >= from && f[n - 1] <= to && (includeLbs || marks.every((m) => m === 0))) {
    unpackInto(data, out);
    return;
  }
  for (let i = 0; i < n; i++) {
    const t = f[i];
    if (t < from || t > to || (marks[i] && !includeLbs)) continue;
    out.time[out.n] = t;
    out.lat[out.n] = f[n + i];
    out.lng[out.n] = f[2 * n + i];
    out.flags[out.n++] = flagsOfMark(marks[i]);
  }
}

interface ChunkRow {
  first_time: number;
  last_time: number;
  data: Buffer;
}

const countOf = (rows: ChunkRow[]) => rows.reduce((s, r) => s + r.data.length / BYTES_PER_POINT, 0);

export class TrackPointStore {
  private atOrBefore;
  private after;
  private remove;
  private insert;
  private tailStmt;
  private pendingStmt;
  private fixChunks: FixChunkStore;

  constructor(db: DB) {
    this.fixChunks = new FixChunkStore(db);
    // Both ranges of the primary key: the chunk holding (or preceding) a time, and those starting in a span.
    this.atOrBefore = db.prepare<[number, number], ChunkRow>('SELECT first_time, last_time, data FROM track_points WHERE source_id = ? AND first_time <= ? ORDER BY first_time DESC LIMIT 1');
    this.after = db.prepare<[number, number, number], ChunkRow>('SELECT first_time, last_time, data FROM track_points WHERE source_id = ? AND first_time > ? AND first_time <= ? ORDER BY first_time');
    this.remove = db.prepare('DELETE FROM track_points WHERE source_id = ? AND first_time = ?');
    this.insert = db.prepare('INSERT INTO track_points (source_id, first_time, last_time, data) VALUES (?, ?, ?, ?)');
    this.tailStmt = db.prepare<[number], number>('SELECT time FROM telemetry_tail WHERE source_id = ?').pluck();
    this.pendingStmt = db.prepare<[number], number>('SELECT from_time FROM telemetry_pending WHERE source_id = ?').pluck();
  }

  /**
   * The points of [from, to] are now exactly `points` (time order, all within the span); points
   * outside it stay. Call inside the transaction that writes the window's other results.
   */
  replace(sourceId: number, from: number, to: number, points: PackedPoints): void {
    // Compacted history keeps its points in its fix chunks only (docs/storage.md): reprocessing
    // over it does not write them again.
    points = this.outsideChunks(sourceId, from, to, points);
    const before = this.atOrBefore.get(sourceId, from);
    // The chunk holding `from`, or a partly filled one just before it: merged, so appends fill it up.
    const touched = before && (before.last_time >= from || before.data.length / BYTES_PER_POINT < CHUNK_POINTS) ? [before] : [];
    touched.push(...this.after.all(sourceId, from, to));
    if (!touched.length && !points.n) return;
    const old = emptyPacked(countOf(touched));
    for (const r of touched) unpackInto(r.data, old);
    // Old points before the span, the new ones, old points after it.
    const merged = emptyPacked(old.n + points.n);
    const copy = (src: PackedPoints, a: number, b: number) => appendColumns(merged, src, a, b);
    let i = 0;
    while (i < old.n && old.time[i] < from) i++;
    copy(old, 0, i);
    copy(points, 0, points.n);
    let j = i;
    while (j < old.n && old.time[j] <= to) j++;
    copy(old, j, old.n);
    for (const r of touched) this.remove.run(sourceId, r.first_time);
    for (let a = 0; a < merged.n; a += CHUNK_POINTS) {
      const b = Math.min(merged.n, a + CHUNK_POINTS);
      this.insert.run(sourceId, merged.time[a], merged.time[b - 1], packChunk(merged, a, b));
    }
  }

  /** The points not inside a fix chunk's span. */
  private outsideChunks(sourceId: number, from: number, to: number, points: PackedPoints): PackedPoints {
    const chunks = points.n ? this.fixChunks.chunksIn(sourceId, from, to) : [];
    if (!chunks.length) return points;
    const out = emptyPacked(points.n);
    for (let i = 0, k = 0; i < points.n; i++) {
      const t = points.time[i];
      while (k < chunks.length && chunks[k].last_time < t) k++;
      if (k < chunks.length && chunks[k].first_time <= t) continue;
      appendColumns(out, points, i, i + 1);
    }
    return out;
  }

  /** Stored points in [from, to], GSM LBS ones only when asked. */
  read(sourceId: number, from: number, to: number, includeLbs: boolean): PointColumns {
    const rows = this.after.all(sourceId, from, to);
    const before = this.atOrBefore.get(sourceId, from);
    if (before && before.last_time >= from) rows.unshift(before);
    const out = emptyColumns(countOf(rows));
    for (const r of rows) unpackKept(r.data, out, from, to, includeLbs);
    return out;
  }

  /**
   * The time up to which the packed points are complete: the last processed point, or just before
   * data still waiting to be processed from an earlier time (late data); -Infinity when nothing is.
   */
  coveredUntil(sourceId: number): number {
    const tail = this.tailStmt.get(sourceId);
    if (tail === undefined) return -Infinity;
    const pending = this.pendingStmt.get(sourceId);
    return pending === undefined ? tail : Math.min(tail, pending - 1);
  }
}
