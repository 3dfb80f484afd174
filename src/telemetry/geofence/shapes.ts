/**
 * Geofence shapes and their exact tests (issue 5; docs/geofences.md). Pure functions over plain,
 * JSON-serialisable data. Degrees WGS 84, metres, a spherical Earth.
 *   circle:  great-circle (haversine) distance to the center <= radius
 *   polygon: rings, even-odd rule, straight edges in lat/lng; points on an edge or vertex are inside
 *   sausage: distance to the polyline <= radius; segments are straight in lat/lng and measured in a
 *            local equirectangular projection per segment (accurate to well under 1% up to ~50 km)
 */
import { distanceM, EARTH_RADIUS_M } from '../../core/geo.ts';

export interface LatLng {
  lat: number;
  lng: number;
}

export type Shape =
  | { type: 'circle'; center: LatLng; radius: number }
  | { type: 'polygon'; rings: LatLng[][] }
  | { type: 'sausage'; points: LatLng[]; radius: number };

/** rbush's box: x = longitude, y = latitude, degrees. */
export interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

const RAD = Math.PI / 180;
/** Metres per degree of latitude. */
export const M_PER_DEG = EARTH_RADIUS_M * RAD;
/** Slack added to every box so that rounding never puts an exact hit outside it (~0.1 mm). */
const BOX_EPS = 1e-9;

/** Longitude difference folded into [-180, 180], so a segment over the antimeridian stays short. */
function dLng(a: number, b: number): number {
  const d = a - b;
  return d > 180 ? d - 360 : d < -180 ? d + 360 : d;
}

/**
 * Metres from a point to the segment a-b. The projection's longitude scale is taken at the latitude
 * of the segment nearest to the point's own, i.e. where the closest point lies: the scale is right
 * exactly where the distance is measured.
 */
export function segmentDistanceM(lat: number, lng: number, aLat: number, aLng: number, bLat: number, bLng: number): number {
  const ref = Math.min(Math.max(lat, Math.min(aLat, bLat)), Math.max(aLat, bLat));
  const kx = Math.cos(ref * RAD);
  const bx = dLng(bLng, aLng) * kx;
  const by = bLat - aLat;
  const px = dLng(lng, aLng) * kx;
  const py = lat - aLat;
  const len2 = bx * bx + by * by;
  const t = len2 > 0 ? Math.min(1, Math.max(0, (px * bx + py * by) / len2)) : 0;
  return Math.hypot(px - t * bx, py - t * by) * M_PER_DEG;
}

/** Metres between a latitude and a segment's latitude range: a lower bound of the distance to it. */
function latGapM(lat: number, aLat: number, bLat: number): number {
  const gap = lat < aLat ? (lat < bLat ? Math.min(aLat, bLat) - lat : 0) : lat > bLat ? lat - Math.max(aLat, bLat) : 0;
  return gap * M_PER_DEG;
}

/**
 * Metres from a point to a polyline (Infinity for no points; one point: the distance to it).
 * With `enough`, it stops at the first segment at most that far: the answer is then only known
 * to be <= enough (what the exact test needs). Segments further in latitude than the best so far
 * are skipped without trigonometry.
 */
export function polylineDistanceM(lat: number, lng: number, pts: readonly LatLng[], enough = -1): number {
  if (pts.length === 1) return segmentDistanceM(lat, lng, pts[0].lat, pts[0].lng, pts[0].lat, pts[0].lng);
  let best = Infinity;
  for (let i = 1; i < pts.length && best > enough; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    if (latGapM(lat, a.lat, b.lat) < best) best = Math.min(best, segmentDistanceM(lat, lng, a.lat, a.lng, b.lat, b.lng));
  }
  return best;
}

/**
 * Where the point is against one edge (x = lng, y = lat): 'on' it, 'cross' (the ray to +x crosses
 * it, half-open in y) or 'miss'. The edge is put in a canonical order first, so the answer does not
 * depend on the ring's orientation or starting vertex: every computation is bit-for-bit the same.
 */
function edgeTest(x: number, y: number, p: LatLng, q: LatLng): 'on' | 'cross' | 'miss' {
  const lower = p.lat < q.lat || (p.lat === q.lat && p.lng <= q.lng);
  const a = lower ? p : q;
  const b = lower ? q : p;
  if (y < a.lat || y > b.lat) return 'miss';
  const cross = (b.lng - a.lng) * (y - a.lat) - (b.lat - a.lat) * (x - a.lng);
  if (cross === 0 && x >= Math.min(a.lng, b.lng) && x <= Math.max(a.lng, b.lng)) return 'on';
  // Upward edge with the point on its left: the edge lies to the right of the point.
  return y < b.lat && cross > 0 ? 'cross' : 'miss';
}

/** Even-odd point in polygon over all rings (holes are rings inside rings); boundary = inside. */
export function inRings(lat: number, lng: number, rings: readonly LatLng[][]): boolean {
  let inside = false;
  for (const ring of rings) {
    if (ring.length < 3) continue;
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const r = edgeTest(lng, lat, ring[j], ring[i]);
      if (r === 'on') return true;
      if (r === 'cross') inside = !inside;
    }
  }
  return inside;
}

