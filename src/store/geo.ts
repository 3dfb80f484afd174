/**
 * The rows the geofence index is built from (src/telemetry/geofence; docs/geofences.md), read in
 * one transaction together with the `geo` version they belong to: a worker that rebuilds its index
 * from them knows exactly which version it holds. Read-only.
 */
import type { DB } from './db.ts';
import type { GeoRows } from '../core/telemetry.ts';

export interface GeoSnapshot extends GeoRows {
  version: number;
}

/**
 * Zones (with their points) and places as the geofence indexes read them: those with an owner (an
 * upload's rows get theirs when it commits: src/store/uploads.ts).
 */
export function geoAreaRows(db: DB): Pick<GeoRows, 'zones' | 'zonePoints' | 'places'> {
  return {
    zones: db.prepare('SELECT id, user_id, type, radius, center_lat, center_lng FROM zones WHERE user_id IS NOT NULL ORDER BY id').all() as GeoRows['zones'],
    zonePoints: db
      .prepare('SELECT p.zone_id, p.ordinal, p.lat, p.lng FROM zone_points p JOIN zones z ON z.id = p.zone_id WHERE z.user_id IS NOT NULL ORDER BY p.zone_id, p.ordinal')
      .all() as GeoRows['zonePoints'],
    places: db.prepare('SELECT id, user_id, lat, lng, radius FROM places WHERE user_id IS NOT NULL ORDER BY id').all() as GeoRows['places'],
  };
}

export function loadGeoRows(db: DB): GeoSnapshot {
  const read = db.transaction(() => ({
    version: (db.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck().get() as number | undefined) ?? 0,
    ...geoAreaRows(db),
    // Routes carry no location; a task or checkpoint without one cannot be visited.
    tasks: db
      .prepare("SELECT id, user_id, type, tracker_id, lat, lng, radius FROM tasks WHERE type <> 'route' AND lat IS NOT NULL AND lng IS NOT NULL AND radius IS NOT NULL ORDER BY id")
      .all() as GeoRows['tasks'],
  }));
  return read();
}
