/**
 * Line simplification for track/read and track/download point_limit (spec: Limits, 2..3000).
 *
 * Douglas–Peucker refined best-first: start from the first and last point, and keep splitting the
 * segment whose farthest interior point lies farthest from it, until `limit` points are kept. This
 * is Douglas–Peucker with the tolerance searched exactly (the result equals classic DP run with
 * tolerance = the distance of the last split, ties aside), in one pass instead of a binary search
 * over tolerances, and it stops after `limit` splits: ~log2(limit) scans of the whole line.
 * Distances are to the segment (not the infinite line), so a track that turns back is kept.
 */

const EARTH_M_PER_DEG = 6_371_008.8 * (Math.PI / 180);
/** Squared distances below 1 mm² are rounding noise: such a range counts as straight. */
const NEGLIGIBLE_M2 = 1e-6;

interface Range {
  a: number;
  b: number;
  /** Farthest interior point. */
  at: number;
  /** Its squared distance to segment a–b, m². */
  d2: number;
}

/**
 * Indices (ascending) of at most `limit` points to keep, always the first and the last.
 * `lat`/`lng` in degrees; `limit` >= 2.
 */
export function simplifyLine(lat: ArrayLike<number>, lng: ArrayLike<number>, limit: number): Int32Array {
  const n = lat.length;
  if (n <= limit) return Int32Array.from({ length: n }, (_, i) => i);
  if (limit < 2) throw new RangeError('limit must be at least 2');
  const { x, y } = project(lat, lng);
  const keep = new Uint8Array(n);
  keep[0] = keep[n - 1] = 1;
  const heap = new RangeHeap();
  heap.push(farthest(x, y, 0, n - 1));
  for (let kept = 2; kept < limit; kept++) {
    const r = heap.pop()!; // never empty here: n > limit means interior points remain
    keep[r.at] = 1;
    if (r.at - r.a > 1) heap.push(farthest(x, y, r.a, r.at));
    if (r.b - r.at > 1) heap.push(farthest(x, y, r.at, r.b));
  }
  const out = new Int32Array(limit);
  for (let i = 0, k = 0; i < n; i++) if (keep[i]) out[k++] = i;
  return out;
}

/** Local equirectangular projection to metres around the first point (exact enough for a day's drive). */
function project(lat: ArrayLike<number>, lng: ArrayLike<number>): { x: Float64Array; y: Float64Array } {
  const n = lat.length;
  const kx = Math.cos((lat[0] * Math.PI) / 180) * EARTH_M_PER_DEG;
  const x = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = (lng[i] - lng[0]) * kx;
    y[i] = (lat[i] - lat[0]) * EARTH_M_PER_DEG;
  }
  return { x, y };
}

/** The interior point of (a, b) farthest from segment a–b; the middle one when all lie on it (even spread). */
function farthest(x: Float64Array, y: Float64Array, a: number, b: number): Range {
  const ax = x[a];
  const ay = y[a];
  const dx = x[b] - ax;
  const dy = y[b] - ay;
  const len2 = dx * dx + dy * dy;
  let best = -1;
  let max = 0;
  for (let i = a + 1; i < b; i++) {
    const px = x[i] - ax;
    const py = y[i] - ay;
    let t = len2 > 0 ? (px * dx + py * dy) / len2 : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    const ex = px - t * dx;
    const ey = py - t * dy;
    const d2 = ex * ex + ey * ey;
    if (d2 > max) {
      max = d2;
      best = i;
    }
  }
  return max <= NEGLIGIBLE_M2 ? { a, b, at: (a + b) >> 1, d2: 0 } : { a, b, at: best, d2: max };
}

/** Max-heap of ranges by distance; equal distances: the longer range first, so collinear runs split evenly. */
class RangeHeap {
  private items: Range[] = [];
  private static before(p: Range, q: Range): boolean {
    return p.d2 > q.d2 || (p.d2 === q.d2 && p.b - p.a > q.b - q.a);
  }
  push(r: Range): void {
    const h = this.items;
    h.push(r);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!RangeHeap.before(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }
  pop(): Range | undefined {
    const h = this.items;
    if (h.length <= 1) return h.pop();
    const top = h[0];
    h[0] = h.pop()!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && RangeHeap.before(h[l], h[m])) m = l;
      if (r < h.length && RangeHeap.before(h[r], h[m])) m = r;
      if (m === i) return top;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }
}
