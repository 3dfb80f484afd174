/**
 * Custom field definitions (referenced by the spec, not shown; designed here, docs/directories.md):
 * entity/fields/list, entity/fields/create, entity/fields/delete. Changing definitions is for
 * master users; values travel in each entity's `fields` map.
 */
import { z } from 'zod';
import { FIELD_ENTITY_TYPES, FIELD_TYPES } from '../store/fields.ts';
import { DomainError } from '../core/errors.ts';
import { defineCall } from './kernel.ts';
import { id } from './schemas.ts';

const view = (f: { id: number; entity_type: string; label: string; type: string; required: number; ordinal: number }) => ({ id: f.id, entity_type: f.entity_type, label: f.label, type: f.type, required: !!f.required, ordinal: f.ordinal });

const list = defineCall({
  path: 'entity/fields/list',
  summary: 'Custom field definitions of an entity type (place, task, employee).',
  params: z.object({ entity_type: z.enum(FIELD_ENTITY_TYPES) }),
  async handler({ services, owner, params }) {
    return { list: (await services.store.data.fields.list(owner.id, params.entity_type)).map(view) };
  },
});

const create = defineCall({
  path: 'entity/fields/create',
  summary: 'Define a custom field; answers its id (the key of its value in `fields` maps).',
  right: 'admin',
  params: z.object({
    field: z.object({
      entity_type: z.enum(FIELD_ENTITY_TYPES),
      label: z.string().trim().min(1).max(100),
      type: z.enum(FIELD_TYPES),
      required: z.boolean().default(false),
      ordinal: z.number().int().min(0).max(1000).default(0),
    }),
  }),
  async handler({ services, owner, params }) {
    return { id: await services.store.data.fields.create(owner.id, params.field) };
  },
});

const remove = defineCall({
  path: 'entity/fields/delete',
  summary: 'Delete a custom field definition and all its values.',
  right: 'admin',
  params: z.object({ field_id: id }),
  async handler({ services, owner, params }) {
    if (!(await services.store.data.fields.delete(owner.id, params.field_id))) throw new DomainError(201, {}, `Not found in the database: field ${params.field_id}`);
  },
});

export const fieldCalls = [list, create, remove];
