/**
 * Pure work on the points of a period (columns from the store, in time order): dropping the
 * points of hidden trips, simplifying to a point limit, and telling which points belong to no
 * track (track point `parking`).
 */
import type { PointColumns } from '../core/point.ts';
import { simplifyLine } from './simplify.ts';

/** A closed time interval [start, end], ms. */
export interface Interval {
  start: number;
  end: number;
}

/** Indices of the points outside every interval (intervals sorted by start). */
export function outside(cols: PointColumns, intervals: Interval[]): Int32Array {
  if (!intervals.length) return range(0, cols.n);
  const inside = membership(cols.time, cols.n, intervals);
  const out: number[] = [];
  for (let i = 0; i < cols.n; i++) if (!inside[i]) out.push(i);
  return Int32Array.from(out);
}

/** For each of `n` ascending times: 1 when inside one of the intervals (sorted by start). */
export function membership(times: ArrayLike<number>, n: number, intervals: Interval[]): Uint8Array {
  const inside = new Uint8Array(n);
  // Running maximum of the ends seen so far: covers intervals that overlap or nest.
  let j = 0;
  let reach = -Infinity;
  for (let i = 0; i < n; i++) {
    const t = times[i];
    while (j < intervals.length && intervals[j].start <= t) reach = Math.max(reach, intervals[j++].end);
    inside[i] = t <= reach ? 1 : 0;
  }
  return inside;
}

/** Of the points at `idx` (ascending indices into cols), those kept by simplification to `limit`; all without a limit. */
export function simplifyIndices(cols: PointColumns, idx: Int32Array, limit: number | undefined): Int32Array {
  if (limit === undefined || idx.length <= limit) return idx;
  // All points (the usual case): simplify the columns in place, no copies.
  if (idx.length === cols.n) return simplifyLine(cols.lat.subarray(0, cols.n), cols.lng.subarray(0, cols.n), limit);
  const lat = new Float64Array(idx.length);
  const lng = new Float64Array(idx.length);
  for (let k = 0; k < idx.length; k++) {
    lat[k] = cols.lat[idx[k]];
    lng[k] = cols.lng[idx[k]];
  }
  return simplifyLine(lat, lng, limit).map((k) => idx[k]);
}

/** Simplifies a line elsewhere (a worker thread); the arrays are handed over (transferred). */
export type Offload = (lat: Float64Array, lng: Float64Array, limit: number) => Promise<Int32Array>;

/**
 * Lines longer than this are simplified by `offload` when given: ~12 scans of a month of 1 s
 * fixes would hold the event loop for well over 100 ms.
 */
export const OFFLOAD_POINTS = 100_000;

/** `simplifyIndices`, with long lines simplified off this thread. Same answer. */
export async function simplifyIndicesOff(cols: PointColumns, idx: Int32Array, limit: number | undefined, offload: Offload | undefined): Promise<Int32Array> {
  if (!offload || limit === undefined || idx.length <= Math.max(limit, OFFLOAD_POINTS)) return simplifyIndices(cols, idx, limit);
  const lat = new Float64Array(idx.length);
  const lng = new Float64Array(idx.length);
  for (let k = 0; k < idx.length; k++) {
    lat[k] = cols.lat[idx[k]];
    lng[k] = cols.lng[idx[k]];
  }
  return (await offload(lat, lng, limit)).map((k) => idx[k]);
}

/** Indices of the points within [from, to] (ascending times). */
export function within(cols: PointColumns, from: number, to: number): Int32Array {
  let a = 0;
  while (a < cols.n && cols.time[a] < from) a++;
  let b = a;
  while (b < cols.n && cols.time[b] <= to) b++;
  return range(a, b);
}

/** a, a+1, ..., b-1 */
function range(a: number, b: number): Int32Array {
  const out = new Int32Array(Math.max(0, b - a));
  for (let k = 0; k < out.length; k++) out[k] = a + k;
  return out;
}
