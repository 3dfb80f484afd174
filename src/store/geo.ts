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

export function loadGeoRows(db: DB): GeoSnapshot {
  const read = db.transaction(() => ({
    version: (db.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck().get() as number | undefined) ?? 0,
    zones: db.prepare('SELECT id, user_id, type, radius, center_lat, center_lng FROM zones ORDER BY id').all() as GeoRows['zones'],
    zonePoints: db.prepare('SELECT zone_id, ordinal, lat, lng FROM zone_points ORDER BY zone_id, ordinal').all() as GeoRows['zonePoints'],
    places: db.prepare('SELECT id, user_id, lat, lng, radius FROM places ORDER BY id').all() as GeoRows['places'],
    // Routes carry no location; a task or checkpoint without one cannot be visited.
    tasks: db
      .prepare("SELECT id, user_id, type, tracker_id, lat, lng, radius FROM tasks WHERE type <> 'route' AND lat IS NOT NULL AND lng IS NOT NULL AND radius IS NOT NULL ORDER BY id")
      .all() as GeoRows['tasks'],
  }));
  return read();
}
