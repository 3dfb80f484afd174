/**
 * A per-tracker cache over the geofence index, answering what `GeoIndex.probe` answers for a
 * tracker's points in order (a test checks it), at a fraction of the cost:
 *
 * - Candidates: the geofences within `radius` of the last search point. While the tracker stays
 *   within `radius - margin` of that point, only those can be within `margin` of it: no tree search
 *   (a moving vehicle searches every couple of hundred metres, a parked one once).
 * - Movement bounds: a geofence whose edge was `d` metres away when last tested exactly cannot be
 *   within the margin, nor have changed sides, before the tracker has moved about `d - margin`
 *   (triangle inequality; the distance travelled is summed point to point, an upper bound of the
 *   displacement). Until then its answer is known without a test: a vehicle deep inside a zone or
 *   well clear of one pays nothing for it.
 * - Box test: the rest are tested exactly only when their box meets the point's margin box (the
 *   filter the index's search applies).
 *
 * A hit's `distance` is exact when under the margin; when the answer came from a bound it is a lower
 * bound of the distance, itself at least the margin (all the visit stage asks is which side of the
 * margin it lies).
 */
import type { GeoHit, GeoIndex, Item } from './index.ts';
import { edgeDistance, haversineM, marginBox } from './shapes.ts';

/**
 * Distances to edges are measured in local projections (within 0.2% of great-circle distances for
 * edges up to 50 km, docs/geofences.md): bounds keep a 5% margin for that, plus a metre for rounding.
 */
const BOUND_SCALE = 0.95;
const BOUND_SLACK_M = 1;

export class NearbyProbe {
  private center: { lat: number; lng: number } | null = null;
  private items: Item[] = [];
  /** The cached items' boxes, flat (minX, minY, maxX, maxY each): the per-point loop reads only these. */
  private boxes = new Float64Array(0);
  /** Per item: the edge distance of its last exact test (NaN: none), the travel then, and the side. */
  private testedDistance = new Float64Array(0);
  private testedAt = new Float64Array(0);
  private testedInside = new Uint8Array(0);
  /** Metres travelled, summed point to point, and the last point. */
  private travelled = 0;
  private last: { lat: number; lng: number } | null = null;
  /** Exact tests made (statistics: the bounds' worth). */
  exactTests = 0;

  constructor(
    private index: GeoIndex,
    private ownerIds: readonly number[],
    private trackerId: number | undefined,
    private radius = 1000,
  ) {}

  probe(lat: number, lng: number, margin: number): GeoHit[] {
    if (this.last) this.travelled += haversineM(lat, lng, this.last.lat, this.last.lng);
    this.last = { lat, lng };
    if (margin >= this.radius / 2 || !this.center || haversineM(lat, lng, this.center.lat, this.center.lng) > this.radius - margin) this.refill(lat, lng, margin);
    const out: GeoHit[] = [];
    const n = this.items.length;
    if (!n) return out;
    const m = marginBox(lat, lng, margin);
    const b = this.boxes;
    const dist = this.testedDistance;
    for (let i = 0, k = 0; i < n; i++, k += 4) {
      // Known from the last exact test while the tracker has not moved far enough to matter.
      const bound = (dist[i] - margin) * BOUND_SCALE - BOUND_SLACK_M - (this.travelled - this.testedAt[i]);
      if (bound >= 0) {
        if (this.testedInside[i]) out.push({ kind: this.items[i].fence.kind, id: this.items[i].fence.id, inside: true, distance: margin + bound });
        continue;
      }
      if (b[k] > m.maxX || b[k + 1] > m.maxY || b[k + 2] < m.minX || b[k + 3] < m.minY) continue;
      const f = this.items[i].fence;
      const { inside, distance } = edgeDistance(f.shape, lat, lng);
      this.exactTests++;
      dist[i] = distance;
      this.testedAt[i] = this.travelled;
      this.testedInside[i] = inside ? 1 : 0;
      if (inside || distance <= margin) out.push({ kind: f.kind, id: f.id, inside, distance });
    }
    return out;
  }

  /** New candidates around this point; bounds of those already cached carry over. */
  private refill(lat: number, lng: number, margin: number): void {
    const before = new Map(this.items.map((it, i) => [it, i]));
    const items = this.index.near(this.ownerIds, lat, lng, Math.max(this.radius, margin * 2), this.trackerId);
    this.center = margin >= this.radius / 2 ? null : { lat, lng };
    const boxes = new Float64Array(items.length * 4);
    const dist = new Float64Array(items.length).fill(NaN);
    const at = new Float64Array(items.length);
    const inside = new Uint8Array(items.length);
    items.forEach((it, i) => {
      boxes[i * 4] = it.minX;
      boxes[i * 4 + 1] = it.minY;
      boxes[i * 4 + 2] = it.maxX;
      boxes[i * 4 + 3] = it.maxY;
      const j = before.get(it);
      if (j === undefined) return;
      dist[i] = this.testedDistance[j];
      at[i] = this.testedAt[j];
      inside[i] = this.testedInside[j];
    });
    this.items = items;
    this.boxes = boxes;
    this.testedDistance = dist;
    this.testedAt = at;
    this.testedInside = inside;
  }
}
