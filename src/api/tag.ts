/** Tags (referenced by the spec, not shown): tag/list, tag/create, tag/update, tag/delete. See docs/directories.md. */
import { z } from 'zod';
import { DomainError } from '../core/errors.ts';
import { defineCall } from './kernel.ts';
import { id } from './schemas.ts';

const name = z.string().trim().min(1).max(60);
const color = z.string().regex(/^[0-9A-Fa-f]{6}$/, '3-byte RGB hex, e.g. 27A9E3').transform((c) => c.toUpperCase());

const list = defineCall({
  path: 'tag/list',
  summary: "The user's tags, optionally those whose name contains filter (3 to 60 characters).",
  params: z.object({ filter: z.string().min(3).max(60).optional() }),
  handler({ services, owner, params }) {
    return { list: services.store.tags.list(owner.id, params.filter).map(({ id, name, color }) => ({ id, name, color })) };
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
  params: z.object({ tag_id: id }),
  handler({ services, owner, params }) {
    if (!services.store.tags.delete(owner.id, params.tag_id)) throw new DomainError(201, {}, `Not found in the database: tag ${params.tag_id}`);
  },
});

export const tagCalls = [list, create, update, remove];
