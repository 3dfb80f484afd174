/** The tags area of the contract (docs/store.md): the same answers on every engine. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataStore } from '../../../src/store/contract.ts';
import { engines } from './engines.ts';

describe.each(engines('users', 'tags'))('$name engine: tags', (engine) => {
  let data: DataStore;
  let dispose: () => Promise<void>;
  let ann: number;
  let bob: number;
  beforeEach(async () => {
    ({ data, dispose } = await engine.open());
    ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'x', now: 0 });
    bob = await data.users.create({ login: 'bob@example.com', passwordHash: 'x', now: 0 });
  });
  afterEach(async () => dispose?.());

  it('lists a user\'s tags by name without regard to ASCII case, then id; filters by a literal part of the name', async () => {
    const b = await data.tags.create(ann, 'beta', '00BFFF');
    const a = await data.tags.create(ann, 'Alpha', 'FF0000');
    const pct = await data.tags.create(ann, '100% sure_x', '27A9E3');
    await data.tags.create(bob, 'alpha', '000000');
    expect(await data.tags.list(ann)).toEqual([
      { id: pct, user_id: ann, name: '100% sure_x', color: '27A9E3' },
      { id: a, user_id: ann, name: 'Alpha', color: 'FF0000' },
      { id: b, user_id: ann, name: 'beta', color: '00BFFF' },
    ]);
    expect((await data.tags.list(ann, 'ALP')).map((t) => t.id)).toEqual([a]);
    // % and _ are literal in the filter.
    expect((await data.tags.list(ann, '0% s')).map((t) => t.id)).toEqual([pct]);
    expect((await data.tags.list(ann, 'e_x')).map((t) => t.id)).toEqual([pct]);
    expect(await data.tags.list(ann, 'b_t')).toEqual([]);
  });

  it('reads, finds by name in any ASCII case, updates and deletes only the owner\'s tag', async () => {
    const id = await data.tags.create(ann, 'Vans', '00BFFF');
    expect(await data.tags.get(ann, id)).toEqual({ id, user_id: ann, name: 'Vans', color: '00BFFF' });
    expect(await data.tags.get(bob, id)).toBeUndefined();
    expect((await data.tags.byName(ann, 'VANS'))?.id).toBe(id);
    expect(await data.tags.byName(bob, 'Vans')).toBeUndefined();
    expect(await data.tags.update(bob, id, 'x', '000000')).toBe(false);
    expect(await data.tags.update(ann, id, 'Trucks', 'FF0000')).toBe(true);
    expect(await data.tags.get(ann, id)).toEqual({ id, user_id: ann, name: 'Trucks', color: 'FF0000' });
    expect(await data.tags.delete(bob, id)).toBe(false);
    expect(await data.tags.delete(ann, id)).toBe(true);
    expect(await data.tags.get(ann, id)).toBeUndefined();
  });

  it('answers the ids that are not the user\'s tags, once each', async () => {
    const a = await data.tags.create(ann, 'a', '00BFFF');
    const other = await data.tags.create(bob, 'b', '00BFFF');
    expect(await data.tags.missing(ann, [])).toEqual([]);
    expect(await data.tags.missing(ann, [a, a])).toEqual([]);
    expect(await data.tags.missing(ann, [other, a, 999999, other])).toEqual([other, 999999]);
  });

  it('binds tags to entities, replaces and clears them, and reads many entities at once in tag id order', async () => {
    const [t1, t2, t3] = [await data.tags.create(ann, 'a', '1'), await data.tags.create(ann, 'b', '2'), await data.tags.create(ann, 'c', '3')];
    await data.tags.setEntityTags('place', 10, [t3, t1, t3]);
    await data.tags.setEntityTags('place', 11, [t2]);
    await data.tags.setEntityTags('zone', 10, [t2]);
    expect(await data.tags.entityTags('place', [10, 11, 12])).toEqual(new Map([[10, [t1, t3]], [11, [t2]], [12, []]]));
    await data.tags.setEntityTags('place', 10, [t2]);
    await data.tags.clearEntityTags('place', 11);
    expect(await data.tags.entityTags('place', [10, 11])).toEqual(new Map([[10, [t2]], [11, []]]));
    expect(await data.tags.entityTags('zone', [10])).toEqual(new Map([[10, [t2]]]));
    expect(await data.tags.entityTags('place', [])).toEqual(new Map());
    expect(await data.tags.withAllTags(ann, 'place', [t2])).toEqual([10]);
    await data.tags.setEntityTags('place', 11, [t2, t3]);
    expect(await data.tags.withAllTags(ann, 'place', [t3, t2, t3])).toEqual([11]);
    expect(await data.tags.withAllTags(ann, 'place', [t2])).toEqual([10, 11]);
    expect(await data.tags.withAllTags(bob, 'place', [t2])).toEqual([]);
    expect(await data.tags.withAllTags(ann, 'place', [])).toEqual([]);
    // Deleting a tag unbinds it everywhere.
    await data.tags.delete(ann, t2);
    expect(await data.tags.entityTags('zone', [10])).toEqual(new Map([[10, []]]));
    expect(await data.tags.withAllTags(ann, 'place', [t2])).toEqual([]);
  });
});
