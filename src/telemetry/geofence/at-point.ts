/**
 * Zones and places at a point, for API answers (task/form/list's submit_places; check-ins' nearby
 * entities): the geofence index of the telemetry core, kept by the caller as a cache and rebuilt when
 * the `geo` version moves, so a lookup is a tree search and an exact test of the few box hits, never
 * a scan of the owner's zones and places. The source may leave task zones out (they are never asked
 * for here) and count its own version (task/form/list's: zones and places only, migration 019).
 */
import type { GeoSnapshot } from '../../store/geo.ts';
import type { Store } from '../../store/index.ts';
import { GeoIndex } from './index.ts';

export interface GeoSource {
  geoVersion(): number;
  geoRows(): GeoSnapshot;
}

export class GeoAtPoint {
  private cached: { version: number; index: GeoIndex } | undefined;

  constructor(private source: GeoSource) {}

  /** The owner's zones and places containing each point (ids ascending); the version is checked once. */
  atAll(ownerId: number, points: ReadonlyArray<{ lat: number; lng: number } | null>): Array<{ zones: number[]; places: number[] } | null> {
    if (!points.some((p) => p)) return points.map(() => null);
    const index = this.index();
    return points.map((p) => p && hitsAt(index, ownerId, p.lat, p.lng));
  }

  /** The owner's zones and places containing the point (ids ascending). */
  at(ownerId: number, lat: number, lng: number): { zones: number[]; places: number[] } {
    return hitsAt(this.index(), ownerId, lat, lng);
  }

  private index(): GeoIndex {
    const version = this.source.geoVersion();
    if (this.cached?.version !== version) {
      const rows = this.source.geoRows();
      this.cached = { version: rows.version, index: GeoIndex.fromRows(rows.zones, rows.zonePoints, rows.places, rows.tasks) };
    }
    return this.cached.index;
  }
}

function hitsAt(index: GeoIndex, ownerId: number, lat: number, lng: number): { zones: number[]; places: number[] } {
  const zones: number[] = [];
  const places: number[] = [];
  for (const hit of index.query([ownerId], lat, lng)) {
    if (hit.kind === 'zone') zones.push(hit.id);
    else if (hit.kind === 'place') places.push(hit.id);
  }
  return { zones: zones.sort((a, b) => a - b), places: places.sort((a, b) => a - b) };
}

/**
 * The one index of zones and places at a point per store (task/form/list, check-ins), rebuilt only
 * when a zone or place changes (the `geo_areas` version of migration 019; task zones never count).
 */
const perStore = new WeakMap<Store, GeoAtPoint>();
export function areasAt(store: Store): GeoAtPoint {
  let g = perStore.get(store);
  if (!g) perStore.set(store, (g = new GeoAtPoint({ geoVersion: () => store.forms.areasVersion(), geoRows: () => store.forms.areaRows() })));
  return g;
}
