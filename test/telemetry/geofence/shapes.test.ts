/** Exact geofence tests and boxes (issue 5: "exact tests after the index"; docs/geofences.md). */
import { describe, expect, it } from 'vitest';
import { distanceM as haversineM } from '../../../src/core/geo.ts';
import {
  circleBox,
  contains,
  edgeDistance,
  inRings,
  polylineDistanceM,
  segmentDistanceM,
  shapeBox,
  type Box,
  type LatLng,
  type Shape,
} from '../../../src/telemetry/geofence/shapes.ts';
import { destination, randomFences, rng } from './helpers.ts';

const inBox = (b: Box | null, lat: number, lng: number) => !!b && lng >= b.minX && lng <= b.maxX && lat >= b.minY && lat <= b.maxY;

describe('circle', () => {
  it('great-circle distance: one degree of latitude, a quarter meridian', () => {
    expect(haversineM(0, 0, 1, 0)).toBeCloseTo(111195.08, 1);
    expect(haversineM(0, 0, 90, 0)).toBeCloseTo((Math.PI / 2) * 6371008.8, 3);
  });
  it('edge is inside, a metre beyond is outside, at any latitude and bearing', () => {
    const rand = rng(1);
    for (let i = 0; i < 2000; i++) {
      const c = { lat: (rand() - 0.5) * 160, lng: (rand() - 0.5) * 340 };
      const radius = 5 + rand() * 50_000;
      const bearing = rand() * 360;
      const edge = destination(c.lat, c.lng, bearing, radius - 0.001);
      const out = destination(c.lat, c.lng, bearing, radius + 1);
      const shape: Shape = { type: 'circle', center: c, radius };
      expect(contains(shape, edge.lat, edge.lng)).toBe(true);
      expect(contains(shape, out.lat, out.lng)).toBe(false);
    }
  });
  it('box holds the whole cap and is tight in longitude (its widest point lies poleward of the center)', () => {
    const rand = rng(2);
    for (let i = 0; i < 300; i++) {
      const c = { lat: (rand() - 0.5) * 160, lng: (rand() - 0.5) * 300 };
      const radius = 10 + rand() * 100_000;
      const box = circleBox(c, radius);
      let maxLng = -Infinity;
      let outside = 0;
      for (let b = 0; b < 360; b += 0.25) {
        const p = destination(c.lat, c.lng, b, radius);
        if (!inBox(box, p.lat, p.lng)) outside++;
        maxLng = Math.max(maxLng, p.lng);
      }
      expect(outside).toBe(0);
      expect(box.maxX - maxLng).toBeLessThan(1e-4);
    }
  });
  it('a cap over a pole or across the antimeridian spans every longitude', () => {
    expect(circleBox({ lat: 89.99, lng: 10 }, 5000)).toMatchObject({ minX: -180, maxX: 180, maxY: 90 });
    expect(circleBox({ lat: 10, lng: 179.999 }, 5000)).toMatchObject({ minX: -180, maxX: 180 });
  });
});

