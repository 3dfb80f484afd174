/**
 * Country borders and names from the world-countries package (ODbL data: names, translations and a
 * GeoJSON border per country). Loaded once, on first use; an R-tree over polygon bounding boxes
 * narrows a point-in-polygon test to the few polygons whose box holds the point.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import RBush from 'rbush';

interface CountryInfo {
  cca2: string;
  name: string;
  /** ISO 639-3 language -> common name. */
  translations: Record<string, string>;
}

interface PolygonItem {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  country: string;
  /** Outer ring first, then holes. */
  rings: Ring2[];
}

/**
 * A ring as [lng0, lat0, lng1, lat1, ...] with its edges sorted into latitude bands: a point's ray
 * crosses only edges whose latitudes span its own, so the test reads one band's edges instead of
 * every edge (a country's border has hundreds to thousands; a month's trips report asks 73,000).
 */
interface Ring2 {
  xy: Float64Array;
  minY: number;
  bandHeight: number;
  /** Edge i (from vertex i - 1 to vertex i; edge 0 from the last vertex) by band: band b's edges are edges[starts[b]..starts[b + 1]). */
  starts: Uint32Array;
  edges: Uint32Array;
}

const BANDS_PER_RING_VERTICES = 8;

function banded(xy: Float64Array): Ring2 {
  const n = xy.length / 2;
  let minY = Infinity, maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minY = Math.min(minY, xy[2 * i + 1]);
    maxY = Math.max(maxY, xy[2 * i + 1]);
  }
  const bands = Math.max(1, Math.ceil(n / BANDS_PER_RING_VERTICES));
  const bandHeight = (maxY - minY) / bands || 1;
  const band = (y: number) => Math.min(bands - 1, Math.max(0, Math.floor((y - minY) / bandHeight)));
  const counts = new Uint32Array(bands + 1);
  const span = (i: number): [number, number] => {
    const j = i === 0 ? n - 1 : i - 1;
    const a = xy[2 * i + 1], b = xy[2 * j + 1];
    return [band(Math.min(a, b)), band(Math.max(a, b))];
  };
  for (let i = 0; i < n; i++) {
    const [lo, hi] = span(i);
    for (let b = lo; b <= hi; b++) counts[b + 1]++;
  }
  for (let b = 0; b < bands; b++) counts[b + 1] += counts[b];
  const starts = counts.slice();
  const edges = new Uint32Array(counts[bands]);
  const at = counts.slice(0, bands);
  for (let i = 0; i < n; i++) {
    const [lo, hi] = span(i);
    for (let b = lo; b <= hi; b++) edges[at[b]++] = i;
  }
  return { xy, minY, bandHeight, starts, edges };
}

/** ISO 639-1 -> the ISO 639-3 keys world-countries uses for its translations. */
const LANG3: Record<string, string> = {
  ar: 'ara', cs: 'ces', de: 'deu', et: 'est', fi: 'fin', fr: 'fra', hr: 'hrv', hu: 'hun', it: 'ita', ja: 'jpn', ko: 'kor',
  nl: 'nld', fa: 'per', pl: 'pol', pt: 'por', ru: 'rus', sk: 'slk', es: 'spa', sr: 'srp', sv: 'swe', tr: 'tur', ur: 'urd', zh: 'zho',
};

type Ring = number[][];
interface RawCountry {
  cca2: string;
  cca3: string;
  name: { common: string };
  translations: Record<string, { common: string }>;
}

export class Countries {
  private readonly info = new Map<string, CountryInfo>();
  private readonly tree = new RBush<PolygonItem>();
  /** Normalized-by-caller names and codes -> cca2 (for "Paris, France"). */
  readonly byName = new Map<string, string>();

  constructor(normalize: (s: string) => string) {
    const require = createRequire(import.meta.url);
    const base = dirname(require.resolve('world-countries/countries.json'));
    const raw = JSON.parse(readFileSync(join(base, 'countries.json'), 'utf8')) as RawCountry[];
    const items: PolygonItem[] = [];
    const files = new Set(readdirSync(join(base, 'data')));
    for (const c of raw) {
      const translations: Record<string, string> = {};
      for (const [k, v] of Object.entries(c.translations)) translations[k] = v.common;
      this.info.set(c.cca2, { cca2: c.cca2, name: c.name.common, translations });
      for (const n of [c.name.common, c.cca2, c.cca3, ...Object.values(translations)]) this.byName.set(normalize(n), c.cca2);
      const file = `${c.cca3.toLowerCase()}.geo.json`;
      if (!files.has(file)) continue;
      const geo = JSON.parse(readFileSync(join(base, 'data', file), 'utf8')) as { features: { geometry?: { type: string; coordinates: unknown } }[] };
      for (const f of geo.features) {
        const polys = f.geometry?.type === 'Polygon' ? [f.geometry.coordinates as Ring[]] : f.geometry?.type === 'MultiPolygon' ? (f.geometry.coordinates as Ring[][]) : [];
        for (const poly of polys) items.push(polygonItem(c.cca2, poly));
      }
    }
    this.tree.load(items);
  }

  /** The country whose border holds the point (cca2), if any. */
  at(lat: number, lng: number): string | undefined {
    for (const p of this.tree.search({ minX: lng, minY: lat, maxX: lng, maxY: lat })) {
      if (inRing(p.rings[0], lng, lat) && !p.rings.some((h, k) => k > 0 && inRing(h, lng, lat))) return p.country;
    }
    return undefined;
  }

  /** The country's common name in the language when the data has it, in English otherwise. */
  name(cca2: string, lang: string): string {
    const c = this.info.get(cca2);
    if (!c) return cca2;
    return c.translations[LANG3[lang] ?? ''] ?? c.name;
  }
}

function polygonItem(country: string, poly: Ring[]): PolygonItem {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const rings = poly.map((ring) => {
    const a = new Float64Array(ring.length * 2);
    ring.forEach(([x, y], i) => {
      a[2 * i] = x;
      a[2 * i + 1] = y;
    });
    return banded(a);
  });
  for (const [x, y] of poly[0]) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return { minX, minY, maxX, maxY, country, rings };
}

/**
 * Even-odd ray casting over the edges of the point's latitude band (an edge its ray crosses spans
 * the point's latitude, so it is in that band; the parity does not depend on the order).
 */
function inRing(ring: Ring2, x: number, y: number): boolean {
  const { xy: r, starts, edges } = ring;
  const bands = starts.length - 1;
  const b = Math.floor((y - ring.minY) / ring.bandHeight);
  if (!(b >= -1 && b <= bands)) return false; // outside the ring's latitudes (or NaN)
  const band = Math.min(bands - 1, Math.max(0, b));
  const n = r.length / 2;
  let inside = false;
  for (let k = starts[band]; k < starts[band + 1]; k++) {
    const i = edges[k];
    const j = i === 0 ? n - 1 : i - 1;
    const xi = r[2 * i], yi = r[2 * i + 1], xj = r[2 * j], yj = r[2 * j + 1];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
