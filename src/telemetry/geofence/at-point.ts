/**
 * Zones and places at a point, for API answers (task/form/list's submit_places; check-ins' nearby
 * entities): the geofence index of the telemetry core, kept by the caller as a cache and rebuilt when
 * the `geo` version moves, so a lookup is a tree search and an exact test of the few box hits, never
 * a scan of the owner's zones and places.
 */
import type { GeoSnapshot } from '../../store/geo.ts';
import { GeoIndex } from './index.ts';

export interface GeoSource {
  geoVersion(): number;
  geoRows(): GeoSnapshot;
}

export class GeoAtPoint {
  private cached: { version: number; index: GeoIndex } | undefined;

  constructor(private source: GeoSource) {}

  /** The owner's zones and places containing the point (ids ascending). */
  at(ownerId: number, lat: number, lng: number): { zones: number[]; places: number[] } {
    const zones: number[] = [];
    const places: number[] = [];
    for (const hit of this.index().query([ownerId], lat, lng)) {
      if (hit.kind === 'zone') zones.push(hit.id);
      else if (hit.kind === 'place') places.push(hit.id);
    }
    return { zones: zones.sort((a, b) => a - b), places: places.sort((a, b) => a - b) };
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
