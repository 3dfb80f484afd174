/**
 * Working statuses (issue 11, docs/statuses.md): the rules of listings, statuses and status
 * changes, shared by the API (origin supervisor) and, later, the field app (origin employee).
 * Domain code over the store's asynchronous contract (`store.data`): the caller passes
 * { store, now } and has checked ownership of the tracker; errors are the spec's codes.
 */
import { DomainError, invalidParams } from '../core/errors.ts';
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { ListingFields, StatusChangeRow, StatusOrigin, StatusRow } from '../store/statuses.ts';
import type { TrackerRow } from '../store/trackers.ts';

export interface StatusDeps {
  store: Store;
  now: () => number;
}

/** Listings a user may keep (the tariff's max_statuses bounds the statuses of each listing). */
export const MAX_LISTINGS_PER_USER = 50;

/** 236 unless the tariff (the user's for listings and statuses, the tracker's for its status) has the statuses feature. */
export async function requireStatusFeature(store: Store, tariffId: number): Promise<void> {
  if (!(await store.data.tariffs.get(tariffId))?.has_statuses) throw new DomainError(236, {}, 'Feature unavailable due to tariff restrictions: statuses');
}

/** The owner's listing or `code` (`data`: the store's contract, or a transaction's). */
export async function ownListing(data: DataStore, userId: number, listingId: number, code: 201 | 204 = 201) {
  const l = await data.statuses.listing(userId, listingId);
  if (!l) throw new DomainError(code, {}, `${code === 201 ? 'Not found in the database' : 'Entity not found'}: status listing ${listingId}`);
  return l;
}

export async function ownStatus(data: DataStore, userId: number, statusId: number): Promise<StatusRow> {
  const s = await data.statuses.status(userId, statusId);
  if (!s) throw new DomainError(201, {}, `Not found in the database: status ${statusId}`);
  return s;
}

export async function createListing({ store }: StatusDeps, userId: number, f: ListingFields): Promise<number> {
  return store.data.transaction(async (tx) => {
    const n = await tx.statuses.listingCount(userId);
    if (n >= MAX_LISTINGS_PER_USER) throw new DomainError(268, { limit: MAX_LISTINGS_PER_USER }, `Over quota: at most ${MAX_LISTINGS_PER_USER} status listings, ${n} exist`);
    return tx.statuses.createListing(userId, f);
  });
}

/** `entries` must name every status of the listing exactly once: it only reorders them. */
export async function updateListing({ store }: StatusDeps, userId: number, listingId: number, f: ListingFields, entries: number[]): Promise<void> {
  await store.data.transaction(async (tx) => {
    await ownListing(tx, userId, listingId);
    const have = (await tx.statuses.statuses(listingId)).map((s) => s.id);
    const given = new Set(entries);
    if (given.size !== entries.length || given.size !== have.length || have.some((id) => !given.has(id))) {
      throw invalidParams([{ parameter: 'listing.entries', error: `must list each of the listing's statuses once: ${JSON.stringify(have)} in any order` }]);
    }
    await tx.statuses.updateListing(userId, listingId, f, entries);
  });
}

/** Appends a status to the listing; 268 past the tariff's max_statuses per listing. */
export async function createStatus({ store }: StatusDeps, userId: number, listingId: number, label: string, color: string, maxPerListing: number): Promise<number> {
  return store.data.transaction(async (tx) => {
    await ownListing(tx, userId, listingId);
    const n = await tx.statuses.statusCount(listingId);
    if (n >= maxPerListing) throw new DomainError(268, { limit: maxPerListing }, `Over quota: at most ${maxPerListing} statuses per listing, ${n} exist`);
    return tx.statuses.createStatus(listingId, label, color);
  });
}

/** Assigns a listing (or none) to a tracker: its current status is cleared when the listing changes. */
export async function assignListing({ store }: StatusDeps, userId: number, tracker: TrackerRow, listingId: number | null): Promise<void> {
  await store.data.transaction(async (tx) => {
    if (listingId !== null) await ownListing(tx, userId, listingId, 204);
    if (tracker.status_listing_id === listingId) return;
    await tx.statuses.setTrackerListing(tracker.id, listingId);
  });
}

/**
 * Changes the tracker's status to `newStatusId` and records the change with the tracker's last
 * known fix. 204 when the tracker has no listing or the status is not in it, 13 when the listing
 * forbids changes of that origin, 263 when it already is the current status.
 */
export async function changeStatus({ store, now }: StatusDeps, tracker: TrackerRow, newStatusId: number, origin: StatusOrigin): Promise<StatusChangeRow> {
  return store.data.transaction(async (tx) => {
    const listingId = tracker.status_listing_id;
    const listing = listingId === null ? undefined : await tx.statuses.listing(tracker.user_id, listingId);
    if (!listing) throw new DomainError(204, {}, `Entity not found: tracker ${tracker.id} has no status listing`);
    const allowed = origin === 'supervisor' ? listing.supervisor_controlled : listing.employee_controlled;
    if (!allowed) throw new DomainError(13, {}, `Operation not permitted: status listing ${listing.id} forbids ${origin} changes`);
    const status = await tx.statuses.status(tracker.user_id, newStatusId);
    if (!status || status.listing_id !== listing.id) throw new DomainError(204, {}, `Entity not found: status ${newStatusId} in listing ${listing.id}`);
    const old = await tx.statuses.current(tracker.id);
    if (old?.id === newStatusId) throw new DomainError(263, {}, `No change needed: status ${newStatusId} is already current`);
    const fix = await tx.deviceState.get(tracker.source_id);
    const located = fix && fix.fixTime !== null && fix.lat !== null && fix.lng !== null;
    const row: Omit<StatusChangeRow, 'id'> = {
      tracker_id: tracker.id,
      old_status_id: old?.id ?? null,
      new_status_id: newStatusId,
      lat: located ? fix.lat : null,
      lng: located ? fix.lng : null,
      address: '',
      changed: now(),
      origin,
    };
    const changeId = await tx.statuses.change(row);
    // The event log (docs/events.md), in the transaction of the change.
    await tx.events.record({ trackerId: tracker.id, type: 'work_status_changed', time: row.changed, lat: row.lat, lng: row.lng, extra: { old_status_id: row.old_status_id, old_status_label: old?.label ?? null, new_status_id: newStatusId, new_status_label: status.label, origin } });
    return { id: changeId, ...row };
  });
}
