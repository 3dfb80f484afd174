/**
 * Issue 10 (hardening) over real HTTP: deeply nested conditions, large but legal id lists, and
 * references to employees the user does not own in responsible_employee fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_NESTING } from '../../src/core/conditions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const taskIds: number[] = [];
const placeIds: number[] = [];

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
  for (const label of ['North', 'South', 'East']) {
    const t = await s.call('task/create', { hash: ann.hash, task: { label, location: { lat: 52.5, lng: 13.4, address: 'Main 1', radius: 100 }, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00' } });
    taskIds.push(t.body.id);
    const p = await s.call('place/create', { hash: ann.hash, place: { label, location: { lat: 52.5, lng: 13.4, address: 'Main 1', radius: 100 } } });
    placeIds.push(p.body.id);
  }
});
afterAll(() => s.close());

const nestingError = {
  success: false,
  status: { code: 7, description: 'Invalid parameters: conditions' },
  errors: [{ parameter: 'conditions', error: `conditions nest at most ${MAX_NESTING} levels deep` }],
};
const leaf = '{"type":"eq","field":"label","value":"North"}';
/** JSON text of `not` wrapped `levels - 1` times around a leaf (`levels` deep); built as text, as JSON.stringify would overflow. */
const notChain = (levels: number) => '{"type":"not","condition":'.repeat(levels - 1) + leaf + '}'.repeat(levels - 1);
const andChain = (levels: number) => '{"type":"and","conditions":['.repeat(levels - 1) + leaf + `,${leaf}]}`.repeat(levels - 1);
/** POST a JSON body whose `conditions` member is the given JSON text. */
const postJson = async (path: string, hash: string, conditions: string) => {
  const res = await fetch(`${s.url}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"hash":${JSON.stringify(hash)},"conditions":[${conditions}]}` });
  return { status: res.status, body: await res.json() };
};
const postForm = async (path: string, form: Record<string, string>) => {
  const res = await fetch(`${s.url}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  return { status: res.status, body: await res.json() };
};

describe('deeply nested conditions (issue 10, item 4)', () => {
  it('task/list nested 2,000 and 10,000 levels: 7 naming conditions with the limit, as JSON and as a form field', async () => {
    for (const levels of [2_000, 10_000]) {
      const r = await postJson('task/list', ann.hash, notChain(levels));
      expect(r.status).toBe(400);
      expect(r.body).toEqual(nestingError);
      const f = await postForm('task/list', { hash: ann.hash, conditions: `[${notChain(levels)}]` });
      expect(f.body).toEqual(nestingError);
    }
  });
  it('place/list with and-conditions nested 3,000 levels: the same answer', async () => {
    const r = await postJson('place/list', ann.hash, andChain(3_000));
    expect(r.status).toBe(400);
    expect(r.body).toEqual(nestingError);
    // deepest legal nesting still answers
    const ok = await postJson('place/list', ann.hash, notChain(MAX_NESTING));
    expect(ok.body).toMatchObject({ success: true, count: MAX_NESTING % 2 === 1 ? 1 : 2 });
    const over = await postJson('place/list', ann.hash, notChain(MAX_NESTING + 1));
    expect(over.body).toEqual(nestingError);
  });
});

describe('large but legal id lists (issue 10, item 5)', () => {
  /** 1,000 ids: the given ones first, then ids nobody has. */
  const ids = (keep: number[], k: number) => [...keep, ...Array.from({ length: 1000 - keep.length }, (_, i) => 1_000_000 + k * 1000 + i)];
  const inIds = (n: number, keep: number[]) => Array.from({ length: n }, (_, k) => ({ type: 'in', field: 'id', value: ids(keep, k) }));
  const labels = (r: { body: { list: Array<{ label: string }> } }) => r.body.list.map((x) => x.label);

  it('task/list with 33 and 72 in-conditions of 1,000 ids each', async () => {
    for (const n of [33, 72]) {
      const r = await s.call('task/list', { hash: ann.hash, conditions: inIds(n, taskIds.slice(0, 2)) });
      expect(r.body.success, JSON.stringify(r.body).slice(0, 300)).toBe(true);
      expect(labels(r)).toEqual(['North', 'South']);
      expect(r.body.count).toBe(2);
    }
  });
  it('task/list with 10,000 trackers plus 25 in-conditions of 1,000 ids', async () => {
    const trackers = Array.from({ length: 10_000 }, (_, i) => 2_000_000 + i);
    const r = await s.call('task/list', { hash: ann.hash, trackers, conditions: inIds(25, taskIds) });
    expect(r.body).toEqual({ success: true, list: [], count: 0 });
  });
  it('task/list trackers: a repeated id lists each task once; a tracker with no task lists none', async () => {
    const tracker = s.addTracker(ann.id, '350000000000777');
    const t = await s.call('task/create', { hash: ann.hash, task: { label: 'Van run', tracker_id: tracker, location: { lat: 52.5, lng: 13.4, address: 'Main 2', radius: 100 }, from: '2030-01-11 09:00:00', to: '2030-01-11 12:00:00' } });
    expect(t.body.success, JSON.stringify(t.body)).toBe(true);
    const r = await s.call('task/list', { hash: ann.hash, trackers: [tracker, tracker, ...Array.from({ length: 5_000 }, (_, i) => 3_000_000 + i), tracker], limit: 10 });
    expect(labels(r)).toEqual(['Van run']);
    expect(r.body.count).toBe(1);
    const all = await s.call('task/list', { hash: ann.hash, trackers: [tracker, tracker] });
    expect(labels(all)).toEqual(['Van run']);
    const none = await s.call('task/list', { hash: ann.hash, trackers: [3_000_001], sort: ['from=desc'], limit: 10 });
    expect(none.body).toEqual({ success: true, list: [], count: 0 });
  });
  it('place/list with 33 and 72 in-conditions, and 10,000 place ids plus 25 in-conditions', async () => {
    for (const n of [33, 72]) {
      const r = await s.call('place/list', { hash: ann.hash, conditions: inIds(n, placeIds.slice(1)) });
      expect(r.body.success, JSON.stringify(r.body).slice(0, 300)).toBe(true);
      expect(labels(r)).toEqual(['South', 'East']);
    }
    const placeIdList = [placeIds[0], placeIds[2], ...Array.from({ length: 9_998 }, (_, i) => 3_000_000 + i)];
    const r = await s.call('place/list', { hash: ann.hash, place_ids: placeIdList, conditions: inIds(25, placeIds) });
    expect(r.body).toMatchObject({ success: true, count: 2 });
    expect(labels(r)).toEqual(['North', 'East']);
  });
});

describe('responsible_employee references (issue 10, item 6)', () => {
  it('place/create, place/update and task/create refuse an employee that does not exist or is another user\'s, alike; nothing changes', async () => {
    const placeField = (await s.call('entity/fields/create', { hash: ann.hash, field: { entity_type: 'place', label: 'Responsible', type: 'responsible_employee' } })).body.id;
    const taskField = (await s.call('entity/fields/create', { hash: ann.hash, field: { entity_type: 'task', label: 'Responsible', type: 'responsible_employee' } })).body.id;
    const annEmployee = (await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Ann', last_name: 'Driver' } })).body.id;
    const bobEmployee = (await s.call('employee/create', { hash: bob.hash, employee: { first_name: 'Bob', last_name: 'Driver' } })).body.id;
    expect(annEmployee).toEqual(expect.any(Number));
    expect(bobEmployee).toEqual(expect.any(Number));
    const place = (employee: number) => ({ label: 'Depot', location: { lat: 52.5, lng: 13.4, address: 'Main 1', radius: 100 }, fields: { [placeField]: { type: 'responsible_employee', value: employee } } });
    const refused = (employee: number, parameter: string) => ({
      success: false,
      status: { code: 7, description: `Invalid parameters: ${parameter}` },
      errors: [{ parameter, error: `no such employee: ${employee}` }],
    });
    const placesBefore = s.store.places.count(ann.id);
    for (const employee of [bobEmployee, 99_999]) {
      const r = await s.call('place/create', { hash: ann.hash, place: place(employee) });
      expect(r.body).toEqual(refused(employee, `place.fields.${placeField}.value`));
    }
    expect(s.store.places.count(ann.id)).toBe(placesBefore);
    const ok = await s.call('place/create', { hash: ann.hash, place: place(annEmployee) });
    expect(ok.body).toEqual({ success: true, id: expect.any(Number) });

    const upd = await s.call('place/update', { hash: ann.hash, place: { id: ok.body.id, ...place(bobEmployee) } });
    expect(upd.body).toEqual(refused(bobEmployee, `place.fields.${placeField}.value`));
    const read = await s.call('place/read', { hash: ann.hash, place_id: ok.body.id });
    expect(read.body.value.fields).toEqual({ [placeField]: { type: 'responsible_employee', value: annEmployee } });

    const tasksBefore = s.store.tasks.count(ann.id);
    const task = { label: 'T', location: { lat: 52.5, lng: 13.4, address: 'Main 1', radius: 100 }, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', fields: { [taskField]: { type: 'responsible_employee', value: bobEmployee } } };
    const t = await s.call('task/create', { hash: ann.hash, task });
    expect(t.body).toEqual(refused(bobEmployee, `task.fields.${taskField}.value`));
    expect(s.store.tasks.count(ann.id)).toBe(tasksBefore);
  });
});
