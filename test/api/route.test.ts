/** Routes, checkpoints and task/transmute over real HTTP (issue 4; designed calls: docs/tasks-api.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let tracker: number;
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
  tracker = s.addTracker(ann.id, '862000000000001');
});
afterAll(() => s.close());

const loc = (lat: number) => ({ lat, lng: 13.4, address: `stop ${lat}`, radius: 100 });
const cp = (label: string, day: number, over: Record<string, unknown> = {}) => ({ label, location: loc(52 + day / 10), from: `2030-06-0${day} 08:00:00`, to: `2030-06-0${day} 10:00:00`, ...over });
const task = (label: string, day = 5) => s.call('task/create', { hash: ann.hash, task: cp(label, day) }).then((r) => r.body.id as number);
const route = (over: Record<string, unknown> = {}, checkpoints = [cp('A', 1), cp('B', 2)]) =>
  s.call('task/route/create', { hash: ann.hash, route: { label: 'Morning round', ...over }, checkpoints });
const order = (routeId: number) => s.store.tasks.checkpoints(routeId).map((c) => [c.label, c.ord]);
const get = (id: number) => s.store.tasks.get(ann.id, id);

describe('task/route/create, read, list', () => {
  it('creates a route with ordered checkpoints; task/read of the route returns them', async () => {
    const r = await route({ external_id: 'R-1', description: 'north' });
    expect(r.body).toEqual({ success: true, result: expect.objectContaining({ id: expect.any(Number), type: 'route', label: 'Morning round', checkpoint_ids: [expect.any(Number), expect.any(Number)] }), external_id_counts: [{ external_id: 'R-1', count: 1 }] });
    const read = await s.call('task/read', { hash: ann.hash, task_id: r.body.result.id });
    expect(read.body.value).toMatchObject({ id: r.body.result.id, type: 'route', label: 'Morning round', description: 'north', status: 'unassigned', from: '2030-06-01 08:00:00', to: '2030-06-02 10:00:00', tracker_id: null });
    expect(read.body.value.location).toBeUndefined();
    expect(read.body.checkpoints.map((c: any) => [c.label, c.type, c.route_id, c.order])).toEqual([
      ['A', 'checkpoint', r.body.result.id, 0],
      ['B', 'checkpoint', r.body.result.id, 1],
    ]);
    const viaRoute = await s.call('task/route/read', { hash: ann.hash, route_id: r.body.result.id });
    expect(viaRoute.body.value.checkpoint_ids).toEqual(r.body.result.checkpoint_ids);
    expect(viaRoute.body.checkpoints).toEqual(read.body.checkpoints);
    // a checkpoint reads as a task object with route_id and order
    const c = await s.call('task/read', { hash: ann.hash, task_id: r.body.result.checkpoint_ids[1] });
    expect(c.body.value).toMatchObject({ type: 'checkpoint', route_id: r.body.result.id, order: 1, location: loc(52.2) });
    expect(c.body.checkpoints).toBeUndefined();
  });
  it('with a tracker the route and its checkpoints are assigned', async () => {
    const r = await route({ tracker_id: tracker });
    expect(get(r.body.result.id)).toMatchObject({ status: 'assigned', tracker_id: tracker });
    for (const id of r.body.result.checkpoint_ids) expect(get(id)).toMatchObject({ status: 'assigned', tracker_id: tracker });
  });
  it('7 naming the checkpoint parameter, 201 for a foreign tracker; nothing created', async () => {
    const before = s.sql.prepare('SELECT COUNT(*) FROM tasks').pluck().get();
    const bad = await route({}, [cp('A', 1), cp('B', 2, { to: '2030-06-01 00:00:00' })]);
    expect(bad.body.errors).toEqual([{ parameter: 'checkpoints.1.to', error: 'must be after from' }]);
    expect((await route({ label: '' })).body.errors[0].parameter).toBe('route.label');
    const bobTracker = s.addTracker(bob.id, '862000000000002');
    expect((await route({ tracker_id: bobTracker })).body.status.code).toBe(201);
    expect(s.sql.prepare('SELECT COUNT(*) FROM tasks').pluck().get()).toBe(before);
  });
  it('task/route/list lists routes only, with checkpoint_ids and count; task/list lists checkpoints, not routes', async () => {
    const r = await route({ label: 'Listed', external_id: 'L-1' });
    const l = await s.call('task/route/list', { hash: ann.hash, external_id: 'L-1' });
    expect(l.body.count).toBe(1);
    expect(l.body.list[0]).toMatchObject({ id: r.body.result.id, type: 'route', checkpoint_ids: r.body.result.checkpoint_ids });
    const all = await s.call('task/route/list', { hash: ann.hash, limit: 1 });
    expect(all.body.list).toHaveLength(1);
    expect(all.body.count).toBeGreaterThan(1);
    const tasks = await s.call('task/list', { hash: ann.hash });
    expect(tasks.body.list.every((t: any) => t.type !== 'route')).toBe(true);
    expect(tasks.body.list.map((t: any) => t.id)).toContain(r.body.result.checkpoint_ids[0]);
    expect((await s.call('task/route/list', { hash: bob.hash })).body).toEqual({ success: true, list: [], count: 0 });
  });
  it("201 for another user's route and for a task id", async () => {
    const r = await route();
    expect((await s.call('task/route/read', { hash: bob.hash, route_id: r.body.result.id })).body.status.code).toBe(201);
    expect((await s.call('task/read', { hash: bob.hash, task_id: r.body.result.id })).body.status.code).toBe(201);
    expect((await s.call('task/route/read', { hash: ann.hash, route_id: r.body.result.checkpoint_ids[0] })).body.status.code).toBe(201);
  });
});

describe('task/route/update and delete', () => {
  it('updates label, description, external_id and tags; keeps the span; 201 for bob; 255 when done', async () => {
    const r = await route();
    const up = await s.call('task/route/update', { hash: ann.hash, route: { id: r.body.result.id, label: 'Renamed', external_id: 'R-9', tracker_id: tracker } });
    expect(up.body).toEqual({ success: true, result: expect.objectContaining({ id: r.body.result.id, label: 'Renamed', checkpoint_ids: r.body.result.checkpoint_ids }), external_id_counts: [{ external_id: 'R-9', count: 1 }] });
    expect(get(r.body.result.id)).toMatchObject({ label: 'Renamed', tracker_id: null, from_time: get(r.body.result.checkpoint_ids[0])!.from_time });
    expect((await s.call('task/route/update', { hash: bob.hash, route: { id: r.body.result.id, label: 'Bob' } })).body.status.code).toBe(201);
    s.store.tasks.setOutcome(r.body.result.id, { status: 'done', at: Date.now() });
    expect((await s.call('task/route/update', { hash: ann.hash, route: { id: r.body.result.id, label: 'Late' } })).body.status.code).toBe(255);
    expect(get(r.body.result.id)!.label).toBe('Renamed');
  });
  it('checkpoints: an entry with id updates that checkpoint, one without is new, the others go; in the order given', async () => {
    const r = await route({}, [cp('A', 1), cp('B', 2), cp('C', 3)]);
    const [a, b, c] = r.body.result.checkpoint_ids as number[];
    const up = await s.call('task/route/update', { hash: ann.hash, route: { id: r.body.result.id, label: 'Reordered' }, checkpoints: [{ id: c, ...cp('C2', 3) }, cp('New', 4), { id: a, ...cp('A', 1) }] });
    expect(up.body.success, JSON.stringify(up.body)).toBe(true);
    const ids = up.body.result.checkpoint_ids as number[];
    expect([ids[0], ids[2]]).toEqual([c, a]);
    expect(order(r.body.result.id)).toEqual([['C2', 0], ['New', 1], ['A', 2]]);
    expect(get(b)).toBeUndefined();
    expect(get(ids[1])).toMatchObject({ type: 'checkpoint', route_id: r.body.result.id, status: 'unassigned' });
    expect(get(r.body.result.id)).toMatchObject({ from_time: get(a)!.from_time, to_time: get(ids[1])!.to_time });
    // an id that is not a checkpoint of this route: 201, nothing changed
    const other = await route();
    const bad = await s.call('task/route/update', { hash: ann.hash, route: { id: r.body.result.id, label: 'X' }, checkpoints: [{ id: other.body.result.checkpoint_ids[0], ...cp('A', 1) }] });
    expect(bad.body.status.code).toBe(201);
    expect(order(r.body.result.id)).toEqual([['C2', 0], ['New', 1], ['A', 2]]);
    expect(get(r.body.result.id)!.label).toBe('Reordered');
    // a done checkpoint: the route's label may change, its checkpoints may not
    s.store.tasks.setOutcome(c, { status: 'done', at: Date.now() });
    expect((await s.call('task/route/update', { hash: ann.hash, route: { id: r.body.result.id, label: 'Label only' } })).body.success).toBe(true);
    const held = await s.call('task/route/update', { hash: ann.hash, route: { id: r.body.result.id, label: 'X' }, checkpoints: [{ id: a, ...cp('A', 1) }] });
    expect(held.body.status.code).toBe(255);
    expect(order(r.body.result.id)).toEqual([['C2', 0], ['New', 1], ['A', 2]]);
  });
  it('create_form: checkpoints with form_template_id get a form (create, and update replaces or deletes it); without create_form none', async () => {
    const tpl = await s.call('form/template/create', { hash: ann.hash, template: { label: 'Proof', fields: [{ id: 'note', label: 'Note', type: 'text', required: false, description: '', min_length: 0, max_length: 100 }], submit_in_zone: false } });
    expect(tpl.body.success, JSON.stringify(tpl.body)).toBe(true);
    const form = (taskId: number) => s.store.forms.ofTask(taskId)?.template_id ?? null;
    const plain = await route({}, [cp('A', 1, { form_template_id: tpl.body.id })]);
    expect(form(plain.body.result.checkpoint_ids[0])).toBeNull();
    const r = await s.call('task/route/create', { hash: ann.hash, route: { label: 'Forms' }, checkpoints: [cp('A', 1, { form_template_id: tpl.body.id }), cp('B', 2)], create_form: true });
    const [a, b] = r.body.result.checkpoint_ids as number[];
    expect([form(a), form(b)]).toEqual([tpl.body.id, null]);
    await s.call('task/route/update', { hash: ann.hash, route: { id: r.body.result.id, label: 'Forms' }, checkpoints: [{ id: a, ...cp('A', 1, { form_template_id: null }) }, { id: b, ...cp('B', 2, { form_template_id: tpl.body.id }) }], create_form: true });
    expect([form(a), form(b)]).toEqual([null, tpl.body.id]);
  });
  it('deletes a route with its checkpoints (and their tags); 201 for bob', async () => {
    const tag = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'cp' } })).body.id;
    const r = await route({}, [cp('A', 1, { tags: [tag] })]);
    expect((await s.call('task/route/delete', { hash: bob.hash, route_id: r.body.result.id })).body.status.code).toBe(201);
    expect((await s.call('task/route/delete', { hash: ann.hash, route_id: r.body.result.id })).body).toEqual({ success: true });
    expect(get(r.body.result.id)).toBeUndefined();
    expect(get(r.body.result.checkpoint_ids[0])).toBeUndefined();
    expect(s.sql.prepare("SELECT COUNT(*) FROM entity_tags WHERE entity_type = 'task' AND entity_id = ?").pluck().get(r.body.result.checkpoint_ids[0])).toBe(0);
  });
  it('task/delete of a checkpoint closes up the route and narrows its span', async () => {
    const r = await route({}, [cp('A', 1), cp('B', 2), cp('C', 3)]);
    await s.call('task/delete', { hash: ann.hash, task_id: r.body.result.checkpoint_ids[2] });
    await s.call('task/delete', { hash: ann.hash, task_id: r.body.result.checkpoint_ids[0] });
    expect(order(r.body.result.id)).toEqual([['B', 0]]);
    expect(get(r.body.result.id)!.from_time).toBe(get(r.body.result.checkpoint_ids[1])!.from_time);
    expect(get(r.body.result.id)!.to_time).toBe(get(r.body.result.checkpoint_ids[1])!.to_time);
  });
  it('task/update of a checkpoint moves the route span; of a route id is 201', async () => {
    const r = await route();
    await s.call('task/update', { hash: ann.hash, task: { id: r.body.result.checkpoint_ids[1], ...cp('B', 4) } });
    expect((await s.call('task/read', { hash: ann.hash, task_id: r.body.result.id })).body.value.to).toBe('2030-06-04 10:00:00');
    expect((await s.call('task/update', { hash: ann.hash, task: { id: r.body.result.id, ...cp('X', 1) } })).body.status.code).toBe(201);
  });
});

describe('task/assign on routes', () => {
  it('assigns a route with all checkpoints; a checkpoint alone is 255; 255 when a checkpoint is done', async () => {
    const r = await route();
    await s.call('task/assign', { hash: ann.hash, task_id: r.body.result.id, tracker_id: tracker });
    for (const id of [r.body.result.id, ...r.body.result.checkpoint_ids]) expect(get(id)).toMatchObject({ status: 'assigned', tracker_id: tracker });
    expect((await s.call('task/assign', { hash: ann.hash, task_id: r.body.result.checkpoint_ids[0], tracker_id: null })).body.status.code).toBe(255);
    s.store.tasks.setOutcome(r.body.result.checkpoint_ids[0], { status: 'done', at: Date.now() });
    const x = await s.call('task/assign', { hash: ann.hash, task_id: r.body.result.id, tracker_id: null });
    expect(x.body.status).toEqual({ code: 255, description: `Invalid task state: checkpoint ${r.body.result.checkpoint_ids[0]} is done; only unassigned or assigned ones can be changed` });
    expect(get(r.body.result.id)!.tracker_id).toBe(tracker);
  });
});

describe('task/transmute', () => {
  it('inserts the task at the zero-based order; it follows the route assignment', async () => {
    const r = await route({ tracker_id: tracker });
    const t = await task('Middle');
    expect((await s.call('task/transmute', { hash: ann.hash, task_id: t, route_id: r.body.result.id, order: 1 })).body).toEqual({ success: true });
    expect(order(r.body.result.id)).toEqual([['A', 0], ['Middle', 1], ['B', 2]]);
    expect(get(t)).toMatchObject({ type: 'checkpoint', route_id: r.body.result.id, tracker_id: tracker, status: 'assigned' });
    expect(get(r.body.result.id)!.to_time).toBe(get(t)!.to_time);
    const first = await task('First');
    await s.call('task/transmute', { hash: ann.hash, task_id: first, route_id: r.body.result.id, order: 0 });
    const last = await task('Last');
    await s.call('task/transmute', { hash: ann.hash, task_id: last, route_id: r.body.result.id, order: 4 });
    expect(order(r.body.result.id)).toEqual([['First', 0], ['A', 1], ['Middle', 2], ['B', 3], ['Last', 4]]);
  });
  it('into an empty route', async () => {
    const r = await route({}, []);
    expect(get(r.body.result.id)!.from_time).toBeNull();
    const t = await task('Only');
    await s.call('task/transmute', { hash: ann.hash, task_id: t, route_id: r.body.result.id, order: 0 });
    expect(order(r.body.result.id)).toEqual([['Only', 0]]);
    expect(get(r.body.result.id)!.from_time).toBe(get(t)!.from_time);
  });
  it('201 for unknown or foreign task and route, 255 for a done task or checkpoint, a checkpoint as task; 7 for order past the end', async () => {
    const r = await route();
    const t = await task('T');
    const bobRoute = (await s.call('task/route/create', { hash: bob.hash, route: { label: 'Bob' } })).body.result.id;
    const call = (p: Record<string, unknown>, hash = ann.hash) => s.call('task/transmute', { hash, task_id: t, route_id: r.body.result.id, order: 0, ...p }).then((x) => x.body);
    expect((await call({ task_id: 999999 })).status.code).toBe(201);
    expect((await call({ route_id: bobRoute })).status.code).toBe(201);
    expect((await call({ route_id: t })).status.code).toBe(201);
    expect((await call({}, bob.hash)).status.code).toBe(201);
    expect((await call({ task_id: r.body.result.checkpoint_ids[0] })).status.code).toBe(255);
    expect(await call({ order: 3 })).toMatchObject({ status: { code: 7 }, errors: [{ parameter: 'order', error: 'at most 2: the route has 2 checkpoints' }] });
    expect((await call({ order: -1 })).errors[0].parameter).toBe('order');
    s.store.tasks.setOutcome(r.body.result.checkpoint_ids[1], { status: 'arrived', at: Date.now() });
    expect((await call({})).status.code).toBe(255);
    const r2 = await route();
    s.store.tasks.setOutcome(t, { status: 'failed', at: Date.now() });
    expect((await call({ route_id: r2.body.result.id })).status.code).toBe(255);
    expect(get(t)!.type).toBe('task');
    expect(order(r.body.result.id)).toEqual([['A', 0], ['B', 1]]);
  });
});

describe('delivery look-up (for the delivery calls)', () => {
  it('tasks first, then checkpoints; started, and arrived, assigned or delayed only', async () => {
    const now = Date.UTC(2030, 5, 1, 12);
    const r = await route({ tracker_id: tracker }, [cp('CP', 1, { external_id: 'D-1' })]);
    const t = (await s.call('task/create', { hash: ann.hash, task: cp('T', 1, { external_id: 'D-1', tracker_id: tracker }) })).body.id;
    await s.call('task/create', { hash: ann.hash, task: cp('Later', 9, { external_id: 'D-1', tracker_id: tracker }) });
    await s.call('task/create', { hash: ann.hash, task: cp('Unassigned', 1, { external_id: 'D-1' }) });
    expect(s.store.tasks.findForDelivery(ann.id, 'D-1', now).map((x) => x.id)).toEqual([t, r.body.result.checkpoint_ids[0]]);
    expect(s.store.tasks.findForDelivery(bob.id, 'D-1', now)).toEqual([]);
  });
});
