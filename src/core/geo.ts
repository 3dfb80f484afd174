/**
 * Geodesy on a sphere of the mean Earth radius: the one copy used by the telemetry stages, the
 * geofences, the track calls and the store (issue 9). Pure; imports nothing of the project.
 */

/** Mean Earth radius, m (IUGG). */
export const EARTH_RADIUS_M = 6_371_008.8;
const EARTH_RADIUS_KM = 6371.0088;
const RAD = Math.PI / 180;

/** Great-circle (haversine) distance, m. */
export function distanceM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return EARTH_RADIUS_M * centralAngle(lat1, lng1, lat2, lng2);
}

/** Great-circle (haversine) distance, km. */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return EARTH_RADIUS_KM * centralAngle(lat1, lng1, lat2, lng2);
}

/** The angle between two points seen from the Earth's center, radians (haversine). */
function centralAngle(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing of the great circle from the first point to the second, degrees clockwise from north in [0, 360). */
export function bearing(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const p1 = lat1 * RAD;
  const p2 = lat2 * RAD;
  const dl = (lng2 - lng1) * RAD;
  const y = Math.sin(dl) * Math.cos(p2);
  const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
  return (Math.atan2(y, x) / RAD + 360) % 360;
}

/** The point `km` away from (lat, lng) along the great circle starting at `bearingDeg` degrees. */
export function destination(lat: number, lng: number, bearingDeg: number, km: number): { lat: number; lng: number } {
  const d = km / EARTH_RADIUS_KM;
  const b = bearingDeg * RAD;
  const p1 = lat * RAD;
  const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b));
  const l2 = lng * RAD + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
  return { lat: p2 / RAD, lng: ((l2 / RAD + 540) % 360) - 180 };
}

/** The bounding box of some points; `n` 0 when there are none. */
export interface Extent {
  n: number;
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/** The bounding box of the first `n` points of two coordinate columns. */
export function extentOf(lat: ArrayLike<number>, lng: ArrayLike<number>, n: number): Extent {
  let minLat = Infinity;
  let maxLat = -Infinity;
  let minLng = Infinity;
  let maxLng = -Infinity;
  for (let i = 0; i < n; i++) {
    const a = lat[i];
    const o = lng[i];
    if (a < minLat) minLat = a;
    if (a > maxLat) maxLat = a;
    if (o < minLng) minLng = o;
    if (o > maxLng) maxLng = o;
  }
  return n ? { n, minLat, maxLat, minLng, maxLng } : { n: 0, minLat: NaN, maxLat: NaN, minLng: NaN, maxLng: NaN };
}

/** Diagonal of the box, m: how far apart the points ever got (0 for no points). */
export function extentDiagonalM(e: Extent): number {
  return e.n ? distanceM(e.minLat, e.minLng, e.maxLat, e.maxLng) : 0;
}
