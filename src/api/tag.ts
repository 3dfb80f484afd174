/** Tags (referenced by the spec, not shown): tag/list, tag/create, tag/update, tag/delete. See docs/directories.md. */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import type { TaggedEntity } from '../store/tags.ts';
import { scheduleView } from '../tasks/schedules.ts';
import { taskViews } from '../tasks/view.ts';
import { employeeViews } from './employee.ts';
import { defineCall, type CallContext } from './kernel.ts';
import { placeViews } from './place.ts';
import { id } from './schemas.ts';
import { trackerView } from './tracker.ts';
import { zoneView } from './zone.ts';

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

/** The documented tagged entity types, in the documentation's order (we keep no vehicles: that group never appears). */
const SEARCHED = ['place', 'task', 'task_schedule', 'employee', 'vehicle', 'zone', 'tracker'] as const;
type Searched = (typeof SEARCHED)[number];
type Ctx = Pick<CallContext<unknown>, 'services' | 'owner' | 'user'>;

/** The owner's entities of one type carrying every tag, as their own read calls answer them. */
async function tagged(type: Searched, tagIds: number[], { services, owner, user }: Ctx): Promise<Array<Record<string, unknown>>> {
  const { store } = services;
  const ids = (t: TaggedEntity) => store.tags.withAllTags(owner.id, t, tagIds);
  const rows = <R>(t: TaggedEntity, get: (userId: number, id: number) => R | undefined): R[] => ids(t).flatMap((i) => get(owner.id, i) ?? []);
  switch (type) {
    case 'place': {
      const placeIds = ids('place');
      if (!placeIds.length) return [];
      const page = store.places.list(owner.id, { ids: placeIds, timeZone: user.time_zone, orderBy: 'id', ascending: true, limit: placeIds.length, offset: 0 });
      return placeViews(services, page.rows);
    }
    case 'task':
      return taskViews(store, rows('task', (u, i) => store.tasks.get(u, i)), user.time_zone);
    case 'employee':
      return await employeeViews(services, rows('employee', (u, i) => store.employees.get(u, i)));
    case 'zone': {
      const zones = rows('zone', (u, i) => store.zones.get(u, i));
      const tags = store.tags.entityTags('zone', zones.map((z) => z.id));
      return zones.map((z) => zoneView(z, tags.get(z.id)!));
    }
    case 'task_schedule':
      // A schedule keeps its tags with it (a JSON list), as task/schedule/list filters them.
      return store.taskSchedules
        .list(owner.id)
        .filter((s) => {
          const has = new Set<number>(s.tags ? JSON.parse(s.tags) : []);
          return tagIds.every((t) => has.has(t));
        })
        .map((s) => scheduleView(s, user.time_zone));
    case 'tracker': {
      const listing = store.trackers.listing(owner.id);
      return listing.trackers
        .filter((t) => {
          const has = new Set((listing.bindings.get(t.id) ?? []).map((b) => b.tag_id));
          return tagIds.every((x) => has.has(x));
        })
        .map((t) => ({ ...trackerView(t, user.time_zone), tag_bindings: listing.bindings.get(t.id) ?? [] }));
    }
    case 'vehicle':
      return [];
  }
}

const search = defineCall({
  path: 'tag/search',
  summary: "The user's entities carrying every one of tag_ids, grouped by type (place, task, task_schedule, employee, zone, tracker); entity_types: only those groups. Groups with nothing are left out.",
  params: z.object({ tag_ids: z.array(id).min(1).max(100), entity_types: z.array(z.enum(SEARCHED)).max(SEARCHED.length).optional() }),
  async handler(ctx) {
    const wanted = new Set<Searched>(ctx.params.entity_types ?? SEARCHED);
    const result: Record<string, unknown> = {};
    for (const type of SEARCHED) {
      if (!wanted.has(type)) continue;
      const found = await tagged(type, [...new Set(ctx.params.tag_ids)], ctx);
      if (found.length) result[type] = found;
    }
    return { result };
  },
});

export const tagCalls = [list, create, update, remove, search];
