/** Parameter types shared by the calls. */
import { z } from 'zod';
import { MAX_CONDITIONS, parseConditions } from '../core/conditions.ts';
import { GEOCODER_ALIASES, GEOCODER_TYPES, type GeocoderType } from '../geocoder/types.ts';

/** An entity id: a positive 32-bit integer. */
export const id = z.number().int().min(1).max(2147483647);

/**
 * The `conditions` parameter of the list calls: a JSON array of conditions, checked without
 * recursion (nesting depth first) by src/core/conditions.ts; code 7 names the condition at fault.
 */
export const conditionsParam = z
  .array(z.unknown())
  .max(MAX_CONDITIONS)
  .transform((raw) => parseConditions(raw));

/**
 * The `geocoder` parameter: one of the spec's five types, or the documentation's name of one
 * (google, yandex, progorod, osm, locationiq; docs/geocoder.md), answered as the type.
 */
/** The route provider: one of the spec's three, or the documentation's name of one (google, progorod, osrm, in that order). */
export const ROUTE_PROVIDERS = ['route_provider_1', 'route_provider_2', 'route_provider_3'] as const;
const ROUTE_PROVIDER_ALIASES: Record<string, (typeof ROUTE_PROVIDERS)[number]> = { google: 'route_provider_1', progorod: 'route_provider_2', osrm: 'route_provider_3' };
export const routeProviderParam = z
  .enum([...ROUTE_PROVIDERS, ...Object.keys(ROUTE_PROVIDER_ALIASES)] as [string, ...string[]])
  .transform((r) => ROUTE_PROVIDER_ALIASES[r] ?? r)
  .optional();

export const geocoderParam = z
  .enum([...GEOCODER_TYPES, ...Object.keys(GEOCODER_ALIASES)] as [string, ...string[]])
  .transform((g): GeocoderType => GEOCODER_ALIASES[g] ?? (g as GeocoderType))
  .optional();
