/** Tracker calls (spec: Trackers, base path /tracker) that concern registration and phones. */
import { z } from 'zod';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { formatDateTime } from '../core/time.ts';
import { DomainError } from '../core/errors.ts';
import { defineCall, SerializedMembers, type Services } from './kernel.ts';
import { id } from './schemas.ts';

/** The spec's tracker object. */
export function trackerView(t: TrackerRow, tz: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: t.id,
    label: t.label,
    clone: !!t.clone,
    // Department of the tracker's employee; 0 if it has none; -1 without an employee (docs/employees.md).
    group_id: t.group_id,
    source: {
      id: t.source_id,
      device_id: t.device_id,
      model: t.model,
      blocked: !!t.blocked,
      tariff_id: t.tariff_id,
      status_listing_id: t.status_listing_id,
      creation_date: formatDateTime(t.source_creation_date, tz),
      tariff_end_date: t.tariff_end_date === null ? null : formatDateTime(t.tariff_end_date, tz),
      phone: t.phone,
    },
  };
  if (t.avatar_file_name) out.avatar_file_name = t.avatar_file_name;
  return out;
}

/** The owner's tracker or `code` (201 or 204 by call) when it does not exist or is someone else's. */
export async function ownTracker(services: Services, owner: UserRow, trackerId: number, code: 201 | 204 = 201): Promise<TrackerRow> {
  const t = await services.store.data.trackers.get(owner.id, trackerId);
  if (!t) throw new DomainError(code, {}, `${code === 201 ? 'Not found in the database' : 'Entity not found'}: tracker ${trackerId}`);
  return t;
}

/**
 * The answer of tracker/list per listing and time zone. The store caches a listing until trackers,
 * sources or tags change; building the views anew on every call was most of the call's garbage.
 * Keyed by the listing object, so a new listing drops the old views with it.
 */
const views = new WeakMap<object, Map<string, SerializedMembers>>();

const list = defineCall({
  path: 'tracker/list',
  summary: "The user's trackers with their tag bindings; `labels`: only those whose label contains one of the strings (case-insensitive).",
  params: z.object({
    labels: z
      .array(z.string().min(1).max(60))
      .min(1)
      .max(1024)
      .refine((a) => new Set(a).size === a.length, 'no duplicate items')
      .optional(),
  }),
  async handler({ services, owner, user, params }) {
    const listing = await services.store.data.trackers.listing(owner.id);
    if (params.labels) {
      // A filtered list is not cached: the cache holds the whole listing per time zone.
      const wanted = params.labels.map((l) => l.toLowerCase());
      const hit = listing.trackers.filter((t) => wanted.some((w) => t.label.toLowerCase().includes(w)));
      return { list: hit.map((t) => ({ ...trackerView(t, user.time_zone), tag_bindings: listing.bindings.get(t.id) ?? [] })) };
    }
    let byZone = views.get(listing);
    if (!byZone) views.set(listing, (byZone = new Map()));
    let out = byZone.get(user.time_zone);
    if (!out) {
      const list = listing.trackers.map((t) => ({ ...trackerView(t, user.time_zone), tag_bindings: listing.bindings.get(t.id) ?? [] }));
      out = new SerializedMembers(`"list":${JSON.stringify(list)}`);
      byZone.set(user.time_zone, out);
    }
    return out;
  },
});

const read = defineCall({
  path: 'tracker/read',
  summary: 'One tracker.',
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, user, params }) {
    return { value: trackerView(await ownTracker(services, owner, params.tracker_id), user.time_zone) };
  },
});

const changePhone = defineCall({
  path: 'tracker/change_phone',
  summary: "Change the phone number (and APN) of the tracker's SIM card.",
  right: 'tracker_configure',
  params: z.object({
    tracker_id: id,
    phone: z.string().regex(/^\d{5,20}$/, 'international format without plus sign: 5 to 20 digits'),
    apn_name: z.string().max(100).default(''),
    apn_user: z.string().max(100).default(''),
    apn_password: z.string().max(100).default(''),
  }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    const t = await ownTracker(services, owner, params.tracker_id, 204);
    if (t.clone) throw new DomainError(219);
    if (t.blocked) throw new DomainError(208);
    if (!t.has_gsm) throw new DomainError(214, {}, 'Operation not supported by the device: it has no GSM module');
    if (t.bundled_sim) throw new DomainError(241);
    if (await data.trackers.phoneInUse(params.phone, t.source_id)) throw new DomainError(223);
    await data.trackers.changePhone(t.source_id, params.phone, { name: params.apn_name, user: params.apn_user, password: params.apn_password });
  },
});

const corrupt = defineCall({
  path: 'tracker/corrupt',
  summary: 'Mark the tracker deleted and corrupt its source (device id and phone), releasing a wrongly registered device id.',
  right: 'tracker_register',
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    const any = await data.trackers.getAny(params.tracker_id);
    if (any && any.user_id === owner.id && any.deleted && any.corrupted) throw new DomainError(252);
    const t = await ownTracker(services, owner, params.tracker_id);
    if (t.clone) throw new DomainError(219);
    if (t.blocked) throw new DomainError(208);
    if (t.first_seen !== null) throw new DomainError(243, {}, 'Device already connected: it has sent data, so its registration is real');
    await data.trackers.corrupt(t);
  },
});

const remove = defineCall({
  path: 'tracker/delete',
  summary: 'Delete a clone of a tracker.',
  right: 'admin',
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, params }) {
    const data = services.store.data;
    const t = await ownTracker(services, owner, params.tracker_id);
    if (!t.clone) throw new DomainError(249);
    const deps = await data.trackers.dependents(t.id);
    if (deps.rules.length) throw new DomainError(203, { rules: deps.rules }, 'Delete entity associated with: rules use this tracker');
    if (deps.vehicles.length) throw new DomainError(203, { vehicles: deps.vehicles }, 'Delete entity associated with: vehicles use this tracker');
    await data.trackers.markDeleted(t.id);
  },
});

export const trackerCalls = [list, read, changePhone, corrupt, remove];
