/**
 * Check-ins (spec: Check-in; docs/checkins.md): created by the field app through `createCheckin`
 * (the files it carries must be the owner's, uploaded and not bound to anything else; the address
 * comes from the geocoder as for tasks), read, listed and deleted through /checkin. Deleting a
 * check-in deletes its form and its files (rows by cascade, blobs at once).
 */
import { DomainError, invalidParams } from '../core/errors.ts';
import type { Geocoder } from '../geocoder/types.ts';
import { addressFor } from '../imports/geocode.ts';
import type { Store } from '../store/index.ts';
import type { BlobStore } from '../files/blobs.ts';
import { dropUnusedBlobs } from '../files/files.ts';

export interface CheckinDeps {
  store: Store;
  geocoder: Geocoder;
  now: () => number;
}

export interface CheckinInput {
  trackerId: number;
  /** marker_time, ms UTC (the app's clock); the server's now when absent. */
  time?: number;
  location: { lat: number; lng: number; precision?: number | null };
  comment?: string | null;
  fileIds: number[];
  /** A check-in form of the owner (created from a template by the app, not attached to a task). */
  formId?: number | null;
}

export const MAX_COMMENT = 1024;
export const MAX_CHECKIN_FILES = 20;

/**
 * Stores a check-in of the tracker's owner and binds its files, in one transaction: 201 for an
 * unknown or deleted tracker, 208 for a blocked one, 201 for a form that is not one of the owner's
 * check-in forms, 7 naming file_ids for files that are not the owner's uploaded, unbound files
 * announced for this tracker or for none.
 * Answers the new id.
 */
export async function createCheckin(deps: CheckinDeps, c: CheckinInput): Promise<number> {
  const data = deps.store.data;
  const tracker = await data.trackers.getAny(c.trackerId);
  if (!tracker || tracker.deleted) throw new DomainError(201, {}, `Not found in the database: tracker ${c.trackerId}`);
  if (tracker.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${c.trackerId}`);
  const { lat, lng } = c.location;
  if (!(lat >= -90 && lat <= 90) || !(lng >= -180 && lng <= 180)) throw invalidParams([{ parameter: 'location', error: 'lat -90..90 and lng -180..180 are expected' }]);
  if (c.comment && c.comment.length > MAX_COMMENT) throw invalidParams([{ parameter: 'comment', error: `at most ${MAX_COMMENT} characters` }]);
  if (c.fileIds.length > MAX_CHECKIN_FILES) throw invalidParams([{ parameter: 'file_ids', error: `at most ${MAX_CHECKIN_FILES} files` }]);
  const owner = tracker.user_id;
  if (c.formId != null) {
    const form = await data.files.formFields(owner, c.formId);
    if (!form || form.task_id !== null) throw new DomainError(201, {}, `Not found in the database: check-in form ${c.formId}`);
  }
  const address = await addressFor(deps.geocoder, lat, lng, '');
  const employee = await data.employees.byTracker(tracker.id);
  const fileIds = [...new Set(c.fileIds)];
  return data.transaction(async (tx) => {
    const id = await tx.checkins.create({
      user_id: owner,
      tracker_id: tracker.id,
      employee_id: employee?.user_id === owner ? employee.id : null,
      marker_time: c.time ?? deps.now(),
      lat,
      lng,
      address,
      precision: c.location.precision ?? null,
      comment: c.comment ?? null,
      form_id: c.formId ?? null,
    });
    const bad: number[] = [];
    for (const f of fileIds) if (!(await tx.files.bindToCheckin(owner, f, id, tracker.id))) bad.push(f);
    if (bad.length) throw notFreeToBind(bad);
    // The event log (docs/events.md), in the transaction of the check-in.
    await tx.events.record({ trackerId: tracker.id, type: 'checkin_created', time: c.time ?? deps.now(), lat, lng, extra: { checkin_id: id, comment: c.comment ?? null } });
    return id;
  });
}

/** 7 naming file_ids: files a check-in of this tracker may not carry (freeToBind). */
export function notFreeToBind(ids: number[]): DomainError {
  return invalidParams([{ parameter: 'file_ids', error: `not uploaded files of the user free to bind: ${ids.join(', ')} (a file announced for another tracker stays that tracker's until bound)` }]);
}

/** checkin/delete: all of the ids must be the owner's (201 naming the others; nothing deleted). */
export async function deleteCheckins(deps: { store: Store; blobs: BlobStore }, ownerId: number, ids: number[]): Promise<void> {
  const data = deps.store.data;
  const missing = await data.checkins.missing(ownerId, ids);
  if (missing.length) throw new DomainError(201, { ids: missing }, `Not found in the database: check-ins ${missing.join(', ')}`);
  const files = await data.files.ofCheckins(ids);
  const forms: number[] = [];
  for (const i of ids) {
    const f = (await data.checkins.get(ownerId, i))?.form_id;
    if (f != null) forms.push(f);
  }
  const formFiles = [];
  for (const f of forms) formFiles.push(...(await data.files.ofForm(f)));
  await data.checkins.delete(ownerId, ids);
  await dropUnusedBlobs(deps, [...files, ...formFiles].map((f) => f.storage_key));
}
