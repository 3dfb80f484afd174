/**
 * The places and zones a check-in is at (show_nearby_geo_entities): the shared index of zones and
 * places at a point (src/telemetry/geofence/at-point.ts: an R-tree and an exact test of each hit, not
 * a scan), with their labels. Synchronous (issue 24): the index is src/telemetry's, and the caller
 * is src/api/checkin.ts.
 */
import type { Store } from '../store/index.ts';
import { areasAt } from '../telemetry/geofence/at-point.ts';

export interface NearbyEntities {
  places: Array<{ id: number; label: string }>;
  zones: Array<{ id: number; label: string }>;
}

export class GeoEntitiesAt {
  constructor(private store: Store) {}

  /** The owner's places and zones containing the point, each sorted by id. */
  at(ownerId: number, lat: number, lng: number): NearbyEntities {
    const hits = areasAt(this.store).at(ownerId, lat, lng);
    const out: NearbyEntities = { places: [], zones: [] };
    for (const id of hits.places) {
      const p = this.store.places.get(ownerId, id);
      if (p) out.places.push({ id: p.id, label: p.label });
    }
    for (const id of hits.zones) {
      const z = this.store.zones.get(ownerId, id);
      if (z) out.zones.push({ id: z.id, label: z.label });
    }
    return out;
  }
}

export const geoEntitiesAt = (store: Store): GeoEntitiesAt => new GeoEntitiesAt(store);
