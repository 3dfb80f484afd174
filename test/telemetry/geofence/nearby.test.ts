/** The per-tracker nearby cache answers exactly what the index answers, along random drives. */
import { describe, expect, it } from 'vitest';
import { GeoIndex } from '../../../src/telemetry/geofence/index.ts';
import { NearbyProbe } from '../../../src/telemetry/geofence/nearby.ts';
import { destination, randomFences, rng } from './helpers.ts';

const key = (hits: Array<{ kind: string; id: number; inside: boolean; distance: number }>) =>
  hits.map((h) => `${h.kind}:${h.id}:${h.inside}:${h.distance.toFixed(6)}`).sort();

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
        expect(key(cache.probe(p.lat, p.lng, margin))).toEqual(key(index.probe(owners, p.lat, p.lng, margin, walk % 2 ? 5 : undefined)));
      }
    }
  });
});
