/** The per-tracker nearby cache answers exactly what the index answers, along random drives. */
import { describe, expect, it } from 'vitest';
import { GeoIndex } from '../../../src/telemetry/geofence/index.ts';
import { NearbyProbe } from '../../../src/telemetry/geofence/nearby.ts';
import { marginBox, shapeBox } from '../../../src/telemetry/geofence/shapes.ts';
import { destination, randomFences, rng } from './helpers.ts';

/** Distances are exact under the margin; beyond it the cache may answer a lower bound (>= margin). */
const key = (hits: Array<{ kind: string; id: number; inside: boolean; distance: number }>, margin: number) =>
  hits.map((h) => `${h.kind}:${h.id}:${h.inside}:${h.distance < margin ? h.distance.toFixed(6) : 'beyond'}`).sort();

describe('NearbyProbe', () => {
  it('equals GeoIndex.probe on random walks at various speeds and margins', () => {
    const rand = rng(11);
    const fences = randomFences(rand, 800, 48.85, 2.35, 0.2);
    const index = GeoIndex.from(fences);
    for (let walk = 0; walk < 20; walk++) {
      const owners = [1 + (walk % 3)];
      const cache = new NearbyProbe(index, owners, walk % 2 ? 5 : undefined);
      let p = { lat: 48.85 + (rand() - 0.5) * 0.2, lng: 2.35 + (rand() - 0.5) * 0.3 };
      for (let i = 0; i < 400; i++) {
        p = destination(p.lat, p.lng, rand() * 360, rand() * (walk % 4) * 40); // parked to fast
        const margin = [20, 20, 35, 200][i % 4];
        expect(key(cache.probe(p.lat, p.lng, margin), margin)).toEqual(key(index.probe(owners, p.lat, p.lng, margin, walk % 2 ? 5 : undefined), margin));
      }
    }
  });

  it('straight drives and parked jitter through dense geofences: same answers, most exact tests saved by movement bounds', () => {
    const rand = rng(23);
    const fences = randomFences(rand, 3000, 48.85, 2.35, 0.1, 1);
    const index = GeoIndex.from(fences);
    const boxes = fences.map((f) => shapeBox(f.shape)!);
    let boxTests = 0;
    let exact = 0;
    for (let drive = 0; drive < 30; drive++) {
      const cache = new NearbyProbe(index, [1], undefined);
      let p = { lat: 48.85 + (rand() - 0.5) * 0.08, lng: 2.35 + (rand() - 0.5) * 0.08 };
      const bearing = rand() * 360;
      for (let i = 0; i < 300; i++) {
        const parked = i >= 100 && i < 200;
        p = parked ? destination(p.lat, p.lng, rand() * 360, rand() * 3) : destination(p.lat, p.lng, bearing + (rand() - 0.5) * 10, 5 + rand() * 15);
        const margin = i % 7 ? 20 : 20 + rand() * 50;
        const ref = index.probe([1], p.lat, p.lng, margin);
        const m = marginBox(p.lat, p.lng, margin);
        boxTests += boxes.filter((b) => b.minX <= m.maxX && b.minY <= m.maxY && b.maxX >= m.minX && b.maxY >= m.minY).length;
        expect(key(cache.probe(p.lat, p.lng, margin), margin)).toEqual(key(ref, margin));
      }
      exact += cache.exactTests;
    }
    // Without bounds, every geofence whose box meets the point's margin box is tested at every point.
    expect(exact / boxTests).toBeLessThan(0.25);
  });
});
