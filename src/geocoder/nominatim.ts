/** A self-hosted Nominatim (https://nominatim.org/release-docs/latest/api/): /search and /reverse, format jsonv2. */
import { getJson, num, ProviderError, str } from './http.ts';
import type { Provider, SearchQuery } from './provider.ts';
import { formatAddress } from './text.ts';
import type { GeoDetails, GeoResult } from './types.ts';

interface Place {
  lat?: string;
  lon?: string;
  display_name?: string;
  address?: Record<string, string>;
  boundingbox?: string[];
}

export class NominatimProvider implements Provider {
  readonly name = 'nominatim';
  readonly remote = true;
  constructor(private readonly url: string, private readonly timeoutMs: number) {}

  async reverse(lat: number, lng: number, lang: string): Promise<GeoResult | null> {
    const body = (await getJson(this.url, '/reverse', { format: 'jsonv2', lat, lon: lng, addressdetails: 1, 'accept-language': lang }, this.timeoutMs)) as Place & { error?: unknown };
    if (!body || typeof body !== 'object') throw new ProviderError('nominatim: unexpected answer');
    if (body.error !== undefined) return null; // "Unable to geocode": nothing there
    return toResult(body);
  }

  async search(q: string, query: SearchQuery): Promise<GeoResult[]> {
    const b = query.bounds;
    // viewbox without bounded=1 only raises the rank of what lies inside: "influences priority only".
    const viewbox = b ? `${b.nw.lng},${b.nw.lat},${b.se.lng},${b.se.lat}` : undefined;
    const body = await getJson(this.url, '/search', { format: 'jsonv2', q, addressdetails: 1, limit: query.limit, 'accept-language': query.lang, viewbox }, this.timeoutMs);
    if (!Array.isArray(body)) throw new ProviderError('nominatim: unexpected answer');
    return (body as Place[]).map(toResult).filter((r): r is GeoResult => r !== null);
  }
}

function toResult(p: Place): GeoResult | null {
  const lat = num(p.lat);
  const lng = num(p.lon);
  if (!Number.isFinite(lat) || !Number.isFinite(lng)) return null;
  const a = p.address ?? {};
  const details: GeoDetails = {};
  const set = (k: keyof Omit<GeoDetails, 'bounds'>, v: string | undefined) => v && (details[k] = v);
  set('country', str(a.country));
  set('province', str(a.state) ?? str(a.region) ?? str(a.province) ?? str(a.county));
  set('locality', str(a.city) ?? str(a.town) ?? str(a.village) ?? str(a.hamlet) ?? str(a.municipality));
  set('street', str(a.road) ?? str(a.pedestrian) ?? str(a.street));
  set('house', str(a.house_number));
  set('postcode', str(a.postcode));
  const bb = (p.boundingbox ?? []).map(num);
  if (bb.length === 4 && bb.every(Number.isFinite)) details.bounds = { nw: { lat: bb[1], lng: bb[2] }, se: { lat: bb[0], lng: bb[3] } };
  return { lat, lng, address: formatAddress(details) || str(p.display_name) || '', details };
}
