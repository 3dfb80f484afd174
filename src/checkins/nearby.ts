/**
 * The places and zones at a point, through the geofence index (src/telemetry/geofence, an R-tree
 * with an exact test of each hit; not a scan of the tables): check-ins' show_nearby_geo_entities.
 * The index is kept here as a cache and rebuilt when the `geo` version moves (any change of zones,
 * zone points, places or task zones), as the telemetry workers keep theirs.
 */
import { GeoIndex } from '../telemetry/geofence/index.ts';
import type { Store } from '../store/index.ts';

export interface NearbyEntities {
  places: Array<{ id: number; label: string }>;
  zones: Array<{ id: number; label: string }>;
}

export class GeoEntitiesAt {
  private index: GeoIndex | undefined;
  private version = -1;
  constructor(private store: Store) {}

  private current(): GeoIndex {
    const v = this.store.telemetry.geoVersion();
    if (!this.index || v !== this.version) {
      const rows = this.store.telemetry.geoRows();
      // Task zones are not entities a check-in is "at".
      this.index = GeoIndex.fromRows(rows.zones, rows.zonePoints, rows.places, []);
      this.version = rows.version;
    }
    return this.index;
  }

  /** The owner's places and zones containing the point, each sorted by id. */
  at(ownerId: number, lat: number, lng: number): NearbyEntities {
    const out: NearbyEntities = { places: [], zones: [] };
    for (const ref of this.current().query([ownerId], lat, lng).sort((a, b) => a.id - b.id)) {
      if (ref.kind === 'place') {
        const p = this.store.places.get(ownerId, ref.id);
        if (p) out.places.push({ id: p.id, label: p.label });
      } else if (ref.kind === 'zone') {
        const z = this.store.zones.get(ownerId, ref.id);
        if (z) out.zones.push({ id: z.id, label: z.label });
      }
    }
    return out;
  }
}

/** One cache per store (the API and the field app share it). */
const perStore = new WeakMap<Store, GeoEntitiesAt>();
export function geoEntitiesAt(store: Store): GeoEntitiesAt {
  let g = perStore.get(store);
  if (!g) perStore.set(store, (g = new GeoEntitiesAt(store)));
  return g;
}
