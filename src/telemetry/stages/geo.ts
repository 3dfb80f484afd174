/** Small geodesy for the stages: distances on a sphere, a destination point, a median. Pure. */

const R_KM = 6371.0088; // mean Earth radius
const RAD = Math.PI / 180;

/** Great-circle distance by haversine, km. */
export function haversineKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * R_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The point `km` away from (lat, lng) along the great circle starting at `bearing` degrees. */
export function destination(lat: number, lng: number, bearing: number, km: number): { lat: number; lng: number } {
  const d = km / R_KM;
  const b = bearing * RAD;
  const p1 = lat * RAD;
  const p2 = Math.asin(Math.sin(p1) * Math.cos(d) + Math.cos(p1) * Math.sin(d) * Math.cos(b));
  const l2 = lng * RAD + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(p1), Math.cos(d) - Math.sin(p1) * Math.sin(p2));
  return { lat: p2 / RAD, lng: ((l2 / RAD + 540) % 360) - 180 };
}

/** Median of finite values; undefined when there are none. */
export function median(values: number[]): number | undefined {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!v.length) return undefined;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}
