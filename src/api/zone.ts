/** Zones (spec: Zone; Zones, base path /zone). Designed details: docs/places-zones.md. */
import { z } from 'zod';
import { destination } from '../core/geo.ts';
import { addressFor } from '../imports/geocode.ts';
import { MAX_ZONE_POINTS, MIN_ZONE_POINTS, simplify, zoneAnchor } from '../imports/geometry.ts';
import { batchZones } from '../imports/zones.ts';
import { uploadZones } from '../imports/zone-upload.ts';
import type { UserRow } from '../store/users.ts';
import type { ZoneInput, ZonePoint, ZoneRow } from '../store/zones.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { defineCall, SerializedMembers, type Services } from './kernel.ts';
import { address, batchFields, checkQuota, checkTags, filePart, label, lat, lng, radius, searchLocationCall, uploadedFile } from './place.ts';
import { geocoderParam, id } from './schemas.ts';

const color = z.string().regex(/^[0-9A-Fa-f]{6}$/, '3-byte RGB hex, e.g. 27A9E3').transform((c) => c.toUpperCase());
const point = z.object({ lat, lng, node: z.boolean().default(false) });
/** Points as sent; the per-type maximum (100 / 1024) answers 202, not 7. */
const points = z.array(point).max(100_000);
const zoneBody = {
  type: z.enum(['circle', 'polygon', 'sausage']),
  label,
  address: address.default(''),
  color: color.default('27A9E3'),
  radius: radius.optional(),
  center: z.object({ lat, lng }).optional(),
  // Spec: no lower bound (the official client sends `tags: []` for every new zone).
  tags: z.array(id).max(100).optional(),
};
type ZoneBody = z.infer<z.ZodObject<typeof zoneBody>>;

export function zoneView(zone: ZoneRow, tags: number[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: zone.id, type: zone.type, label: zone.label, address: zone.address, color: zone.color, tags };
  if (zone.type !== 'polygon') out.radius = zone.radius;
  if (zone.type === 'circle') out.center = { lat: zone.center_lat, lng: zone.center_lng };
  out.bounds = boundsOf(zone);
  return out;
}

/**
 * The documented `bounds` of a zone (issue 23): the axis-aligned box {nw, se} of its points, a
 * sausage's widened by its radius, a circle's around its center; null for a zone without points.
 */
function boundsOf(z: ZoneRow): { nw: { lat: number; lng: number }; se: { lat: number; lng: number } } | null {
  const box = z.type === 'circle' ? { n: z.center_lat!, s: z.center_lat!, w: z.center_lng!, e: z.center_lng! } : z.min_lat === null ? null : { n: z.max_lat!, s: z.min_lat!, w: z.min_lng!, e: z.max_lng! };
  if (!box) return null;
  const r = z.type === 'polygon' ? 0 : (z.radius ?? 0);
  const km = r / 1000;
  const n = r ? destination(box.n, box.w, 0, km).lat : box.n;
  const s = r ? destination(box.s, box.w, 180, km).lat : box.s;
  // Widest at the latitude nearest a pole.
  const farLat = Math.abs(box.n) > Math.abs(box.s) ? box.n : box.s;
  const w = r ? destination(farLat, box.w, 270, km).lng : box.w;
  const e = r ? destination(farLat, box.e, 90, km).lng : box.e;
  const round = (v: number) => Math.round(v * 1e6) / 1e6;
  return { nw: { lat: round(Math.min(90, n)), lng: round(w) }, se: { lat: round(Math.max(-90, s)), lng: round(e) } };
}

/** The members each type needs (circle: center and radius; sausage: radius), as 7 naming them. */
function shape(zone: ZoneBody): Omit<ZoneInput, 'address'> {
  const missing: Array<{ parameter: string; error: string }> = [];
  if (zone.type !== 'polygon' && zone.radius === undefined) missing.push({ parameter: 'zone.radius', error: `required for a ${zone.type} zone` });
  if (zone.type === 'circle' && !zone.center) missing.push({ parameter: 'zone.center', error: 'required for a circle zone' });
  if (missing.length) throw invalidParams(missing);
  return {
    type: zone.type,
    label: zone.label,
    color: zone.color,
    radius: zone.type === 'polygon' ? null : zone.radius!,
    center: zone.type === 'circle' ? zone.center! : null,
  };
}

