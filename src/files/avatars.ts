/**
 * Avatars of places, employees and trackers (ours; the spec references avatar/upload and
 * avatar/assign without showing them; docs/files.md). An uploaded image is turned upright, cropped
 * to a square JPEG and stored as a file row (avatar_of) whose blob key is the entity's
 * `avatar_file_name`. avatar/assign sets an icon_id (places and employees) or an avatar the owner
 * uploaded before, or clears them. An avatar no entity shows any more is deleted.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { DomainError, invalidParams } from '../core/errors.ts';
import type { AvatarEntity } from '../store/files.ts';
import type { UserRow } from '../store/users.ts';
import { BlobStore } from './blobs.ts';
import { dropUnusedBlobs, type FileDeps } from './files.ts';
import { avatarJpeg, inspectImage } from './images.ts';

export const AVATAR_ENTITIES = ['place', 'employee', 'tracker'] as const;
/** Largest image avatar/upload takes, bytes. */
export const MAX_AVATAR_INPUT = 10 * 1024 * 1024;

async function current(deps: FileDeps, owner: UserRow, kind: AvatarEntity, id: number): Promise<string | null> {
  const s = deps.store.data;
  const row = kind === 'place' ? await s.places.get(owner.id, id) : kind === 'employee' ? await s.employees.get(owner.id, id) : await s.trackers.get(owner.id, id);
  if (!row) throw new DomainError(201, {}, `Not found in the database: ${kind} ${id}`);
  return row.avatar_file_name;
}

async function forget(deps: FileDeps, name: string | null): Promise<void> {
  const { files } = deps.store.data;
  if (!name || (await files.avatarUsed(name))) return;
  const row = await files.avatarByName(name);
  if (row) await files.delete(row.id);
  await dropUnusedBlobs(deps, [name]);
}

/** avatar/upload: answers the new avatar_file_name (201 unknown entity, 234 not an image, 268 quota). */
export async function uploadAvatar(deps: FileDeps, owner: UserRow, p: { kind: AvatarEntity; id: number; data: Buffer; filename: string }): Promise<string> {
  const before = await current(deps, owner, p.kind, p.id);
  if (p.data.length > MAX_AVATAR_INPUT) throw new DomainError(271, { max_size: MAX_AVATAR_INPUT }, `File too large: an avatar image takes at most ${MAX_AVATAR_INPUT} bytes`);
  if (!(await inspectImage(p.data))) throw new DomainError(234, {}, 'Invalid data format: the avatar is not an image (jpeg, png, webp, gif, heif, avif, tiff)');
  const jpeg = await avatarJpeg(p.data);
  const used = await deps.store.data.files.usedBytes(owner.id);
  if (used + jpeg.length > deps.limits.quotaBytes) throw new DomainError(268, { quota: deps.limits.quotaBytes, used }, 'Over quota: the user\'s file storage is full');
  const key = BlobStore.newKey('.jpg');
  const tmp = `${deps.blobs.tmp}/${key}.part`;
  await mkdir(deps.blobs.tmp, { recursive: true });
  await writeFile(tmp, jpeg, { flag: 'wx' });
  await deps.blobs.commit(tmp, key);
  const now = deps.now();
  const set = await deps.store.data.transaction(async (tx) => {
    await tx.files.insertUploaded({ userId: owner.id, type: 'image', name: p.filename.slice(0, 255), maxSize: jpeg.length, mimeType: 'image/jpeg', created: now, expires: null, token: null, avatarOf: p.kind, size: jpeg.length, storageKey: key, metadata: null, preview: false, uploaded: now });
    return tx.files.setAvatar(p.kind, owner.id, p.id, key);
  });
  if (!set) {
    await forget(deps, key);
    throw new DomainError(201, {}, `Not found in the database: ${p.kind} ${p.id}`);
  }
  await forget(deps, before);
  return key;
}

/**
 * avatar/assign: exactly one of icon_id (1..255, or null to clear; places and employees only: 230
 * for trackers) and avatar_file_name (an avatar of the owner, or null to clear).
 */
export async function assignAvatar(deps: FileDeps, owner: UserRow, p: { kind: AvatarEntity; id: number; iconId?: number | null; avatarFileName?: string | null }): Promise<void> {
  const hasIcon = p.iconId !== undefined;
  const hasAvatar = p.avatarFileName !== undefined;
  if (hasIcon === hasAvatar) throw invalidParams([{ parameter: 'icon_id', error: 'give exactly one of icon_id and avatar_file_name' }]);
  const { files } = deps.store.data;
  const before = await current(deps, owner, p.kind, p.id);
  if (hasIcon) {
    if (p.kind === 'tracker') throw new DomainError(230, {}, 'Not supported for this entity type: trackers have no icon_id, only an avatar');
    await files.setIcon(p.kind, owner.id, p.id, p.iconId!);
    return;
  }
  const name = p.avatarFileName!;
  if (name !== null) {
    const row = await files.avatarByName(name);
    if (!row || row.user_id !== owner.id) throw new DomainError(201, {}, `Not found in the database: avatar ${name}`);
  }
  await files.setAvatar(p.kind, owner.id, p.id, name);
  if (before !== name) await forget(deps, before);
}
