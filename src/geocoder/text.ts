/** Text helpers of the geocoder: name normalization, "lat, lng" parsing, address formatting. */
import type { GeoDetails } from './types.ts';

/** Lower case, no diacritics, single spaces: the form names are compared in. */
export function normalize(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[’'`´]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const NUM = String.raw`([-+]?\d{1,3}(?:[.]\d+)?)`;
const COORDS = new RegExp(String.raw`^\s*${NUM}\s*(?:[,;]\s*|\s+)${NUM}\s*$`);

/**
 * "lat, lng" text (also "lat lng" or "lat;lng"): the pair, or undefined when q is not coordinates.
 * `valid` is false when the numbers are outside -90..90 / -180..180.
 */
export function parseCoordinates(q: string): { lat: number; lng: number; valid: boolean } | undefined {
  const m = COORDS.exec(q);
  if (!m) return undefined;
  const lat = Number(m[1]);
  const lng = Number(m[2]);
  return { lat, lng, valid: Math.abs(lat) <= 90 && Math.abs(lng) <= 180 };
}

/** "Street House, Locality, Province, Country" from the parts that are known (docs/geocoder.md). */
export function formatAddress(d: GeoDetails): string {
  const street = [d.street, d.house].filter(Boolean).join(' ');
  const parts = [street, d.locality, d.province !== d.locality ? d.province : undefined, d.country];
  return parts.filter((p): p is string => !!p && p.trim() !== '').join(', ');
}

/** The ISO 639-1 part of a language or locale ("pt_BR" -> "pt"); '' when there is none. */
export function languageOf(lang: string | undefined): string {
  const m = /^([a-zA-Z]{2,3})(?:[-_].*)?$/.exec(lang ?? '');
  return m ? m[1].toLowerCase() : '';
}