/** Spec: points must be omitted for circles (230), at least 3 (7), at most 100 / 1024 (202). */
function checkPoints(type: ZoneRow['type'], pts: ZonePoint[] | undefined): void {
  if (type === 'circle') {
    if (pts !== undefined) throw new DomainError(230, {}, 'Not supported for this entity type: circle zones have no points');
    return;
  }
  if (!pts) throw invalidParams([{ parameter: 'points', error: `required for a ${type} zone` }]);
  if (pts.length < MIN_ZONE_POINTS) throw invalidParams([{ parameter: 'points', error: `at least ${MIN_ZONE_POINTS} points` }]);
  if (pts.length > MAX_ZONE_POINTS[type]) throw new DomainError(202, { max_points: MAX_ZONE_POINTS[type] }, `Too many points in a zone: a ${type} zone has at most ${MAX_ZONE_POINTS[type]}, got ${pts.length}`);
}

function ownZone(services: Services, owner: UserRow, zoneId: number): ZoneRow {
  const zone = services.store.zones.get(owner.id, zoneId);
  if (!zone) throw new DomainError(201, {}, `Not found in the database: zone ${zoneId}`);
  return zone;
}

const list = defineCall({
  path: 'zone/list',
  summary: "The user's zones in id order; filter (a part of the label or address, any case), tag_ids (zones with all of them), offset and limit, with_points (polygons and sausages carry their points).",
  params: z.object({
    filter: z.string().max(760).optional(),
    tag_ids: z.array(id).max(100).optional(),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).optional(),
    with_points: z.boolean().default(false),
  }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    let rows = await data.zones.list(owner.id);
    if (params.filter) {
      const part = params.filter.toLowerCase();
      rows = rows.filter((r) => r.label.toLowerCase().includes(part) || (r.address ?? '').toLowerCase().includes(part));
    }
    if (params.tag_ids?.length) {
      const tagged = new Set(await data.tags.withAllTags(owner.id, 'zone', params.tag_ids));
      rows = rows.filter((r) => tagged.has(r.id));
    }
    rows = rows.slice(params.offset, params.limit === undefined ? undefined : params.offset + params.limit);
    const tags = await data.tags.entityTags('zone', rows.map((r) => r.id));
    const list = [];
    for (const r of rows) {
      const view = zoneView(r, tags.get(r.id)!);
      if (params.with_points && r.type !== 'circle') view.points = await data.zones.points(r.id);
      list.push(view);
    }
    return { list };
  },
});

const read = defineCall({
  path: 'zone/read',
  summary: 'One zone; with_points: polygons and sausages carry their points too (circles have none).',
  params: z.object({ zone_id: id, with_points: z.boolean().default(false) }),
  handler({ services, owner, params }) {
    const zone = ownZone(services, owner, params.zone_id);
    const value = zoneView(zone, services.store.tags.entityTags('zone', [zone.id]).get(zone.id)!);
    if (params.with_points && zone.type !== 'circle') value.points = services.store.zones.points(zone.id);
    return { value };
  },
});

const searchLocation = searchLocationCall('zones', "The user's zones containing the location ({lat, lng}): id and label, in id order.");

const create = defineCall({
  path: 'zone/create',
  summary: 'Create a zone (points for polygon and sausage zones); answers its id. An empty address is filled by the geocoder.',
  right: 'zone_update',
  params: z.object({ zone: z.object(zoneBody), points: points.optional() }),
  async handler({ services, owner, params }) {
    const { zone } = params;
    const input = shape(zone);
    checkPoints(zone.type, params.points);
    checkTags(services, owner, zone.tags, 'zone.tags');
    checkQuota(services, owner, 'max_zones', services.store.zones.count(owner.id), 1);
    const at = zoneAnchor(input.center, params.points)!;
    const addr = await addressFor(services.geocoder, at.lat, at.lng, zone.address);
    const [zoneId] = services.store.zones.createMany(owner.id, [{ zone: { ...input, address: addr }, points: params.points, tags: zone.tags }]);
    return { id: zoneId };
  },
});

const update = defineCall({
  path: 'zone/update',
  summary: 'Replace a zone (not its type nor its points; tags omitted: none; color omitted: 27A9E3).',
  right: 'zone_update',
  params: z.object({ zone: z.object({ id, ...zoneBody }) }),
  async handler({ services, owner, params }) {
    const { zone } = params;
    const stored = ownZone(services, owner, zone.id);
    if (stored.type !== zone.type) throw new DomainError(231, {}, `Entity type mismatch: zone ${zone.id} is a ${stored.type}, its type cannot change`);
    const input = shape(zone);
    checkTags(services, owner, zone.tags, 'zone.tags');
    const at = zoneAnchor(input.center, input.center ? undefined : services.store.zones.points(zone.id));
    const addr = at ? await addressFor(services.geocoder, at.lat, at.lng, zone.address) : zone.address;
    if (!services.store.zones.update(owner.id, zone.id, { ...input, address: addr }, zone.tags ?? [])) throw new DomainError(201, {}, `Not found in the database: zone ${zone.id}`);
  },
});

