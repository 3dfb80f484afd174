/**
 * A per-tracker cache over the geofence index: the geofences within `radius` of the last search
 * point. While the tracker stays within `radius - margin` of that point, only those can be within
 * `margin` of it, so a point costs exact tests of a handful of shapes and no tree search (a moving
 * vehicle searches the tree every couple of hundred metres; a parked one once). Same answers as
 * `GeoIndex.probe` (a test checks it).
 */
import type { GeoHit, GeoIndex, Geofence } from './index.ts';
import { edgeDistance, haversineM } from './shapes.ts';

export class NearbyProbe {
  private center: { lat: number; lng: number } | null = null;
  private fences: Geofence[] = [];

  constructor(
    private index: GeoIndex,
    private ownerIds: readonly number[],
    private trackerId: number | undefined,
    private radius = 300,
  ) {}

  probe(lat: number, lng: number, margin: number): GeoHit[] {
    if (margin >= this.radius / 2 || !this.center || haversineM(lat, lng, this.center.lat, this.center.lng) > this.radius - margin) {
      const r = Math.max(this.radius, margin * 2);
      this.fences = this.index.near(this.ownerIds, lat, lng, r, this.trackerId);
      this.center = margin >= this.radius / 2 ? null : { lat, lng };
    }
    const out: GeoHit[] = [];
    for (const f of this.fences) {
      const { inside, distance } = edgeDistance(f.shape, lat, lng);
      if (inside || distance <= margin) out.push({ kind: f.kind, id: f.id, inside, distance });
    }
    return out;
  }
}
