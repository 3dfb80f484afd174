/**
 * Reads for the track calls (issue 5): the segments the telemetry core wrote to `tracks`, and the
 * points of a period from `fixes`. Which records are points is the one rule `isTrackPoint`
 * (src/core/point.ts), applied here in JS to the rows of the range; GSM LBS ones only when asked.
 *
 * A day of 1 s fixes is 86,400 rows: reading them as row objects costs ~4x the SQLite scan, so
 * `columns` collects time/lat/lng into typed arrays with an aggregate function (one JS call per
 * row, no per-row allocation) and `details` then reads the full rows of only the points kept.
 * (The aggregate is SQLite-specific; a PostgreSQL store would use array_agg for the same.)
 */
import type { DB } from './db.ts';
import { extentOf, type Extent } from '../core/geo.ts';
import { concatColumns, emptyColumns, FLAG, isTrackPoint, type PointColumns } from '../core/point.ts';
import { TrackPointStore } from './track-points.ts';
import { FixChunkStore, type ChunkSpan } from './fix-chunks.ts';

export { concatColumns, emptyColumns, type PointColumns } from '../core/point.ts';

export interface TrackRow {
  id: number;
  source_id: number;
  type: 'trip' | 'single_report';
  start_time: number;
  end_time: number;
  start_lat: number;
  start_lng: number;
  end_lat: number;
  end_lng: number;
  points: number;
  length_km: number;
  max_speed: number;
  avg_speed: number;
  gsm_lbs: number;
  precision: number | null;
  events: number;
  open: number;
  start_address: string | null;
  end_address: string | null;
  /** Diagonal of the trip's bounding box, m, when the telemetry core stored it. */
  extent_m?: number | null;
}

/** The columns in time order: as collected (the usual case), else sorted. */
function ordered(c: PointColumns): PointColumns {
  let sorted = true;
  for (let i = 1; i < c.n && sorted; i++) sorted = c.time[i - 1] < c.time[i];
  if (sorted) return c;
  const idx = Array.from({ length: c.n }, (_, i) => i).sort((a, b) => c.time[a] - c.time[b]);
  const out = emptyColumns(c.n);
  for (const i of idx) {
    out.time[out.n] = c.time[i];
    out.lat[out.n] = c.lat[i];
    out.lng[out.n] = c.lng[i];
    out.flags[out.n++] = c.flags[i];
  }
  return out;
}

function grow(c: PointColumns): void {
  const size = Math.max(16, c.time.length * 2);
  for (const k of ['time', 'lat', 'lng'] as const) {
    const bigger = new Float64Array(size);
    bigger.set(c[k]);
    c[k] = bigger;
  }
  const flags = new Uint8Array(size);
  flags.set(c.flags);
  c.flags = flags;
}

/** One full point row. */
export interface PointRow {
  time: number;
  lat: number;
  lng: number;
  alt: number | null;
  speed: number | null;
  course: number | null;
  satellites: number | null;
  precision: number | null;
  flags: number;
}

const DETAIL_COLUMNS = ['lat', 'lng', 'alt', 'speed', 'course', 'satellites', 'precision', 'flags'] as const;

const extentOfColumns = (c: PointColumns): Extent => extentOf(c.lat, c.lng, c.n);

/** Two extents as one (an empty one, with null bounds, adds nothing). */
function joinExtents(a: Extent, b: Extent): Extent {
  if (!b.n) return a;
  if (!a.n) return b;
  return { n: a.n + b.n, minLat: Math.min(a.minLat, b.minLat), maxLat: Math.max(a.maxLat, b.maxLat), minLng: Math.min(a.minLng, b.minLng), maxLng: Math.max(a.maxLng, b.maxLng) };
}

const LISTED = "type IN ('trip', 'single_report')";
/** Above this many points, `details` scans the range instead of looking each one up. */
const MANY = 5000;

export class TrackStore {
  private inRangeStmt;
  private getStmt;
  private extentStmt;
  private columnsStmt;
  private detailsStmt;
  private settingsStmt;
  private rangeStmt;
  /** Set by the aggregate's result while `columns` runs (synchronous), read right after. */
  private collected: PointColumns | undefined;
  /** Set around a `fixColumns` query: whether GSM LBS points are collected. */
  private withLbs = false;

  private packed: TrackPointStore;
  private chunks: FixChunkStore;
  private inSnapshot: <T>(fn: () => T) => T;

