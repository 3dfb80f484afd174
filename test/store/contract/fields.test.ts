/**
 * The fields and geocache areas of the contract (docs/store.md): custom field definitions and the
 * values entities carry; the geocoder's cache. The same answers on every engine.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DataStore } from '../../../src/store/contract.ts';
import type { FieldDef } from '../../../src/store/fields.ts';
import { engines, type FixtureSql } from './engines.ts';

describe.each(engines('users', 'fields'))('$name engine: custom fields', (engine) => {
  let data: DataStore;
  let sql: FixtureSql;
  let dispose: () => Promise<void>;
  let ann: number;
  let bob: number;
  beforeEach(async () => {
    ({ data, sql, dispose } = await engine.open());
    ann = await data.users.create({ login: 'ann@example.com', passwordHash: 'x', now: 0 });
    bob = await data.users.create({ login: 'bob@example.com', passwordHash: 'x', now: 0 });
  });
  afterEach(async () => dispose?.());

  /** Employees belong to a later area: fixture rows. */
  const employee = async (userId: number) => (await sql('INSERT INTO employees (user_id, first_name) VALUES (?, ?) RETURNING id', userId, 'Eve'))[0].id as number;

  it('defines fields per user and entity type, listed by ordinal then id; reads and deletes only the owner\'s', async () => {
    const late = await data.fields.create(ann, { entity_type: 'place', label: 'Late', type: 'text', required: false, ordinal: 2 });
    const first = await data.fields.create(ann, { entity_type: 'place', label: 'First', type: 'number', required: true, ordinal: 1 });
    const tie = await data.fields.create(ann, { entity_type: 'place', label: 'Tie', type: 'boolean', required: false, ordinal: 1 });
    const task = await data.fields.create(ann, { entity_type: 'task', label: 'Due', type: 'date', required: false, ordinal: 0 });
    await data.fields.create(bob, { entity_type: 'place', label: 'Bob\'s', type: 'text', required: false, ordinal: 0 });
    expect(await data.fields.list(ann, 'place')).toEqual([
      { id: first, user_id: ann, entity_type: 'place', label: 'First', type: 'number', required: 1, ordinal: 1 },
      { id: tie, user_id: ann, entity_type: 'place', label: 'Tie', type: 'boolean', required: 0, ordinal: 1 },
      { id: late, user_id: ann, entity_type: 'place', label: 'Late', type: 'text', required: 0, ordinal: 2 },
    ] satisfies FieldDef[]);
    expect((await data.fields.list(ann, 'task')).map((f) => f.id)).toEqual([task]);
    expect(await data.fields.list(ann, 'employee')).toEqual([]);
    expect(await data.fields.get(ann, task)).toEqual({ id: task, user_id: ann, entity_type: 'task', label: 'Due', type: 'date', required: 0, ordinal: 0 });
    expect(await data.fields.get(bob, task)).toBeUndefined();
    expect(await data.fields.delete(bob, task)).toBe(false);
    expect(await data.fields.delete(ann, task)).toBe(true);
    expect(await data.fields.delete(ann, task)).toBe(false);
    expect(await data.fields.get(ann, task)).toBeUndefined();
  });

  it('validates values against the definitions: unknown fields, types, required ones, and employees of the owner only', async () => {
    const text = await data.fields.create(ann, { entity_type: 'task', label: 'Note', type: 'text', required: false, ordinal: 0 });
    const num = await data.fields.create(ann, { entity_type: 'task', label: 'Weight', type: 'number', required: true, ordinal: 1 });
    const flag = await data.fields.create(ann, { entity_type: 'task', label: 'Fragile', type: 'boolean', required: false, ordinal: 2 });
    const date = await data.fields.create(ann, { entity_type: 'task', label: 'Due', type: 'date', required: true, ordinal: 3 });
    const who = await data.fields.create(ann, { entity_type: 'task', label: 'Who', type: 'responsible_employee', required: false, ordinal: 4 });
    const placeField = await data.fields.create(ann, { entity_type: 'place', label: 'Other type', type: 'text', required: false, ordinal: 0 });
    const mine = await employee(ann);
    const theirs = await employee(bob);
    const ok = { [text]: { type: 'text', value: 'hi' }, [num]: { type: 'number', value: 2.5 }, [flag]: { type: 'boolean', value: false }, [date]: { type: 'date', value: '2026-12-07' }, [who]: { type: 'responsible_employee', value: mine } };
    expect(await data.fields.validate(ann, 'task', ok, { requireAll: true })).toEqual([]);
    expect(await data.fields.validate(ann, 'task', undefined, { requireAll: false })).toEqual([]);
    expect(await data.fields.validate(ann, 'task', {}, { requireAll: true })).toEqual([
      { parameter: `fields.${num}`, error: 'required field Weight is missing' },
      { parameter: `fields.${date}`, error: 'required field Due is missing' },
    ]);
    const bad = {
      [text]: { type: 'number', value: 1 },
      [num]: { type: 'number', value: null },
      [flag]: { type: 'boolean', value: 'yes' },
      [date]: { type: 'date', value: '2026-13-45' },
      [who]: { type: 'responsible_employee', value: theirs },
      [placeField]: { type: 'text', value: 'x' },
      999999: 'plain',
    } as never;
    expect(await data.fields.validate(ann, 'task', bad, { requireAll: true, parameter: 'task.fields' })).toEqual([
      { parameter: `task.fields.${text}.type`, error: `field ${text} is of type text` },
      { parameter: `task.fields.${num}.value`, error: 'required' },
      { parameter: `task.fields.${flag}.value`, error: 'not a valid boolean' },
      { parameter: `task.fields.${date}.value`, error: 'not a valid date' },
      { parameter: `task.fields.${who}.value`, error: `no such employee: ${theirs}` },
      { parameter: `task.fields.${placeField}`, error: `no custom field ${placeField} for tasks` },
      { parameter: 'task.fields.999999', error: 'no custom field 999999 for tasks' },
    ]);
    expect(await data.fields.validate(ann, 'task', { [num]: 'x' } as never, { requireAll: false })).toEqual([{ parameter: `fields.${num}`, error: 'expected {type, value}' }]);
    const refused = async (value: unknown) => (await data.fields.validate(ann, 'task', { [who]: { type: 'responsible_employee', value } }, { requireAll: false }))[0]?.error;
    expect([await refused(999999), await refused(1e300), await refused(1.5), await refused(0), await refused('1')]).toEqual([
      'no such employee: 999999', 'no such employee: 1e+300', 'not a valid responsible_employee', 'not a valid responsible_employee', 'not a valid responsible_employee',
    ]);
    expect(await data.fields.validate(ann, 'task', { [who]: { type: 'responsible_employee', value: null } }, { requireAll: false })).toEqual([]);
    expect(await data.fields.validate(ann, 'task', { [text]: { type: 'text', value: 'x'.repeat(1025) } }, { requireAll: false })).toEqual([{ parameter: `fields.${text}.value`, error: 'not a valid text' }]);
  });

  it('saves, replaces, loads and clears an entity\'s values; nulls are not kept; a deleted field takes its values along', async () => {
    const text = await data.fields.create(ann, { entity_type: 'place', label: 'Note', type: 'text', required: false, ordinal: 0 });
    const num = await data.fields.create(ann, { entity_type: 'place', label: 'Weight', type: 'number', required: false, ordinal: 1 });
    const flag = await data.fields.create(ann, { entity_type: 'place', label: 'Fragile', type: 'boolean', required: false, ordinal: 2 });
    await data.fields.save('place', 10, { [text]: { type: 'text', value: 'Back door "B"' }, [num]: { type: 'number', value: 12.5 }, [flag]: { type: 'boolean', value: null } });
    await data.fields.save('place', 11, { [flag]: { type: 'boolean', value: true } });
    await data.fields.save('task', 10, { [num]: { type: 'number', value: 3 } });
    expect(await data.fields.load('place', [10, 11, 12])).toEqual(new Map([
      [10, { [text]: { type: 'text', value: 'Back door "B"' }, [num]: { type: 'number', value: 12.5 } }],
      [11, { [flag]: { type: 'boolean', value: true } }],
      [12, {}],
    ]));
    expect(await data.fields.load('place', [])).toEqual(new Map());
    // What list conditions and sorting read: the value as JSON, and as text.
    expect(await sql('SELECT entity_id, field_id, value, text FROM entity_field_values WHERE entity_type = ? ORDER BY entity_id, field_id', 'place')).toEqual([
      { entity_id: 10, field_id: text, value: '"Back door \\"B\\""', text: 'Back door "B"' },
      { entity_id: 10, field_id: num, value: '12.5', text: '12.5' },
      { entity_id: 11, field_id: flag, value: 'true', text: 'true' },
    ]);
    await data.fields.save('place', 10, { [num]: { type: 'number', value: 7 }, [flag]: { type: 'boolean', value: false } });
    expect((await data.fields.load('place', [10])).get(10)).toEqual({ [num]: { type: 'number', value: 7 }, [flag]: { type: 'boolean', value: false } });
    await data.fields.save('place', 10, { [num]: { type: 'number', value: null } });
    expect((await data.fields.load('place', [10])).get(10)).toEqual({});
    await data.fields.save('place', 10, { [text]: { type: 'text', value: 'again' } });
    await data.fields.save('place', 10, undefined);
    expect((await data.fields.load('place', [10])).get(10)).toEqual({});
    await data.fields.clear('place', 11);
    expect((await data.fields.load('place', [11])).get(11)).toEqual({});
    expect((await data.fields.load('task', [10])).get(10)).toEqual({ [num]: { type: 'number', value: 3 } });
    await data.fields.delete(ann, num);
    expect((await data.fields.load('task', [10])).get(10)).toEqual({});
    // A value of a field that does not exist is refused.
    await expect(data.fields.save('place', 13, { 999999: { type: 'text', value: 'x' } })).rejects.toThrow();
  });
});

