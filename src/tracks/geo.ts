/** Small geodesy for the track calls: great-circle distance and the extent of a set of points. */

const R = 6_371_008.8; // mean Earth radius, m
const RAD = Math.PI / 180;

/** Haversine distance between two points, m. */
export function distanceM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The bounding box of some points; `n` 0 when there are none. */
export interface Extent {
  n: number;
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/** Diagonal of the box, m: how far apart the points of a trip ever got (0 for no points). */
export function extentDiagonalM(e: Extent): number {
  return e.n ? distanceM(e.minLat, e.minLng, e.maxLat, e.maxLng) : 0;
}
