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
export const geocoderParam = z
  .enum([...GEOCODER_TYPES, ...Object.keys(GEOCODER_ALIASES)] as [string, ...string[]])
  .transform((g): GeocoderType => GEOCODER_ALIASES[g] ?? (g as GeocoderType))
  .optional();