describe('polygon', () => {
  const square: LatLng[] = [
    { lat: 0, lng: 0 },
    { lat: 0, lng: 1 },
    { lat: 1, lng: 1 },
    { lat: 1, lng: 0 },
  ];
  it('vertices and edges are inside; collinear points beyond an edge are outside', () => {
    for (const [lat, lng] of [[0, 0], [1, 1], [0, 0.5], [0.5, 1], [1, 0.25], [0.5, 0], [0.5, 0.5]]) expect(inRings(lat, lng, [square])).toBe(true);
    for (const [lat, lng] of [[0, 2], [0, -1], [1, -0.5], [1, 1.5], [2, 0], [-1, 1], [0.5, 1.0000001], [-1e-12, 0.5]]) expect(inRings(lat, lng, [square])).toBe(false);
  });
  it('a ray through a vertex counts once (diamond), a concave notch is outside', () => {
    const diamond = [{ lat: 0, lng: 1 }, { lat: 1, lng: 2 }, { lat: 2, lng: 1 }, { lat: 1, lng: 0 }];
    expect(inRings(1, 0.5, [diamond])).toBe(true);
    expect(inRings(1, -0.5, [diamond])).toBe(false);
    expect(inRings(2, 0, [diamond])).toBe(false);
    const u = [{ lat: 0, lng: 0 }, { lat: 0, lng: 3 }, { lat: 3, lng: 3 }, { lat: 3, lng: 2 }, { lat: 1, lng: 2 }, { lat: 1, lng: 1 }, { lat: 3, lng: 1 }, { lat: 3, lng: 0 }];
    expect(inRings(2, 1.5, [u])).toBe(false);
    expect(inRings(2, 0.5, [u])).toBe(true);
    expect(inRings(1, 1.5, [u])).toBe(true); // on the notch's bottom edge
    expect(inRings(3, 1.5, [u])).toBe(false); // on the line of the two top edges, between them
  });
  it('a ring inside a ring is a hole (its edge still counts as inside)', () => {
    const hole = [{ lat: 0.25, lng: 0.25 }, { lat: 0.25, lng: 0.75 }, { lat: 0.75, lng: 0.75 }, { lat: 0.75, lng: 0.25 }];
    expect(inRings(0.5, 0.5, [square, hole])).toBe(false);
    expect(inRings(0.1, 0.5, [square, hole])).toBe(true);
    expect(inRings(0.25, 0.5, [square, hole])).toBe(true);
  });
  it('deterministic: the same answer for any orientation and starting vertex, on grid vertices and edges too', () => {
    const rand = rng(3);
    for (let i = 0; i < 300; i++) {
      // Coordinates on a 1/8 grid: edge midpoints and vertices are exactly representable.
      const ring = Array.from({ length: 3 + Math.floor(rand() * 8) }, () => ({ lat: Math.floor(rand() * 16) / 8, lng: Math.floor(rand() * 16) / 8 }));
      const variants = [ring, [...ring].reverse(), [...ring.slice(2), ...ring.slice(0, 2)], [...ring.slice(1), ring[0]].reverse()];
      const probes = [...ring, ...ring.map((p, k) => ({ lat: (p.lat + ring[(k + 1) % ring.length].lat) / 2, lng: (p.lng + ring[(k + 1) % ring.length].lng) / 2 }))];
      for (let k = 0; k < 40; k++) probes.push({ lat: Math.floor(rand() * 18) / 8 - 0.125, lng: Math.floor(rand() * 18) / 8 - 0.125 });
      for (const p of probes) {
        const answers = variants.map((r) => inRings(p.lat, p.lng, [r]));
        expect(new Set(answers).size).toBe(1);
      }
      for (const p of ring) expect(inRings(p.lat, p.lng, [ring])).toBe(true);
    }
  });
  it('under 3 points: empty (no box, nothing inside)', () => {
    const shape: Shape = { type: 'polygon', rings: [square.slice(0, 2)] };
    expect(shapeBox(shape)).toBeNull();
    expect(contains(shape, 0, 0)).toBe(false);
  });
  it('distance to the edge in metres, either side', () => {
    const small = square.map((p) => ({ lat: 50 + p.lat / 100, lng: 8 + p.lng / 100 }));
    const mid = edgeDistance({ type: 'polygon', rings: [small] }, 50.005, 8.005);
    expect(mid.inside).toBe(true);
    expect(mid.distance).toBeCloseTo(haversineM(50.005, 8.005, 50.005, 8), -1); // nearest: the west edge (longitude shrinks with latitude)
    const out = edgeDistance({ type: 'polygon', rings: [small] }, 50.02, 8.005);
    expect(out).toEqual({ inside: false, distance: expect.closeTo(haversineM(50.02, 8.005, 50.01, 8.005), 0) });
  });
});

