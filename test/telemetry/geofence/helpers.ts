/** Shared helpers of the geofence tests: a seeded random source, points, spherical geometry. */
import type { Point } from '../../../src/telemetry/types.ts';
import { destination as destinationKm } from '../../../src/core/geo.ts';
import type { Geofence } from '../../../src/telemetry/geofence/rows.ts';

/** mulberry32: deterministic, so a failure reproduces. */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function point(time: number, lat: number, lng: number, extra: Partial<Point> = {}): Point {
  return { time, lat, lng, alt: 0, speed: 30, course: 0, satellites: 9, precision: NaN, hdop: 1, valid: true, lbs: false, ...extra };
}


/** The point `dist` metres from (lat, lng) along the initial bearing `bearing` (degrees), on the sphere. */
export const destination = (lat: number, lng: number, bearing: number, dist: number) => destinationKm(lat, lng, bearing, dist / 1000);

/** Random geofences of all kinds and shapes around (lat, lng), within `spread` degrees. */
export function randomFences(rand: () => number, n: number, lat: number, lng: number, spread: number, owners = 3): Geofence[] {
  const out: Geofence[] = [];
  const at = () => ({ lat: lat + (rand() - 0.5) * spread, lng: lng + (rand() - 0.5) * spread });
  for (let i = 0; i < n; i++) {
    const ownerId = 1 + Math.floor(rand() * owners);
    const c = at();
    const r = 10 + rand() * 2000;
    const pick = i % 5;
    if (pick === 0) out.push({ kind: 'place', id: i, ownerId, shape: { type: 'circle', center: c, radius: r } });
    else if (pick === 1) out.push({ kind: 'task', id: i, ownerId, trackerId: rand() < 0.5 ? 7 : 8, shape: { type: 'circle', center: c, radius: r } });
    else if (pick === 2) out.push({ kind: 'zone', id: i, ownerId, shape: { type: 'circle', center: c, radius: r } });
    else if (pick === 3) out.push({ kind: 'zone', id: i, ownerId, shape: { type: 'polygon', rings: [randomRing(rand, c, 0.002 + rand() * 0.03)] } });
    else out.push({ kind: 'zone', id: i, ownerId, shape: { type: 'sausage', radius: r / 4, points: randomLine(rand, c, 0.05) } });
  }
  return out;
}

/** A star-shaped (simple) ring with 3-12 vertices. */
export function randomRing(rand: () => number, c: { lat: number; lng: number }, size: number): Array<{ lat: number; lng: number }> {
  const n = 3 + Math.floor(rand() * 10);
  return Array.from({ length: n }, (_, k) => {
    const a = (2 * Math.PI * (k + rand() * 0.8)) / n;
    const r = size * (0.3 + rand() * 0.7);
    return { lat: c.lat + r * Math.sin(a), lng: c.lng + r * Math.cos(a) };
  });
}

export function randomLine(rand: () => number, c: { lat: number; lng: number }, step: number): Array<{ lat: number; lng: number }> {
  const pts = [c];
  for (let k = 1 + Math.floor(rand() * 6); k > 0; k--) {
    const p = pts[pts.length - 1];
    pts.push({ lat: p.lat + (rand() - 0.5) * step, lng: p.lng + (rand() - 0.5) * step });
  }
  return pts;
}
