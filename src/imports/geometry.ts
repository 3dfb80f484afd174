/** Zone geometry rules shared by the zone calls and the zone imports (spec: Limits, zone points). */
import type { ZonePoint, ZoneType } from '../store/zones.ts';

/** At least 3 points; at most 100 for a polygon, 1024 for a sausage (spec: Limits). */
export const MIN_ZONE_POINTS = 3;
export const MAX_ZONE_POINTS: Record<Exclude<ZoneType, 'circle'>, number> = { polygon: 100, sausage: 1024 };

/** A point to reverse-geocode a zone by: its center, or the mean of its points. */
export function zoneAnchor(center: { lat: number; lng: number } | null, points: ZonePoint[] | undefined): { lat: number; lng: number } | undefined {
  if (center) return center;
  if (!points?.length) return undefined;
  return { lat: points.reduce((s, p) => s + p.lat, 0) / points.length, lng: points.reduce((s, p) => s + p.lng, 0) / points.length };
}

/**
 * Reduce a polyline or ring to `count` points (Visvalingam–Whyatt: repeatedly drop the interior
 * point whose triangle with its neighbours has the least area), keeping the first and the last.
 * Areas are measured on a local equirectangular projection so longitude is scaled by cos(lat).
 */
export function simplify(points: ZonePoint[], count: number): ZonePoint[] {
  if (count >= points.length || points.length <= 2) return points.slice();
  const k = Math.cos((points.reduce((s, p) => s + p.lat, 0) / points.length) * (Math.PI / 180));
  const xy = points.map((p) => [p.lng * k, p.lat] as const);
  const alive = points.map((_, i) => i);
  const area = (a: number, b: number, c: number) => Math.abs((xy[b][0] - xy[a][0]) * (xy[c][1] - xy[a][1]) - (xy[c][0] - xy[a][0]) * (xy[b][1] - xy[a][1])) / 2;
  const target = Math.max(2, count);
  // n ≤ 1024 points: the quadratic scan costs at most a million small steps.
  while (alive.length > target) {
    let best = 1;
    let min = Infinity;
    for (let i = 1; i < alive.length - 1; i++) {
      const a = area(alive[i - 1], alive[i], alive[i + 1]);
      if (a < min) {
        min = a;
        best = i;
      }
    }
    alive.splice(best, 1);
  }
  return alive.map((i) => points[i]);
}
