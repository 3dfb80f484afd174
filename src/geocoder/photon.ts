/** A self-hosted Photon (https://github.com/komoot/photon): /api and /reverse, GeoJSON answers. */
import { getJson, num, ProviderError, str } from './http.ts';
import type { Provider, SearchQuery } from './provider.ts';
import { formatAddress } from './text.ts';
import type { GeoDetails, GeoResult } from './types.ts';

/** Photon answers in these languages only; other languages get its default (local names). */
const LANGS = new Set(['de', 'en', 'fr', 'it']);

interface Feature {
  geometry?: { coordinates?: unknown[] };
  properties?: Record<string, unknown>;
}

export class PhotonProvider implements Provider {
  readonly name = 'photon';
  readonly remote = true;
  constructor(private readonly url: string, private readonly timeoutMs: number) {}

  async reverse(lat: number, lng: number, lang: string): Promise<GeoResult | null> {
    const body = await getJson(this.url, '/reverse', { lat, lon: lng, lang: LANGS.has(lang) ? lang : undefined, limit: 1 }, this.timeoutMs);
    return features(body)[0] ?? null;
  }

  async search(q: string, query: SearchQuery): Promise<GeoResult[]> {
    const b = query.bounds;
    // Photon's bbox filters; a location bias at the centre of the bounds only ranks.
    const bias = b ? { lat: (b.nw.lat + b.se.lat) / 2, lon: (b.nw.lng + b.se.lng) / 2 } : {};
    const body = await getJson(this.url, '/api', { q, limit: query.limit, lang: LANGS.has(query.lang) ? query.lang : undefined, ...bias }, this.timeoutMs);
    return features(body);
  }
}

function features(body: unknown): GeoResult[] {
  const list = (body as { features?: unknown })?.features;
  if (!Array.isArray(list)) throw new ProviderError('photon: unexpected answer');
  return (list as Feature[]).map(toResult).filter((r): r is GeoResult => r !== null);
}

function toResult(f: Feature): GeoResult | null {
  const [lng, lat] = (f.geometry?.coordinates ?? []).map(num);
  if (!Number.isFinite(lat) || !Number.isFinite(lng)) return null;
  const p = f.properties ?? {};
  const details: GeoDetails = {};
  const set = (k: keyof Omit<GeoDetails, 'bounds'>, v: string | undefined) => v && (details[k] = v);
  set('country', str(p.country));
  set('province', str(p.state));
  set('locality', str(p.city) ?? (p.osm_key === 'place' ? str(p.name) : undefined));
  set('street', str(p.street) ?? (p.osm_key === 'highway' ? str(p.name) : undefined));
  set('house', str(p.housenumber));
  set('postcode', str(p.postcode));
  const e = Array.isArray(p.extent) ? p.extent.map(num) : [];
  if (e.length === 4 && e.every(Number.isFinite)) details.bounds = { nw: { lat: e[1], lng: e[0] }, se: { lat: e[3], lng: e[2] } };
  const name = str(p.name);
  let address = formatAddress(details);
  // A named feature (a shop, a building) that is not the street or the locality itself leads the address.
  if (name && name !== details.locality && name !== details.street) address = address ? `${name}, ${address}` : name;
  return { lat, lng, address, details };
}
