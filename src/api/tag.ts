/** Tags (referenced by the spec, not shown): tag/list, tag/create, tag/update, tag/delete. See docs/directories.md. */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { defineCall } from './kernel.ts';
import { id } from './schemas.ts';

const name = z.string().trim().min(1).max(60);
// 3-byte RGB hex; the documentation's guide sends it with a leading '#' ("#00BFFF"), stored without.
const color = z
  .string()
  .regex(/^#?[0-9A-Fa-f]{6}$/, '3-byte RGB hex, e.g. 27A9E3 or #27A9E3')
  .transform((c) => c.replace('#', '').toUpperCase());

const list = defineCall({
  path: 'tag/list',
  summary: "The user's tags, optionally those whose name contains filter (3 to 60 characters).",
  params: z.object({ filter: z.string().min(3).max(60).nullish() }),
  handler({ services, owner, params }) {
    // avatar_file_name: documented (optional); tags have no avatars here, so always null.
    return { list: services.store.tags.list(owner.id, params.filter ?? undefined).map(({ id, name, color }) => ({ id, avatar_file_name: null, name, color })) };
  },
});

const create = defineCall({
  path: 'tag/create',
  summary: 'Create a tag; answers its id. 247 when the user has a tag of that name.',
  right: 'tag_update',
  params: z.object({ tag: z.object({ name, color: color.default('27A9E3') }) }),
  handler({ services, owner, params }) {
    if (services.store.tags.byName(owner.id, params.tag.name)) throw new DomainError(247, {}, `Entity already exists: a tag named ${params.tag.name}`);
    return { id: services.store.tags.create(owner.id, params.tag.name, params.tag.color) };
  },
});

const update = defineCall({
  path: 'tag/update',
  summary: 'Rename or recolour a tag.',
  right: 'tag_update',
  params: z.object({ tag: z.object({ id, name, color: color.default('27A9E3') }) }),
  handler({ services, owner, params }) {
    const { tags } = services.store;
    if (!tags.get(owner.id, params.tag.id)) throw new DomainError(201, {}, `Not found in the database: tag ${params.tag.id}`);
    const same = tags.byName(owner.id, params.tag.name);
    if (same && same.id !== params.tag.id) throw new DomainError(247, {}, `Entity already exists: a tag named ${params.tag.name}`);
    tags.update(owner.id, params.tag.id, params.tag.name, params.tag.color);
  },
});

const remove = defineCall({
  path: 'tag/delete',
  summary: 'Delete a tag and all its bindings.',
  right: 'tag_update',
  // Documented: tag_id (201 when unknown) or tag_ids (unknown ids are skipped silently), one of them.
  params: z.object({ tag_id: id.optional(), tag_ids: z.array(id).max(1000).optional() }),
  handler({ services, owner, params }) {
    if ((params.tag_id === undefined) === (params.tag_ids === undefined)) throw invalidParams([{ parameter: 'tag_id', error: 'give either tag_id or tag_ids' }]);
    if (params.tag_ids) {
      const ids = params.tag_ids;
      services.store.transaction(() => ids.forEach((t) => services.store.tags.delete(owner.id, t)));
      return;
    }
    if (!services.store.tags.delete(owner.id, params.tag_id!)) throw new DomainError(201, {}, `Not found in the database: tag ${params.tag_id}`);
  },
});

export const tagCalls = [list, create, update, remove];