/** Metres from a point to the nearest edge of any ring. */
export function ringsEdgeDistanceM(lat: number, lng: number, rings: readonly LatLng[][]): number {
  let best = Infinity;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const a = ring[j];
      const b = ring[i];
      if (latGapM(lat, a.lat, b.lat) < best) best = Math.min(best, segmentDistanceM(lat, lng, a.lat, a.lng, b.lat, b.lng));
    }
  }
  return best;
}

/** The exact test. */
export function contains(shape: Shape, lat: number, lng: number): boolean {
  switch (shape.type) {
    case 'circle':
      return distanceM(lat, lng, shape.center.lat, shape.center.lng) <= shape.radius;
    case 'polygon':
      return inRings(lat, lng, shape.rings);
    case 'sausage':
      return polylineDistanceM(lat, lng, shape.points, shape.radius) <= shape.radius;
  }
}

/** Inside or not, and the distance to the shape's edge in metres (either side). */
export function edgeDistance(shape: Shape, lat: number, lng: number): { inside: boolean; distance: number } {
  switch (shape.type) {
    case 'circle': {
      const d = distanceM(lat, lng, shape.center.lat, shape.center.lng);
      return { inside: d <= shape.radius, distance: Math.abs(d - shape.radius) };
    }
    case 'polygon':
      return { inside: inRings(lat, lng, shape.rings), distance: ringsEdgeDistanceM(lat, lng, shape.rings) };
    case 'sausage': {
      const d = polylineDistanceM(lat, lng, shape.points);
      return { inside: d <= shape.radius, distance: Math.abs(d - shape.radius) };
    }
  }
}

/** The box of a shape; null when the shape is empty (a polygon under 3 points, a sausage without any). */
export function shapeBox(shape: Shape): Box | null {
  switch (shape.type) {
    case 'circle':
      return circleBox(shape.center, shape.radius);
    case 'polygon': {
      const pts = shape.rings.filter((r) => r.length >= 3).flat();
      return pts.length ? expand(pointsBox(pts), 0, 0) : null;
    }
    case 'sausage': {
      if (!shape.points.length) return null;
      const box = pointsBox(shape.points);
      const maxAbsLat = Math.max(Math.abs(box.minY), Math.abs(box.maxY));
      // The exact test scales longitude by cos(latitude on the segment): never below cos(maxAbsLat).
      return expand(box, shape.radius / M_PER_DEG, lngDegrees(shape.radius, maxAbsLat));
    }
  }
}

/**
 * The box of a spherical cap: latitude +- r, longitude +- asin(sin r / cos lat) (its widest
 * extent, which lies poleward of the center). A cap over a pole spans every longitude.
 */
export function circleBox(c: LatLng, radius: number): Box {
  const r = radius / EARTH_RADIUS_M;
  const dLat = r / RAD;
  const s = Math.sin(r) / Math.cos(c.lat * RAD);
  const dLon = Math.abs(c.lat) + dLat >= 90 || s >= 1 ? 360 : Math.asin(s) / RAD;
  return expand({ minX: c.lng, minY: c.lat, maxX: c.lng, maxY: c.lat }, dLat, dLon);
}

/**
 * The box around a point that holds everything within `margin` metres of it, by any of the
 * metrics above. The longitude scale is taken 1 degree poleward of the point, so that per-segment
 * scales of edges up to ~100 km away in latitude are covered too.
 */
export function marginBox(lat: number, lng: number, margin: number): Box {
  const dLat = margin / M_PER_DEG;
  return expand({ minX: lng, minY: lat, maxX: lng, maxY: lat }, dLat, lngDegrees(margin, Math.abs(lat) + dLat + 1));
}

/** Degrees of longitude that `metres` span at latitude `absLat` (360 near a pole). */
function lngDegrees(metres: number, absLat: number): number {
  if (absLat >= 89.9) return 360;
  return Math.min(360, metres / (M_PER_DEG * Math.cos(absLat * RAD)));
}

function pointsBox(pts: readonly LatLng[]): Box {
  const box: Box = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (const p of pts) {
    box.minX = Math.min(box.minX, p.lng);
    box.maxX = Math.max(box.maxX, p.lng);
    box.minY = Math.min(box.minY, p.lat);
    box.maxY = Math.max(box.maxY, p.lat);
  }
  return box;
}

/** Grows a box; a box that would pass a pole or the antimeridian is clamped to the whole range. */
function expand(b: Box, dLat: number, dLon: number): Box {
  const minX = b.minX - dLon - BOX_EPS;
  const maxX = b.maxX + dLon + BOX_EPS;
  const wrap = minX < -180 || maxX > 180;
  // Keys in rbush's order, always: one object shape keeps its searches monomorphic (several times faster).
  return {
    minX: wrap ? -180 : minX,
    minY: Math.max(-90, b.minY - dLat - BOX_EPS),
    maxX: wrap ? 180 : maxX,
    maxY: Math.min(90, b.maxY + dLat + BOX_EPS),
  };
}
