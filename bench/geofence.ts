/**
 * bench/geofence (issue 5): 10,000 geofences of mixed types around a city (circles, polygons,
 * sausages, places, task zones) and 1,000,000 point checks. Prints checks/s through the R-tree
 * (query, and probe with the visits margin) and, for scale, checks/s testing every geofence (what a
 * server without a spatial index does) on a sample.
 *   node --import tsx bench/geofence.ts [--zones 10000] [--checks 1000000] [--sample 2000]
 */
import { parseArgs } from 'node:util';
import { GeoIndex, type Geofence } from '../src/telemetry/geofence/index.ts';
import { contains, type LatLng } from '../src/telemetry/geofence/shapes.ts';

const { values } = parseArgs({ options: { zones: { type: 'string', default: '10000' }, checks: { type: 'string', default: '1000000' }, sample: { type: 'string', default: '2000' } } });
const N_ZONES = Number(values.zones);
const N_CHECKS = Number(values.checks);
const SAMPLE = Number(values.sample);

// Deterministic, so runs compare.
let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const CITY = { lat: 52.52, lng: 13.405 }; // a ~45 x 45 km area
const SPREAD = 0.4;
const near = (c: LatLng, d: number): LatLng => ({ lat: c.lat + (rnd() - 0.5) * d, lng: c.lng + (rnd() - 0.5) * d * 1.6 });

function fence(i: number): Geofence {
  const c = near(CITY, SPREAD);
  const circle = { type: 'circle' as const, center: c, radius: 50 + rnd() * 950 };
  switch (i % 5) {
    case 0:
      return { kind: 'place', id: i, ownerId: 1, shape: circle };
    case 1:
      return { kind: 'task', id: i, ownerId: 1, trackerId: 1, shape: { ...circle, radius: 50 + rnd() * 250 } };
    case 2:
      return { kind: 'zone', id: i, ownerId: 1, shape: circle };
    case 3: {
      const n = 4 + Math.floor(rnd() * 20);
      const size = 0.002 + rnd() * 0.015;
      const ring = Array.from({ length: n }, (_, k) => {
        const a = (2 * Math.PI * k) / n;
        const r = size * (0.5 + rnd() * 0.5);
        return { lat: c.lat + r * Math.sin(a), lng: c.lng + r * Math.cos(a) * 1.6 };
      });
      return { kind: 'zone', id: i, ownerId: 1, shape: { type: 'polygon', rings: [ring] } };
    }
    default: {
      const points = [c];
      for (let k = 5 + Math.floor(rnd() * 20); k > 0; k--) points.push(near(points[points.length - 1], 0.008));
      return { kind: 'zone', id: i, ownerId: 1, shape: { type: 'sausage', points, radius: 20 + rnd() * 80 } };
    }
  }
}

const fences = Array.from({ length: N_ZONES }, (_, i) => fence(i));
const points = Array.from({ length: N_CHECKS }, () => near(CITY, SPREAD * 1.1));
const owners = [1];
const rate = (n: number, ms: number) => Math.round((n / ms) * 1000).toLocaleString('en-US');
/** CPU time of this process, ms: the machine is shared, so wall time would measure the neighbours too. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

let t = cpuMs();
const index = GeoIndex.from(fences);
console.log(`bulk load of ${N_ZONES} geofences: ${(cpuMs() - t).toFixed(1)} ms`);
t = cpuMs();
const incremental = new GeoIndex();
for (const f of fences) incremental.insert(f);
console.log(`incremental insert of ${N_ZONES}: ${(cpuMs() - t).toFixed(1)} ms`);

let hits = 0;
t = cpuMs();
for (const p of points) hits += index.query(owners, p.lat, p.lng).length;
const indexMs = cpuMs() - t;
console.log(`index query: ${rate(N_CHECKS, indexMs)} checks/s (${N_CHECKS.toLocaleString('en-US')} checks, ${(hits / N_CHECKS).toFixed(2)} hits per check)`);

let near20 = 0;
t = cpuMs();
for (const p of points) near20 += index.probe(owners, p.lat, p.lng, 20).length;
const probeMs = cpuMs() - t;
console.log(`index probe, 20 m margin (visits): ${rate(N_CHECKS, probeMs)} checks/s (${(near20 / N_CHECKS).toFixed(2)} hits per check)`);

t = cpuMs();
let bruteHits = 0;
for (const p of points.slice(0, SAMPLE)) for (const f of fences) if (contains(f.shape, p.lat, p.lng)) bruteHits++;
const bruteMs = cpuMs() - t;
let sampleHits = 0;
for (const p of points.slice(0, SAMPLE)) sampleHits += index.query(owners, p.lat, p.lng).length;
console.log(`every geofence tested (no index), ${SAMPLE} checks: ${rate(SAMPLE, bruteMs)} checks/s; same hits as the index: ${bruteHits === sampleHits}`);
console.log(`index / brute force: ${((N_CHECKS / indexMs) / (SAMPLE / bruteMs)).toFixed(0)}x`);
