/**
 * All or nothing for uploads that store many rows (docs/places-zones.md#uploads-all-or-nothing):
 * the rows are written in short transactions, yielding to other calls between them, without an
 * owner (src/store/uploads.ts), and shown in one final transaction. Should anything fail before,
 * the rows are deleted in steps; should the server die, `discardUnfinishedUploads` at the next
 * start deletes them. Either way nobody saw them.
 */
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { UploadKind } from '../store/uploads.ts';
import { yieldToOthers } from './pacing.ts';

/** Places (or zones: their points go with them) deleted per transaction when an upload is discarded. */
export const DISCARD_PLACES = 500;
export const DISCARD_ZONES = 20;

export interface StagedUpload<T> {
  /** Write the rows (`store.data.places.stage`, `store.data.zones.stage`), a batch a transaction, yielding between. */
  write(uploadId: number): Promise<void>;
  /**
   * In the final transaction, before the rows get their owner: checks (quota) and the upload's other
   * changes, every store call through `tx` (the transaction's store).
   */
  commit(uploadId: number, tx: DataStore): Promise<T>;
}

export async function stagedUpload<T>(store: Store, ownerId: number, kind: UploadKind, now: number, upload: StagedUpload<T>): Promise<T> {
  const uploadId = await store.data.uploads.begin(ownerId, kind, now);
  try {
    await upload.write(uploadId);
    return await store.data.transaction(async (tx) => {
      const answer = await upload.commit(uploadId, tx);
      await tx.uploads.commit(uploadId, ownerId);
      return answer;
    });
  } catch (e) {
    await discard(store, uploadId);
    throw e;
  }
}

/** At start: delete what uploads that never committed left (a server killed mid-way). */
export function discardUnfinishedUploads(store: Store): Promise<void> {
  return discard(store, null);
}

async function discard(store: Store, uploadId: number | null): Promise<void> {
  while (await store.data.uploads.discard(uploadId, DISCARD_PLACES, DISCARD_ZONES)) await yieldToOthers();
}