const remove = defineCall({
  path: 'zone/delete',
  summary: 'Delete one zone (zone_id) or several (zone_ids), all or none; 203 names the rules that use them.',
  right: 'zone_update',
  params: z.object({ zone_id: id.optional(), zone_ids: z.array(id).max(1000).optional() }),
  handler({ services, owner, params }) {
    if (params.zone_id !== undefined && params.zone_ids !== undefined) throw invalidParams([{ parameter: 'zone_ids', error: 'use only one of zone_id and zone_ids' }]);
    const ids = params.zone_ids ?? (params.zone_id !== undefined ? [params.zone_id] : undefined);
    if (!ids) throw invalidParams([{ parameter: 'zone_id', error: 'required (or zone_ids)' }]);
    const missing = services.store.zones.missing(owner.id, ids);
    if (missing.length) throw new DomainError(201, {}, `Not found in the database: zone ${missing.join(', ')}`);
    const rules = services.store.zones.rulesUsing(ids);
    if (rules.length) throw new DomainError(203, { entities: [{ type: 'rules', ids: rules }] }, 'Delete entity associated with: rules use the zone');
    services.store.zones.delete(owner.id, ids);
  },
});

const pointList = defineCall({
  path: 'zone/point/list',
  summary: 'Points of a polygon or sausage zone, simplified to count points when given (first and last kept).',
  params: z.object({ zone_id: id, count: z.number().int().min(MIN_ZONE_POINTS).max(MAX_ZONE_POINTS.sausage).optional() }),
  handler({ services, owner, params }) {
    const zone = ownZone(services, owner, params.zone_id);
    if (zone.type === 'circle') throw new DomainError(230, {}, 'Not supported for this entity type: circle zones have no points');
    const pts = services.store.zones.points(zone.id);
    return { list: params.count ? simplify(pts, params.count) : pts };
  },
});

const pointUpdate = defineCall({
  path: 'zone/point/update',
  summary: 'Replace the points of a polygon or sausage zone.',
  right: 'zone_update',
  params: z.object({ zone_id: id, points }),
  handler({ services, owner, params }) {
    const zone = ownZone(services, owner, params.zone_id);
    checkPoints(zone.type, params.points);
    services.store.zones.setPoints(zone.id, params.points);
  },
});

const ZONE_BATCH_FIELDS = ['label', 'address', 'lat', 'lng', 'radius', 'tags', 'color'] as const;

const batchConvert = defineCall({
  path: 'zone/batch_convert',
  summary: 'Check and convert tab-delimited rows to circle zone objects ready for zone/create (nothing is created).',
  right: 'zone_update',
  params: z.object({
    batch: z.string().max(5_000_000).optional(),
    file_id: z.string().min(1).max(64).optional(),
    fields: batchFields(ZONE_BATCH_FIELDS, ['label', 'address', 'lat', 'lng', 'radius', 'tags']),
    geocoder: geocoderParam,
    default_radius: radius.default(100),
  }),
  async handler({ services, owner, params }) {
    // No spreadsheet parse call exists yet (spec: not shown), so no file_id can be known.
    if (params.file_id !== undefined) throw new DomainError(201, {}, `Not found in the database: file ${params.file_id} (no spreadsheet has been preloaded)`);
    if (params.batch === undefined) throw invalidParams([{ parameter: 'batch', error: 'required unless file_id is given' }]);
    const room = Math.max(0, (services.store.tariffs.get(owner.tariff_id)?.max_zones ?? 0) - services.store.zones.count(owner.id));
    return batchZones(services, owner, params.batch, { ...params, room });
  },
});

const upload = defineCall({
  path: 'zone/upload',
  summary: 'Read zones from a KML or KMZ file: with dry_run (default) answer them, else create them and answer their ids.',
  right: 'zone_update',
  upload: true,
  params: z.object({ file: filePart, default_radius: z.number().int().min(20).max(100_000).default(150), dry_run: z.boolean().default(true) }),
  async handler({ services, owner, params }) {
    // Unzip and parse in the upload worker, store in batches (src/imports/zone-upload.ts).
    const answer = await uploadZones(services, owner, uploadedFile(params.file), params);
    return 'ids' in answer ? { list: answer.ids } : new SerializedMembers(answer.preview);
  },
});

export const zoneCalls = [list, read, searchLocation, create, update, remove, pointList, pointUpdate, batchConvert, upload];
