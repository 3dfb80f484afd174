/** Geocoder calls (spec "Geocoder, base path /geocoder"): search_address and search_location. See docs/geocoder.md. */
import { z } from 'zod';
import { GEOCODER_TYPES, type GeocodeOptions, type GeocoderType } from '../geocoder/types.ts';
import { parseCoordinates } from '../geocoder/text.ts';
import type { UserRow } from '../store/users.ts';
import { invalidParams } from '../core/errors.ts';
import { defineCall } from './kernel.ts';
import { geocoderParam } from './schemas.ts';

const lat = z.number().min(-90).max(90);
const lng = z.number().min(-180).max(180);
const point = z.object({ lat, lng });
/** ISO 639 language, optionally locale-style: en, pt_BR, zh-Hans-CN. */
const lang = z.string().max(35).regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8})*$/, 'an ISO 639 language or locale, e.g. en or pt_BR');
const geocoder = geocoderParam;
const bounds = z
  .object({ nw: point, se: point })
  .refine((b) => b.nw.lat >= b.se.lat, { message: 'nw must not be south of se', path: ['nw', 'lat'] });

/** The asked geocoder type, else the user's default_geocoder (user/get_info). */
function typeOf(user: UserRow, asked: GeocoderType | undefined): GeocoderType {
  if (asked) return asked;
  return (GEOCODER_TYPES as readonly string[]).includes(user.default_geocoder) ? (user.default_geocoder as GeocoderType) : 'geocoder_type_1';
}

const searchAddress = defineCall({
  path: 'geocoder/search_address',
  summary: 'Points matching an address, a place name or "lat, lng" text, best first (at most 10). bounds only raises the rank of what lies inside.',
  params: z.object({
    q: z.string().trim().min(1).max(512),
    lang,
    geocoder,
    bounds: bounds.optional(),
    with_details: z.boolean().default(false),
  }),
  async handler({ services, user, params }) {
    const c = parseCoordinates(params.q);
    if (c && !c.valid) throw invalidParams([{ parameter: 'q', error: 'coordinates out of range: lat must be -90..90 and lng -180..180' }]);
    const opts: GeocodeOptions = { type: typeOf(user, params.geocoder), lang: params.lang, withDetails: params.with_details, bounds: params.bounds, goal: 'ui_user_action' };
    return { locations: await services.geocoder.search(params.q, opts) };
  },
});

const searchLocation = defineCall({
  path: 'geocoder/search_location',
  summary: "The address of a point ('' when nothing is known there); details with with_details.",
  params: z.object({
    location: point,
    geocoder,
    lang: lang.optional(),
    with_details: z.boolean().default(false),
    goal: z.enum(['ui', 'ui_user_action']),
  }),
  async handler({ services, user, params }) {
    const { lat, lng } = params.location;
    const opts: GeocodeOptions = { type: typeOf(user, params.geocoder), lang: params.lang ?? user.locale, withDetails: params.with_details, goal: params.goal };
    const r = await services.geocoder.reverse(lat, lng, opts);
    return params.with_details ? { value: r?.address ?? '', details: r?.details ?? {} } : { value: r?.address ?? '' };
  },
});

export const geocoderCalls = [searchAddress, searchLocation];