  constructor(db: DB) {
    this.packed = new TrackPointStore(db);
    this.chunks = new FixChunkStore(db);
    this.inSnapshot = (fn) => db.transaction(fn)();
    // Fills the columns of one query row by row: one JS call per row and no per-row objects.
    // (@types/better-sqlite3 types `step` with one argument; SQLite passes one per SQL argument.)
    // Returning nothing keeps the accumulator (cheaper than handing it back on every row).
    const step = (acc: PointColumns, time: number, lat: number | null, lng: number | null, flags: number): void => {
      if (!isTrackPoint(flags, lat, lng) || (!this.withLbs && flags & FLAG.lbs)) return;
      if (acc.n === acc.time.length) grow(acc);
      acc.time[acc.n] = time;
      acc.lat[acc.n] = lat!;
      acc.lng[acc.n] = lng!;
      acc.flags[acc.n++] = flags;
    };
    db.aggregate<PointColumns>('track_points_collect', {
      start: () => emptyColumns(4096),
      step: step as unknown as (acc: PointColumns) => void,
      // The columns are handed over beside SQLite (no blob copies); the query answers the count.
      result: (acc) => {
        this.collected = acc;
        return acc.n;
      },
    });
    // The same rule where SQL aggregates points itself (extents of old rows).
    db.function('fsm_track_point', { deterministic: true }, (flags: unknown, lat: unknown, lng: unknown) => (isTrackPoint(Number(flags), lat as number | null, lng as number | null) ? 1 : 0));
    // Overlap with [from, to]; the index narrows by start_time, end_time filters the few older ones.
    this.inRangeStmt = db.prepare<[number, number, number], TrackRow>(
      `SELECT * FROM tracks WHERE source_id = ? AND start_time <= ? AND end_time >= ? AND ${LISTED} ORDER BY start_time, id`,
    );
    this.getStmt = db.prepare<[number, number], TrackRow>(`SELECT * FROM tracks WHERE id = ? AND source_id = ? AND ${LISTED}`);
    this.extentStmt = db.prepare<[number, number, number], Extent>(
      `SELECT count(*) AS n, min(lat) AS minLat, max(lat) AS maxLat, min(lng) AS minLng, max(lng) AS maxLng
       FROM fixes WHERE source_id = ? AND time BETWEEN ? AND ? AND fsm_track_point(flags, lat, lng)`,
    );
    this.columnsStmt = db
      .prepare<[number, number, number]>(
        // A primary-key range scan: rows arrive in time order (checked in `columns`; a subquery with
        // ORDER BY would cost a co-routine per row). The step keeps the points (`isTrackPoint`).
        `SELECT track_points_collect(time, lat, lng, flags) FROM fixes WHERE source_id = ? AND time BETWEEN ? AND ?`,
      )
      .pluck();
    this.detailsStmt = db.prepare<[number, string], PointRow>(
      `SELECT time, lat, lng, alt, speed, course, satellites, precision, flags FROM fixes
       WHERE source_id = ? AND time IN (SELECT value FROM json_each(?)) ORDER BY time`,
    );
    this.rangeStmt = db.prepare<[number, number, number], PointRow>(
      `SELECT time, lat, lng, alt, speed, course, satellites, precision, flags FROM fixes WHERE source_id = ? AND time BETWEEN ? AND ? ORDER BY time`,
    );
    this.settingsStmt = db.prepare<[number], string>('SELECT settings FROM telemetry_settings WHERE source_id = ?').pluck();
  }

  /** Trips and single reports overlapping [from, to], in time order. */
  inRange(sourceId: number, from: number, to: number): TrackRow[] {
    return this.inRangeStmt.all(sourceId, to, from);
  }

  /** A trip or single report of the source. */
  get(sourceId: number, id: number): TrackRow | undefined {
    return this.getStmt.get(id, sourceId);
  }

  /** Bounding box of the points in [from, to] (GSM LBS ones included). */
  extent(sourceId: number, from: number, to: number): Extent {
    return this.inSnapshot(() => {
      const parts = this.chunks.pieces(sourceId, from, to).map((p) => (p.chunk ? extentOfColumns(this.chunkColumns(sourceId, p.chunk, p.from, p.to, true)) : this.extentStmt.get(sourceId, p.from, p.to)!));
      return parts.length === 1 ? parts[0] : parts.reduce(joinExtents);
    });
  }