describe('sausage', () => {
  /** Reference: minimum great-circle distance to a dense sampling of the segment (straight in lat/lng). */
  const reference = (lat: number, lng: number, a: LatLng, b: LatLng) => {
    let best = Infinity;
    for (let k = 0; k <= 20_000; k++) best = Math.min(best, haversineM(lat, lng, a.lat + ((b.lat - a.lat) * k) / 20_000, a.lng + ((b.lng - a.lng) * k) / 20_000));
    return best;
  };
  it('distance to a segment within 1% of the reference, segments up to 50 km, latitudes up to 70', () => {
    const rand = rng(4);
    let worst = 0;
    for (let i = 0; i < 300; i++) {
      const a = { lat: (rand() - 0.5) * 140, lng: (rand() - 0.5) * 340 };
      const b = destination(a.lat, a.lng, rand() * 360, 100 + rand() * 50_000);
      const mid = { lat: a.lat + (b.lat - a.lat) * (rand() * 1.2 - 0.1), lng: a.lng + (b.lng - a.lng) * (rand() * 1.2 - 0.1) };
      const p = destination(mid.lat, mid.lng, rand() * 360, 20 + rand() * 3000);
      const ref = reference(p.lat, p.lng, a, b);
      const abs = Math.abs(segmentDistanceM(p.lat, p.lng, a.lat, a.lng, b.lat, b.lng) - ref);
      // A few metres from the segment the reference's own sampling step (2.5 m) dominates.
      if (ref >= 20) worst = Math.max(worst, abs / ref);
      else expect(abs).toBeLessThan(0.2);
    }
    expect(worst).toBeLessThan(0.005); // measured ~0.12% (3 km off, latitude 70)
  });
  it('a segment over the antimeridian is short, one point is a circle', () => {
    expect(segmentDistanceM(0.001, 180, 0, 179.999, 0, -179.999)).toBeCloseTo(111.19, 1);
    expect(polylineDistanceM(0, 0.001, [{ lat: 0, lng: 0 }])).toBeCloseTo(111.19, 1);
    expect(polylineDistanceM(0, 0, [])).toBe(Infinity);
  });
  it('the pruned polyline distance equals the minimum over every segment; the exact test agrees with it', () => {
    const rand = rng(6);
    for (const f of randomFences(rand, 500, 60, 10, 0.2).filter((x) => x.shape.type === 'sausage')) {
      if (f.shape.type !== 'sausage') continue;
      const pts = f.shape.points;
      for (let k = 0; k < 50; k++) {
        const p = { lat: 60 + (rand() - 0.5) * 0.3, lng: 10 + (rand() - 0.5) * 0.3 };
        const naive = Math.min(...pts.slice(1).map((b, i) => segmentDistanceM(p.lat, p.lng, pts[i].lat, pts[i].lng, b.lat, b.lng)));
        expect(polylineDistanceM(p.lat, p.lng, pts)).toBe(naive);
        expect(contains(f.shape, p.lat, p.lng)).toBe(naive <= f.shape.radius);
      }
    }
  });
  it('inside up to the radius from any segment', () => {
    const line = [{ lat: 52.5, lng: 13.3 }, { lat: 52.5, lng: 13.4 }, { lat: 52.52, lng: 13.45 }];
    const shape: Shape = { type: 'sausage', points: line, radius: 100 };
    const north = destination(52.5, 13.35, 0, 99.9);
    const far = destination(52.5, 13.35, 0, 101);
    expect(contains(shape, north.lat, north.lng)).toBe(true);
    expect(contains(shape, far.lat, far.lng)).toBe(false);
    expect(edgeDistance(shape, far.lat, far.lng)).toEqual({ inside: false, distance: expect.closeTo(1, 1) });
  });
});

describe('boxes hold every point of their shape', () => {
  it('random shapes at several latitudes, points around them', () => {
    const rand = rng(5);
    let hits = 0;
    for (const lat of [0, 45, -60, 75]) {
      for (const f of randomFences(rand, 200, lat, 20, 0.2)) {
        const box = shapeBox(f.shape);
        for (let k = 0; k < 200; k++) {
          const p = { lat: lat + (rand() - 0.5) * 0.3, lng: 20 + (rand() - 0.5) * 0.3 };
          if (!contains(f.shape, p.lat, p.lng)) continue;
          hits++;
          expect(inBox(box, p.lat, p.lng)).toBe(true);
        }
      }
    }
    expect(hits).toBeGreaterThan(1000);
  });
});
