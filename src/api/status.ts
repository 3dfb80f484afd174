/**
 * Working statuses (issue 11; spec: Status and status listing, Statuses base path /status).
 * status/create|update|delete|list and status/tracker/assign|read|list as the spec; the listing
 * calls status/listing/* are ours. Decisions (tariff feature, quotas, codes) in docs/statuses.md;
 * the rules live in src/statuses/statuses.ts.
 */
import { z } from 'zod';
import { formatDateTime } from '../core/time.ts';
import { DomainError } from '../core/errors.ts';
import type { StatusChangeRow, StatusListingRow, StatusRow } from '../store/statuses.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { assignListing, changeStatus, createListing, createStatus, ownListing, ownStatus, requireStatusFeature, updateListing } from '../statuses/statuses.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { ownTracker } from './tracker.ts';

/** Most trackers one status/tracker/list may name: more is 221. */
export const MAX_LISTED_TRACKERS = 500;

const label = z.string().trim().min(1).max(100);
const color = z.string().regex(/^[0-9A-Fa-f]{6}$/, 'six hex digits (RGB), e.g. 27A9E3').transform((c) => c.toUpperCase());
const statusFields = { label, color };
const listingFields = { label, employee_controlled: z.boolean().default(false), supervisor_controlled: z.boolean().default(true) };

const statusView = (s: StatusRow) => ({ id: s.id, label: s.label, color: s.color });
async function listingView(services: Services, l: StatusListingRow) {
  return {
    id: l.id,
    label: l.label,
    employee_controlled: !!l.employee_controlled,
    supervisor_controlled: !!l.supervisor_controlled,
    entries: (await services.store.data.statuses.statuses(l.id)).map((s) => s.id),
  };
}
export function changeView(c: StatusChangeRow | undefined, tz: string) {
  if (!c) return null;
  return {
    id: c.id,
    old_status_id: c.old_status_id,
    new_status_id: c.new_status_id,
    location: c.lat === null || c.lng === null ? null : { lat: c.lat, lng: c.lng, address: c.address },
    changed: formatDateTime(c.changed, tz),
    origin: c.origin,
  };
}

/** The user's tariff has the statuses feature (236 otherwise). */
const userFeature = (services: Services, owner: UserRow) => requireStatusFeature(services.store, owner.tariff_id);

