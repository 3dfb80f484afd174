/**
 * Avatars and session renewal: calls the spec references without showing them (ours, documented
 * in docs/files.md). avatar/upload stores an image as the avatar of a place, employee or tracker;
 * avatar/assign sets an icon_id or a stored avatar; user/session/renew extends the session.
 * A sub-user changes an avatar only with the right that guards the entity's own changes
 * (place_update, employee_update, tracker_update): 13 otherwise.
 */
import { z } from 'zod';
import { DomainError } from '../core/errors.ts';
import { AVATAR_ENTITIES, assignAvatar, uploadAvatar } from '../files/avatars.ts';
import type { AvatarEntity } from '../store/files.ts';
import type { UserRow } from '../store/users.ts';
import { fileDeps } from './file.ts';
import { defineCall } from './kernel.ts';
import { requireRight } from './rights.ts';
import { filePart, uploadedFile } from './place.ts';
import { id } from './schemas.ts';

const RIGHT_OF: Record<AvatarEntity, string> = { place: 'place_update', employee: 'employee_update', tracker: 'tracker_update' };

function checkRight(user: UserRow, kind: AvatarEntity): void {
  requireRight(user, RIGHT_OF[kind], `to change a ${kind}'s avatar`);
}

const entity = { entity_type: z.enum(AVATAR_ENTITIES), entity_id: id };

const upload = defineCall({
  path: 'avatar/upload',
  summary: "Store an image (multipart part \"file\") as the avatar of a place, employee or tracker; answers its avatar_file_name. 201 unknown entity, 233 no file, 234 not an image, 268 storage quota.",
  upload: true,
  params: z.object({ ...entity, file: filePart }),
  async handler({ services, owner, user, params }) {
    checkRight(user, params.entity_type);
    const file = uploadedFile(params.file);
    const name = await uploadAvatar(fileDeps(services), owner, { kind: params.entity_type, id: params.entity_id, data: file.data, filename: file.filename });
    return { value: name };
  },
});

const assign = defineCall({
  path: 'avatar/assign',
  summary: 'Set the icon_id (1..255; places and employees) or an avatar_file_name the user uploaded before, or clear either with null; exactly one of them.',
  params: z.object({ ...entity, icon_id: z.number().int().min(1).max(255).nullable().optional(), avatar_file_name: z.string().min(1).max(64).nullable().optional() }),
  async handler({ services, owner, user, params }) {
    checkRight(user, params.entity_type);
    await assignAvatar(fileDeps(services), owner, { kind: params.entity_type, id: params.entity_id, iconId: params.icon_id, avatarFileName: params.avatar_file_name });
  },
});

const renew = defineCall({
  path: 'user/session/renew',
  summary: 'Extend the session: its lifetime (FSM_SESSION_TTL_DAYS of no use) starts again now. Answers the same hash.',
  params: z.object({}),
  async handler({ services, session }) {
    await services.store.data.sessions.renew(session.hash, services.now());
    return { hash: session.hash };
  },
});

export const avatarCalls = [upload, assign, renew];
