/**
 * Geofences from plain table rows (migrations 005 and 006), as `loadGeoRows` reads them and as they
 * travel to a worker that rebuilds its index when the `geo` version moves. Rows that cannot form
 * a shape (a circle without center, a polygon under 3 points, a task without location) are skipped.
 */
import type { GeoKind, GeoRows, ZoneGeoRow, ZonePointGeoRow } from '../../core/telemetry.ts';

export type { GeoRows, PlaceGeoRow, TaskGeoRow, ZoneGeoRow, ZonePointGeoRow } from '../../core/telemetry.ts';
import type { LatLng, Shape } from './shapes.ts';

export interface Geofence {
  kind: GeoKind;
  id: number;
  /** The user the geofence belongs to. */
  ownerId: number;
  shape: Shape;
  /** Tasks only: the tracker the task is assigned to (null: nobody). */
  trackerId?: number | null;
}

export function geofencesFromRows(rows: GeoRows): Geofence[] {
  const points = pointsByZone(rows.zonePoints);
  const out: Geofence[] = [];
  for (const z of rows.zones) {
    const shape = zoneShape(z, points.get(z.id) ?? []);
    if (shape) out.push({ kind: 'zone', id: z.id, ownerId: z.user_id, shape });
  }
  for (const p of rows.places) {
    out.push({ kind: 'place', id: p.id, ownerId: p.user_id, shape: { type: 'circle', center: { lat: p.lat, lng: p.lng }, radius: p.radius } });
  }
  for (const t of rows.tasks) {
    // Routes have no location; tasks and checkpoints are circles.
    if (t.type === 'route' || t.lat === null || t.lng === null || t.radius === null) continue;
    out.push({ kind: 'task', id: t.id, ownerId: t.user_id, trackerId: t.tracker_id, shape: { type: 'circle', center: { lat: t.lat, lng: t.lng }, radius: t.radius } });
  }
  return out;
}

function pointsByZone(rows: readonly ZonePointGeoRow[]): Map<number, LatLng[]> {
  const sorted = [...rows].sort((a, b) => a.zone_id - b.zone_id || a.ordinal - b.ordinal);
  const map = new Map<number, LatLng[]>();
  for (const r of sorted) {
    let list = map.get(r.zone_id);
    if (!list) map.set(r.zone_id, (list = []));
    list.push({ lat: r.lat, lng: r.lng });
  }
  return map;
}

function zoneShape(z: ZoneGeoRow, points: LatLng[]): Shape | null {
  if (z.type === 'circle') {
    if (z.center_lat === null || z.center_lng === null || z.radius === null) return null;
    return { type: 'circle', center: { lat: z.center_lat, lng: z.center_lng }, radius: z.radius };
  }
  if (z.type === 'polygon') return points.length >= 3 ? { type: 'polygon', rings: [points] } : null;
  if (z.type === 'sausage') return points.length && z.radius !== null ? { type: 'sausage', points, radius: z.radius } : null;
  return null;
}