/** A tracker whose status can be read or set: owned (201), not a clone (219), not blocked (208), statuses in its tariff (236). */
async function statusTracker(services: Services, owner: UserRow, trackerId: number): Promise<TrackerRow> {
  const t = await ownTracker(services, owner, trackerId, 201);
  if (t.clone) throw new DomainError(219, {}, `Not allowed for clones of the device: tracker ${trackerId}`);
  if (t.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${trackerId}`);
  await requireStatusFeature(services.store, t.tariff_id);
  return t;
}

async function trackerStatus(services: Services, t: TrackerRow, tz: string) {
  const data = services.store.data;
  const current = await data.statuses.current(t.id);
  return { current_status: current ? statusView(current) : null, last_change: changeView(await data.statuses.lastChange(t.id), tz) };
}

const deps = (services: Services) => ({ store: services.store, now: services.now });

// ---- listings (ours) ----

const listingCreate = defineCall({
  path: 'status/listing/create',
  summary: 'Create a status listing (no statuses yet: add them with status/create); answers its id. 268 past 50 listings.',
  right: 'tracker_update',
  params: z.object({ listing: z.object({ ...listingFields, entries: z.array(id).max(0, 'a new listing has no statuses; add them with status/create').optional() }) }),
  async handler({ services, owner, params: { listing: l } }) {
    await userFeature(services, owner);
    return { id: await createListing(deps(services), owner.id, { label: l.label, employeeControlled: l.employee_controlled, supervisorControlled: l.supervisor_controlled }) };
  },
});

const listingRead = defineCall({
  path: 'status/listing/read',
  summary: 'A status listing with its entries (status ids in order).',
  params: z.object({ listing_id: id }),
  async handler({ services, owner, params }) {
    await userFeature(services, owner);
    return { value: await listingView(services, await ownListing(services.store.data, owner.id, params.listing_id)) };
  },
});

const listingUpdate = defineCall({
  path: 'status/listing/update',
  summary: "Change a listing's label and flags and reorder its statuses: entries must be all its status ids.",
  right: 'tracker_update',
  params: z.object({ listing: z.object({ id, ...listingFields, entries: z.array(id).max(10_000) }) }),
  async handler({ services, owner, params: { listing: l } }) {
    await userFeature(services, owner);
    await updateListing(deps(services), owner.id, l.id, { label: l.label, employeeControlled: l.employee_controlled, supervisorControlled: l.supervisor_controlled }, l.entries);
  },
});

const listingDelete = defineCall({
  path: 'status/listing/delete',
  summary: 'Delete a listing and its statuses; its trackers are left without a listing and a status.',
  right: 'tracker_update',
  params: z.object({ listing_id: id }),
  async handler({ services, owner, params }) {
    await userFeature(services, owner);
    if (!(await services.store.data.statuses.deleteListing(owner.id, params.listing_id))) throw new DomainError(201, {}, `Not found in the database: status listing ${params.listing_id}`);
  },
});

const listingList = defineCall({
  path: 'status/listing/list',
  summary: "The user's status listings.",
  params: z.object({}),
  async handler({ services, owner }) {
    await userFeature(services, owner);
    const list = [];
    for (const l of await services.store.data.statuses.listings(owner.id)) list.push(await listingView(services, l));
    return { list };
  },
});

const listingAssign = defineCall({
  path: 'status/listing/tracker/assign',
  summary: "Give a tracker a status listing (null: none); a changed listing clears the tracker's current status.",
  right: 'tracker_update',
  params: z.object({ tracker_id: id, listing_id: id.nullable() }),
  async handler({ services, owner, params }) {
    await userFeature(services, owner);
    const t = await statusTracker(services, owner, params.tracker_id);
    await assignListing(deps(services), owner.id, t, params.listing_id);
  },
});

// ---- statuses (spec) ----

const create = defineCall({
  path: 'status/create',
  summary: "Append a status to the listing's entries; answers its id. 268 past the tariff's max_statuses per listing.",
  right: 'tracker_update',
  params: z.object({ listing_id: id, status: z.object(statusFields) }),
  async handler({ services, owner, params }) {
    await userFeature(services, owner);
    const max = (await services.store.data.tariffs.get(owner.tariff_id))?.max_statuses ?? 0;
    return { id: await createStatus(deps(services), owner.id, params.listing_id, params.status.label, params.status.color, max) };
  },
});

const update = defineCall({
  path: 'status/update',
  summary: 'Change the label and color of a status.',
  right: 'tracker_update',
  params: z.object({ status: z.object({ id, ...statusFields }) }),
  async handler({ services, owner, params: { status: s } }) {
    await userFeature(services, owner);
    await ownStatus(services.store.data, owner.id, s.id);
    await services.store.data.statuses.updateStatus(s.id, s.label, s.color);
  },
});

const remove = defineCall({
  path: 'status/delete',
  summary: 'Delete a status: it leaves its listing, and trackers whose current status it was have none.',
  right: 'tracker_update',
  params: z.object({ status_id: id }),
  async handler({ services, owner, params }) {
    await userFeature(services, owner);
    await ownStatus(services.store.data, owner.id, params.status_id);
    await services.store.data.statuses.deleteStatus(params.status_id);
  },
});

const list = defineCall({
  path: 'status/list',
  summary: "The listing's statuses in entries order.",
  params: z.object({ listing_id: id }),
  async handler({ services, owner, params }) {
    await userFeature(services, owner);
    await ownListing(services.store.data, owner.id, params.listing_id);
    return { list: (await services.store.data.statuses.statuses(params.listing_id)).map(statusView) };
  },
});

const trackerAssign = defineCall({
  path: 'status/tracker/assign',
  summary: "Set the tracker's current status (one of its listing's); answers the change record (origin supervisor).",
  params: z.object({ tracker_id: id, new_status_id: id }),
  async handler({ services, owner, user, params }) {
    const t = await statusTracker(services, owner, params.tracker_id);
    return { last_change: changeView(await changeStatus(deps(services), t, params.new_status_id, 'supervisor'), user.time_zone) };
  },
});

const trackerRead = defineCall({
  path: 'status/tracker/read',
  summary: "The tracker's current status and last change (each null when there is none).",
  params: z.object({ tracker_id: id }),
  async handler({ services, owner, user, params }) {
    return trackerStatus(services, await statusTracker(services, owner, params.tracker_id), user.time_zone);
  },
});

const trackerList = defineCall({
  path: 'status/tracker/list',
  summary: `Current status and last change of many trackers (at most ${MAX_LISTED_TRACKERS}, else 221), keyed by tracker id; 217 names trackers that are missing, clones, blocked or without the feature.`,
  params: z.object({ trackers: z.array(id) }),
  async handler({ services, owner, user, params }) {
    await userFeature(services, owner);
    const ids = [...new Set(params.trackers)];
    if (ids.length > MAX_LISTED_TRACKERS) throw new DomainError(221, { limit: MAX_LISTED_TRACKERS }, `Device limit exceeded: at most ${MAX_LISTED_TRACKERS} trackers per call, ${ids.length} given`);
    const found: TrackerRow[] = [];
    const bad: number[] = [];
    for (const tid of ids) {
      const t = await services.store.data.trackers.get(owner.id, tid);
      if (!t || t.clone || t.blocked || !(await services.store.data.tariffs.get(t.tariff_id))?.has_statuses) bad.push(tid);
      else found.push(t);
    }
    if (bad.length) throw new DomainError(217, { ids: bad }, `List contains non-existent entities: trackers ${bad.join(', ')}`);
    const value: Record<string, unknown> = {};
    for (const t of found) value[t.id] = await trackerStatus(services, t, user.time_zone);
    return { value };
  },
});

export const statusCalls = [listingCreate, listingRead, listingUpdate, listingDelete, listingList, listingAssign, create, update, remove, list, trackerAssign, trackerRead, trackerList];
