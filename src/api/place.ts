/** Places (spec: Place; Places, base path /place). Designed details: docs/places-zones.md. */
import { z } from 'zod';
import { geoEntitiesAt } from '../checkins/nearby.ts';
import { addressFor } from '../imports/geocode.ts';
import { batchPlaces, uploadPlaces } from '../imports/places.ts';
import type { FieldValues } from '../store/fields.ts';
import type { PlaceInput, PlaceRow } from '../store/places.ts';
import type { UserRow } from '../store/users.ts';
import type { UploadedFile } from '../core/upload.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { defineCall, type Services } from './kernel.ts';
import { conditionsParam, geocoderParam, id } from './schemas.ts';

export const lat = z.number().min(-90).max(90);
export const lng = z.number().min(-180).max(180);
/** Radii of places and zones, meters (our bound: 1 m to 100 km). */
export const radius = z.number().int().min(1).max(100_000);
export const label = z.string().trim().min(1).max(200);
export const address = z.string().max(400);
/** Tag ids: non-empty when present (spec: Place.tags). */
export const tagIds = z.array(id).min(1).max(100);
const fieldValues = z.record(z.string(), z.object({ type: z.string(), value: z.unknown() }));
/** A multipart file part; anything else (absent, a plain field) is "no data file" (233). */
export const filePart = z.unknown().optional();
export function uploadedFile(v: unknown): UploadedFile {
  if (!v || typeof v !== 'object' || !Buffer.isBuffer((v as UploadedFile).data)) throw new DomainError(233, {}, 'No data file: send the file as the multipart part "file"');
  return v as UploadedFile;
}

/** 7 naming `parameter` when some tag ids are not the owner's. */
export function checkTags(services: Services, owner: UserRow, tags: number[] | undefined, parameter: string): void {
  const missing = services.store.tags.missing(owner.id, tags ?? []);
  if (missing.length) throw invalidParams([{ parameter, error: `no such tags: ${missing.join(', ')}` }]);
}

/** 268 when `adding` more would pass the tariff's quota (`max_places` or `max_zones`). */
export function checkQuota(services: Services, owner: UserRow, what: 'max_places' | 'max_zones', current: number, adding: number): void {
  const max = services.store.tariffs.get(owner.tariff_id)?.[what] ?? 0;
  if (current + adding > max) throw new DomainError(268, { limit: max }, `Over quota: the tariff allows ${max} ${what === 'max_places' ? 'places' : 'zones'}, ${current} exist`);
}

const location = z.object({ lat, lng, address: address.default(''), radius: radius.default(100) });
/** icon_id and avatar_file_name are not read: they change only via avatar/assign and avatar/upload. */
const placeBody = {
  label,
  description: z.string().max(1024).default(''),
  location,
  tags: tagIds.optional(),
  external_id: z.string().max(32).nullable().default(null),
  fields: fieldValues.optional(),
};

export function placeView(p: PlaceRow, tags: number[], fields: FieldValues): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: p.id,
    label: p.label,
    description: p.description,
    location: { lat: p.lat, lng: p.lng, address: p.address, radius: p.radius },
    tags,
    fields,
    external_id: p.external_id,
    avatar_file_name: p.avatar_file_name,
  };
  if (p.icon_id !== null) out.icon_id = p.icon_id;
  return out;
}

export function placeViews(services: Services, rows: PlaceRow[]) {
  const ids = rows.map((r) => r.id);
  const tags = services.store.tags.entityTags('place', ids);
  const fields = services.store.fields.load('place', ids);
  return rows.map((r) => placeView(r, tags.get(r.id)!, fields.get(r.id)!));
}

function ownPlace(services: Services, owner: UserRow, placeId: number): PlaceRow {
  const p = services.store.places.get(owner.id, placeId);
  if (!p) throw new DomainError(201, {}, `Not found in the database: place ${placeId}`);
  return p;
}

async function input(services: Services, p: z.infer<z.ZodObject<typeof placeBody>>): Promise<PlaceInput> {
  const { lat, lng, radius } = p.location;
  return { label: p.label, description: p.description, lat, lng, radius, address: await addressFor(services.geocoder, lat, lng, p.location.address), external_id: p.external_id };
}

const read = defineCall({
  path: 'place/read',
  summary: 'One place.',
  params: z.object({ place_id: id }),
  handler({ services, owner, params }) {
    return { value: placeViews(services, [ownPlace(services, owner, params.place_id)])[0] };
  },
});

const list = defineCall({
  path: 'place/list',
  summary: 'Places matching place_ids, filter and conditions, ordered by order_by, one page of them, and the count of all matching.',
  params: z.object({
    place_ids: z.array(id).max(10_000).optional(),
    filter: z.string().max(200).optional(),
    tag_ids: z.array(id).max(1000).optional(),
    conditions: conditionsParam.optional(),
    order_by: z.string().max(64).default('id'),
    ascending: z.boolean().default(true),
    limit: z.number().int().min(1).max(10_000).default(10_000),
    offset: z.number().int().min(0).default(0),
  }),
  handler({ services, owner, user, params }) {
    const { rows, count } = services.store.places.list(owner.id, {
      ids: params.place_ids,
      tagIds: params.tag_ids,
      filter: params.filter || undefined,
      conditions: params.conditions,
      timeZone: user.time_zone,
      orderBy: params.order_by,
      ascending: params.ascending,
      limit: params.limit,
      offset: params.offset,
    });
    return { list: placeViews(services, rows), count };
  },
});

