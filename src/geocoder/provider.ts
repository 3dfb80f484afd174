/** What one geocoding provider (offline, Nominatim, Photon) implements; src/geocoder/index.ts puts them together. */
import type { GeoResult } from './types.ts';

export interface Bounds {
  nw: { lat: number; lng: number };
  se: { lat: number; lng: number };
}

export interface SearchQuery {
  /** ISO 639-1 language ('' when none was asked). */
  lang: string;
  bounds?: Bounds;
  limit: number;
}

export interface Provider {
  readonly name: string;
  /** Calls a service over the network: cached in SQLite too, and falls back to offline on failure. */
  readonly remote: boolean;
  /** Results carry details always; the geocoder strips them when they were not asked for. */
  reverse(lat: number, lng: number, lang: string): Promise<GeoResult | null>;
  search(q: string, query: SearchQuery): Promise<GeoResult[]>;
}

export function inBounds(b: Bounds, lat: number, lng: number): boolean {
  const { nw, se } = b;
  if (lat > nw.lat || lat < se.lat) return false;
  // A box crossing the antimeridian has nw.lng > se.lng.
  return nw.lng <= se.lng ? lng >= nw.lng && lng <= se.lng : lng >= nw.lng || lng <= se.lng;
}
