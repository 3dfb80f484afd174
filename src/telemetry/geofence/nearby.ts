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
 *   filter the index's search applies); otherwise the gap to the box is their bound.
 *
 * A hit's `distance` is exact when under the margin; when the answer came from a bound it is a lower
 * bound of the distance, itself at least the margin (all the visit stage asks is which side of the
 * margin it lies).
 */
import type { GeoHit, GeoIndex, Item } from './index.ts';
import { distanceM } from '../../core/geo.ts';
import { edgeDistance, M_PER_DEG, marginBox, type Box } from './shapes.ts';

const RAD = Math.PI / 180;

/**
 * Distances to edges are measured in local projections (within 0.2% of great-circle distances for
 * edges up to 50 km, docs/geofences.md): bounds keep a 5% margin for that, plus a metre for rounding.
 */
const BOUND_SCALE = 0.95;
const BOUND_SLACK_M = 1;

export class NearbyProbe {
  private center: { lat: number; lng: number } | null = null;
  private items: Item[] = [];
  /**
   * Per cached item: the distance travelled up to which its last answer still holds (see
   * `settle`; -Infinity: never tested), and whether the point was inside it. A point then costs one
   * comparison per geofence whose answer is known.
   */
  private holdsUntil = new Float64Array(0);
  private inside = new Uint8Array(0);
  /** Metres travelled, summed point to point, and the last point. */
  private travelled = 0;
  private last: { lat: number; lng: number } | null = null;
  /** Exact tests made (statistics: the bounds' worth). */
  exactTests = 0;

  constructor(
    private index: GeoIndex,
    private ownerIds: readonly number[],
    private trackerId: number | undefined,
    private radius = 300,
  ) {}

  probe(lat: number, lng: number, margin: number): GeoHit[] {
    if (this.last) this.travelled += distanceM(lat, lng, this.last.lat, this.last.lng);
    this.last = { lat, lng };
    if (margin >= this.radius / 2 || !this.center || distanceM(lat, lng, this.center.lat, this.center.lng) > this.radius - margin) this.refill(lat, lng, margin);
    const out: GeoHit[] = [];
    const n = this.items.length;
    const t = this.travelled;
    const reach = t + margin * BOUND_SCALE;
    let m: Box | undefined;
    for (let i = 0; i < n; i++) {
      const until = this.holdsUntil[i];
      if (reach <= until) {
        // Still on the same side, at least `margin` from the edge: only an inside one is a hit.
        if (this.inside[i]) out.push({ kind: this.items[i].fence.kind, id: this.items[i].fence.id, inside: true, distance: (until - t + BOUND_SLACK_M) / BOUND_SCALE });
        continue;
      }
      const it = this.items[i];
      m ??= marginBox(lat, lng, margin);
      if (it.minX > m.maxX || it.minY > m.maxY || it.maxX < m.minX || it.maxY < m.minY) {
        // Not near: outside by at least the gap to its box.
        this.settle(i, boxGapM(lat, lng, it), false);
        continue;
      }
      const { inside, distance } = edgeDistance(it.fence.shape, lat, lng);
      this.exactTests++;
      this.settle(i, distance, inside);
      if (inside || distance <= margin) out.push({ kind: it.fence.kind, id: it.fence.id, inside, distance });
    }
    return out;
  }

  /**
   * The point is at least `distance` from item i's edge, on the given side. Until the tracker has
   * travelled about `distance - margin` more, a later point is still at least `margin` from it on
   * the same side: `reach = travelled + margin * scale <= holdsUntil`.
   */
  private settle(i: number, distance: number, inside: boolean): void {
    this.holdsUntil[i] = this.travelled + distance * BOUND_SCALE - BOUND_SLACK_M;
    this.inside[i] = inside ? 1 : 0;
  }

  /** New candidates around this point; what is known of those already cached carries over. */
  private refill(lat: number, lng: number, margin: number): void {
    const before = new Map(this.items.map((it, i) => [it, i]));
    const items = this.index.near(this.ownerIds, lat, lng, Math.max(this.radius, margin * 2), this.trackerId);
    this.center = margin >= this.radius / 2 ? null : { lat, lng };
    const until = new Float64Array(items.length).fill(-Infinity);
    const inside = new Uint8Array(items.length);
    items.forEach((it, i) => {
      const j = before.get(it);
      if (j === undefined) return;
      until[i] = this.holdsUntil[j];
      inside[i] = this.inside[j];
    });
    this.items = items;
    this.holdsUntil = until;
    this.inside = inside;
  }
}

/**
 * A lower bound of the distance in metres from a point outside a box to anything in it: the gap in
 * latitude, or the gap in longitude at the scale of the most poleward latitude involved (metres per
 * degree of longitude only shrink poleward; every metric of shapes.ts measures at least that).
 */
function boxGapM(lat: number, lng: number, b: Box): number {
  const dy = lat < b.minY ? b.minY - lat : lat > b.maxY ? lat - b.maxY : 0;
  const dx = lng < b.minX ? b.minX - lng : lng > b.maxX ? lng - b.maxX : 0;
  const poleward = Math.max(Math.abs(lat), Math.abs(b.minY), Math.abs(b.maxY));
  return Math.max(dy, dx * Math.cos(Math.min(90, poleward) * RAD)) * M_PER_DEG;
}