describe.each(engines('geocache'))('$name engine: geocoder cache', (engine) => {
  let data: DataStore;
  let dispose: () => Promise<void>;
  beforeEach(async () => {
    ({ data, dispose } = await engine.open());
  });
  afterEach(async () => dispose?.());

  it('answers an entry not older than asked, per provider, request and language; replaces, prunes and counts', async () => {
    expect(await data.geocache.count()).toBe(0);
    await data.geocache.put('nominatim', 'r:52.5200,13.4050', 'de', '{"address":"Berlin"}', 1000);
    await data.geocache.put('nominatim', 'r:52.5200,13.4050', '', 'null', 2000);
    await data.geocache.put('photon', 's:berlin|', 'de', '[]', 3000);
    expect(await data.geocache.get('nominatim', 'r:52.5200,13.4050', 'de', 1000)).toBe('{"address":"Berlin"}');
    expect(await data.geocache.get('nominatim', 'r:52.5200,13.4050', 'de', 1001)).toBeUndefined();
    expect(await data.geocache.get('nominatim', 'r:52.5200,13.4050', '', 0)).toBe('null');
    expect(await data.geocache.get('photon', 'r:52.5200,13.4050', 'de', 0)).toBeUndefined();
    await data.geocache.put('nominatim', 'r:52.5200,13.4050', 'de', '{"address":"Berlin, DE"}', 5000);
    expect(await data.geocache.get('nominatim', 'r:52.5200,13.4050', 'de', 4000)).toBe('{"address":"Berlin, DE"}');
    expect(await data.geocache.count()).toBe(3);
    expect(await data.geocache.prune(3000)).toBe(1);
    expect(await data.geocache.prune(3000)).toBe(0);
    expect(await data.geocache.count()).toBe(2);
    expect(await data.geocache.prune(10_000)).toBe(2);
    expect(await data.geocache.count()).toBe(0);
  });
});