/** place/search_location and zone/search_location (documented): {id, label} of the user's places or zones containing the location, in id order. */
export function searchLocationCall(kind: 'places' | 'zones', summary: string) {
  return defineCall({
    path: `${kind === 'places' ? 'place' : 'zone'}/search_location`,
    summary,
    params: z.object({ location: z.object({ lat, lng }) }),
    handler({ services, owner, params }) {
      return { list: geoEntitiesAt(services.store).at(owner.id, params.location.lat, params.location.lng)[kind] };
    },
  });
}

const searchLocation = searchLocationCall('places', "The user's places whose circle (location and radius) contains the location ({lat, lng}): id and label, in id order.");

const create = defineCall({
  path: 'place/create',
  summary: 'Create a place; answers its id. An empty address is filled by the geocoder.',
  right: 'place_update',
  params: z.object({ place: z.object(placeBody), ignore_missing_fields: z.boolean().default(false) }),
  async handler({ services, owner, params }) {
    const { place } = params;
    checkTags(services, owner, place.tags, 'place.tags');
    const problems = services.store.fields.validate(owner.id, 'place', place.fields, { requireAll: !params.ignore_missing_fields, parameter: 'place.fields' });
    if (problems.length) throw invalidParams(problems);
    checkQuota(services, owner, 'max_places', services.store.places.count(owner.id), 1);
    return { id: services.store.places.create(owner.id, await input(services, place), place.tags, place.fields ?? {}) };
  },
});

const update = defineCall({
  path: 'place/update',
  summary: 'Replace a place (tags omitted: none; fields omitted: kept). icon_id and avatar are not changed here.',
  right: 'place_update',
  params: z.object({ place: z.object({ id, ...placeBody }) }),
  async handler({ services, owner, params }) {
    const { place } = params;
    ownPlace(services, owner, place.id);
    checkTags(services, owner, place.tags, 'place.tags');
    const problems = services.store.fields.validate(owner.id, 'place', place.fields, { requireAll: false, parameter: 'place.fields' });
    if (problems.length) throw invalidParams(problems);
    if (!services.store.places.update(owner.id, place.id, await input(services, place), place.tags ?? [], place.fields)) throw new DomainError(201, {}, `Not found in the database: place ${place.id}`);
  },
});

const remove = defineCall({
  path: 'place/delete',
  summary: 'Delete a place.',
  right: 'place_update',
  params: z.object({ place_id: id }),
  handler({ services, owner, params }) {
    if (!services.store.places.delete(owner.id, params.place_id)) throw new DomainError(201, {}, `Not found in the database: place ${params.place_id}`);
  },
});

export const PLACE_BATCH_FIELDS = ['label', 'address', 'lat', 'lng', 'radius', 'description', 'tags', 'external_id'] as const;
export const batchFields = <T extends readonly [string, ...string[]]>(allowed: T, dflt: T[number][]) =>
  z
    .array(z.enum(allowed))
    .min(1)
    .max(allowed.length)
    .default(dflt)
    .refine((f) => new Set(f).size === f.length, 'each field at most once');

const batchConvert = defineCall({
  path: 'place/batch_convert',
  summary: 'Check and convert tab-delimited rows to place objects ready for place/create (nothing is created).',
  right: 'place_update',
  params: z.object({
    batch: z.string().max(5_000_000).optional(),
    file_id: z.string().min(1).max(64).optional(),
    fields: batchFields(PLACE_BATCH_FIELDS, ['label', 'address', 'lat', 'lng', 'radius', 'description', 'tags']),
    geocoder: geocoderParam,
    default_radius: radius.default(100),
  }),
  async handler({ services, owner, params }) {
    // No spreadsheet parse call exists yet (spec: not shown), so no file_id can be known.
    if (params.file_id !== undefined) throw new DomainError(201, {}, `Not found in the database: file ${params.file_id} (no spreadsheet has been preloaded)`);
    if (params.batch === undefined) throw invalidParams([{ parameter: 'batch', error: 'required unless file_id is given' }]);
    const room = Math.max(0, (services.store.tariffs.get(owner.tariff_id)?.max_places ?? 0) - services.store.places.count(owner.id));
    return batchPlaces(services, owner, params.batch, { ...params, room });
  },
});

const upload = defineCall({
  path: 'place/upload',
  summary: 'Import places from a semicolon CSV with the header label;address;lat;lng;radius;external_id;description.',
  right: 'place_update',
  upload: true,
  params: z.object({
    file: filePart,
    error_policy: z.enum(['ignore', 'fail']),
    duplicate_policy: z.enum(['skip', 'update', 'fail']),
    default_radius: radius.default(100),
    geocoder: geocoderParam,
  }),
  async handler({ services, owner, params }) {
    const file = uploadedFile(params.file);
    return uploadPlaces(services, owner, file, params);
  },
});

export const placeCalls = [read, list, searchLocation, create, update, remove, batchConvert, upload];
