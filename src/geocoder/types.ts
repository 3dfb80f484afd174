/** The geocoder contract the API, the imports and the address filler use (implementation: src/geocoder/). */

export interface GeoDetails {
  country?: string;
  province?: string;
  locality?: string;
  street?: string;
  house?: string;
  postcode?: string;
  bounds?: { nw: { lat: number; lng: number }; se: { lat: number; lng: number } };
}

export interface GeoResult {
  lat: number;
  lng: number;
  address: string;
  details?: GeoDetails;
}

/** The five geocoder type ids of the spec, mapped to configured providers (docs/geocoder.md). */
export type GeocoderType = 'geocoder_type_1' | 'geocoder_type_2' | 'geocoder_type_3' | 'geocoder_type_4' | 'geocoder_type_5';
export const GEOCODER_TYPES: readonly GeocoderType[] = ['geocoder_type_1', 'geocoder_type_2', 'geocoder_type_3', 'geocoder_type_4', 'geocoder_type_5'];
/**
 * The provider names of the public documentation, accepted as aliases of the five types in its
 * order (issue 23): google, yandex, progorod, osm, locationiq are types 1 to 5.
 */
export const GEOCODER_ALIASES: Readonly<Record<string, GeocoderType>> = Object.freeze({
  google: 'geocoder_type_1',
  yandex: 'geocoder_type_2',
  progorod: 'geocoder_type_3',
  osm: 'geocoder_type_4',
  locationiq: 'geocoder_type_5',
});

export interface GeocodeOptions {
  /** Preferred provider type; the default provider when absent or not configured. */
  type?: GeocoderType;
  /** ISO 639 language (or locale) for the answer. */
  lang?: string;
  withDetails?: boolean;
  /** Search only: prefer results inside these bounds. */
  bounds?: { nw: { lat: number; lng: number }; se: { lat: number; lng: number } };
  /**
   * ui_user_action: a person waits for this answer, so a remote provider is always asked (on a cache
   * miss). ui (the default, and what background work should use): while a remote provider is known
   * to be failing, the offline provider answers at once instead of waiting for another timeout.
   */
  goal?: 'ui' | 'ui_user_action';
}

export interface Geocoder {
  /** Address of a point; null when nothing is known there. */
  reverse(lat: number, lng: number, opts?: GeocodeOptions): Promise<GeoResult | null>;
  /** Points matching a text (address, place, or "lat, lng"), best first. */
  search(q: string, opts?: GeocodeOptions): Promise<GeoResult[]>;
}

/** Geocoder settings (docs/geocoder.md). */
export type GeocoderProviderName = 'offline' | 'nominatim' | 'photon';
export interface GeocoderConfig {
  nominatimUrl: string | null;
  photonUrl: string | null;
  /** Each of the spec's five geocoder type ids -> the provider that answers for it. */
  types: Record<'geocoder_type_1' | 'geocoder_type_2' | 'geocoder_type_3' | 'geocoder_type_4' | 'geocoder_type_5', GeocoderProviderName>;
  timeoutMs: number;
  /** Entries of the in-memory result cache. */
  cacheSize: number;
  /** Days a remote provider's answer is kept in the SQLite cache (0 = not kept). */
  cacheDays: number;
}