  /** The track points of a chunk within [from, to] (time, location and flags decoded only). */
  private chunkColumns(sourceId: number, chunk: ChunkSpan, from: number, to: number, includeLbs: boolean): PointColumns {
    // Decoded as columns: a month of a fleet's compacted fixes read for the trips report's tracks
    // made an object per fix (bench/reports).
    const c = this.chunks.decodeColumns(sourceId, chunk, ['lat', 'lng', 'flags']);
    const out = emptyColumns(c?.n ?? 0);
    if (!c) return out;
    const { lat, lng, flags } = c.cols;
    for (let i = 0; i < c.n; i++) {
      const t = c.time[i];
      const f = flags[i];
      if (t < from || t > to || !isTrackPoint(f, lat[i], lng[i]) || (!includeLbs && f & FLAG.lbs)) continue;
      out.time[out.n] = t;
      out.lat[out.n] = lat[i];
      out.lng[out.n] = lng[i];
      out.flags[out.n++] = f;
    }
    return out;
  }

  /**
   * Points in [from, to] as columns (arrays may be longer than n): the packed points (track-points.ts)
   * as far as the telemetry core has processed, the rest from `fixes`, read in one snapshot.
   */
  columns(sourceId: number, from: number, to: number, includeLbs: boolean): PointColumns {
    return this.inSnapshot(() => {
      // Compacted ranges from their chunks, the rest as before (docs/storage.md).
      const parts = this.chunks.pieces(sourceId, from, to).map((p) => (p.chunk ? this.chunkColumns(sourceId, p.chunk, p.from, p.to, includeLbs) : this.rowColumns(sourceId, p.from, p.to, includeLbs)));
      return parts.length === 1 ? parts[0] : concatColumns(parts);
    });
  }

  /** Points of a range without chunks: packed points as far as processed, then `fixes`. */
  private rowColumns(sourceId: number, from: number, to: number, includeLbs: boolean): PointColumns {
    {
      const covered = this.packed.coveredUntil(sourceId);
      if (covered < from) return this.fixColumns(sourceId, from, to, includeLbs);
      const stored = this.packed.read(sourceId, from, Math.min(to, covered), includeLbs);
      return covered >= to ? stored : concatColumns([stored, this.fixColumns(sourceId, covered + 1, to, includeLbs)]);
    }
  }

  /** Points in [from, to] read from `fixes`. */
  fixColumns(sourceId: number, from: number, to: number, includeLbs: boolean): PointColumns {
    this.collected = undefined;
    this.withLbs = includeLbs;
    this.columnsStmt.get(sourceId, from, to);
    const out = this.collected ?? emptyColumns(0);
    this.collected = undefined;
    return ordered(out);
  }

  /** The full rows at these ascending times (each an existing point time). Many times: one range scan instead of look-ups. */
  details(sourceId: number, times: number[]): PointRow[] {
    if (!times.length) return [];
    if (this.chunks.anyIn(sourceId, times[0], times[times.length - 1])) return this.inSnapshot(() => this.unionDetails(sourceId, times));
    if (times.length <= MANY) return this.detailsStmt.all(sourceId, JSON.stringify(times));
    const rows = this.rangeStmt.all(sourceId, times[0], times[times.length - 1]);
    const out: PointRow[] = [];
    for (let i = 0, k = 0; i < rows.length && k < times.length; i++) {
      if (rows[i].time === times[k]) {
        out.push(rows[i]);
        k++;
      }
    }
    return out;
  }

  /** `details` over compacted history: the rows and chunks of the span, the asked times picked. */
  private unionDetails(sourceId: number, times: number[]): PointRow[] {
    const rows = this.chunks.readFixes(sourceId, times[0], times[times.length - 1], DETAIL_COLUMNS);
    const out: PointRow[] = [];
    for (let i = 0, k = 0; i < rows.length && k < times.length; i++) {
      if (rows[i].time !== times[k]) continue;
      const r = rows[i];
      out.push({ time: r.time, lat: r.lat!, lng: r.lng!, alt: r.alt, speed: r.speed, course: r.course, satellites: r.satellites, precision: r.precision, flags: r.flags });
      k++;
    }
    return out;
  }

  /** The tracker's processing settings JSON (telemetry_settings), if it has its own. */
  settingsJson(sourceId: number): string | undefined {
    return this.settingsStmt.get(sourceId) as string | undefined;
  }
}
