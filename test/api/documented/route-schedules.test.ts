/**
 * Route schedules as documented (issue 23): task/schedule/route/create, update and delete take the
 * documented route schedule entry and checkpoint schedule entries (update also the single
 * checkpoint object its example sends); task/schedule/read answers a route with its checkpoints
 * and a checkpoint by its id; task/schedule/list lists routes with types ["route"].
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedServer, expectMembers, type Documented } from './harness.ts';

let d: Documented;
let van: number;
let tags: number[];
let tpl: number;
beforeAll(async () => {
  d = await documentedServer('route-schedules-doc@example.com', 'Europe/Berlin');
  van = d.s.addTracker(d.userId, 'doc-route-sched-van', { label: 'Van' });
  tags = [(await d.ok('tag/create', { tag: { name: 'Shops', color: 'FF0000' } })).id, (await d.ok('tag/create', { tag: { name: 'North', color: '00FF00' } })).id];
  tpl = (await d.ok('form/template/create', { template: { label: 'Receipt', fields: [{ id: 'Text-1', label: 'Total', type: 'text' }] } })).id;
});
afterAll(() => d?.close());

const ROUTE_MEMBERS = ['id', 'user_id', 'tracker_id', 'label', 'description', 'parameters'];
const CHECKPOINT_MEMBERS = ['id', 'user_id', 'tracker_id', 'label', 'description', 'parent_id', 'order', 'location', 'max_delay', 'min_stay_duration', 'min_arrival_duration', 'from_time', 'duration', 'tags', 'form_template_id'];
const EVERY_DAY = Array.from({ length: 31 }, (_, i) => i + 1);
const DATE_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

/** The documented route schedule entry (every day of the month, so each run has due days whatever today is). */
const route = (over: Record<string, unknown> = {}) => ({ tracker_id: van, label: 'Shop', description: 'Buy things', parameters: { type: 'month_days', month_days: EVERY_DAY }, ...over });
/** A documented checkpoint schedule entry; the two stops below cover a whole day, so today's route is always due. */
const checkpoint = (over: Record<string, unknown> = {}) => ({
  tracker_id: van,
  label: 'Shop',
  description: 'Buy things',
  parent_id: 1,
  order: 0,
  location: { lat: 53.787154, lng: 9.75798, address: 'Moltkestrasse 32', radius: 150 },
  max_delay: 5,
  min_stay_duration: 0,
  min_arrival_duration: 0,
  from_time: '00:00:00',
  duration: 720,
  tags,
  form_template_id: tpl,
  ...over,
});
const second = () => checkpoint({ label: 'Bakery', description: 'Bread', order: 1, location: { lat: 53.79, lng: 9.76, address: 'Am Markt 1', radius: 80 }, max_delay: 0, from_time: '12:00:00', duration: 720, tags: [], form_template_id: null });
const rows = () => d.s.sql.prepare('SELECT COUNT(*) FROM task_schedules').pluck().get() as number;
const tasks = () => d.s.sql.prepare('SELECT COUNT(*) FROM tasks').pluck().get() as number;
const params = (body: any) => [body.status?.code, (body.errors ?? []).map((e: { parameter: string }) => e.parameter)];

describe('task/schedule/route (documented shapes)', () => {
  let id: number;
  let cps: number[];
  let firstRoute: number;

  it('create takes the documented route and checkpoints and creates today\'s route and the next 7 days\' at once', async () => {
    const body = await d.call('task/schedule/route/create', { route: route(), checkpoints: [checkpoint(), second()] });
    expect(body).toEqual({ success: true, id: expect.any(Number), created_task_ids: expect.any(Array) });
    id = body.id;
    expect(body.created_task_ids).toHaveLength(8);
    firstRoute = body.created_task_ids[0];
    const r = await d.ok('task/route/read', { route_id: firstRoute });
    const day = r.value.from.slice(0, 10);
    expect(r.value).toMatchObject({ label: 'Shop', description: 'Buy things', tracker_id: van, status: 'assigned', origin: 'scheduled', from: `${day} 00:00:00` });
    expect(r.checkpoints.map((c: any) => [c.label, c.from, c.to, c.tracker_id, c.origin, c.tags])).toEqual([
      ['Shop', `${day} 00:00:00`, `${day} 12:00:00`, van, 'scheduled', tags],
      ['Bakery', `${day} 12:00:00`, r.value.to, van, 'scheduled', []],
    ]);
    expect(r.value.to).toMatch(/ 00:00:00$/);
    expect(r.checkpoints[0]).toMatchObject({ location: { lat: 53.787154, lng: 9.75798, address: 'Moltkestrasse 32', radius: 150 }, max_delay: 5 });
    expect((await d.ok('task/form/read', { task_id: r.checkpoints[0].id })).value).toMatchObject({ label: 'Receipt', template_id: tpl });
    expect((await d.ok('task/form/read', { task_id: r.checkpoints[1].id })).value).toBeNull();
  });

  it('read answers the route entry and its checkpoint entries; a checkpoint is read by its id', async () => {
    const body = await d.ok('task/schedule/read', { id });
    expectMembers(body.value, ROUTE_MEMBERS, 'task/schedule/read value (route)');
    for (const c of body.checkpoints) expectMembers(c, CHECKPOINT_MEMBERS, 'task/schedule/read checkpoints');
    cps = body.checkpoints.map((c: { id: number }) => c.id);
    const common = { user_id: d.userId, type: 'checkpoint', tracker_id: van, external_id: null, fields: {}, min_stay_duration: 0, min_arrival_duration: 0, created: DATE_TIME, updated: DATE_TIME, parent_id: id };
    expect(body).toEqual({
      success: true,
      value: {
        id,
        user_id: d.userId,
        type: 'route',
        tracker_id: van,
        label: 'Shop',
        description: 'Buy things',
        parameters: { type: 'month_days', month_days: EVERY_DAY },
        external_id: null,
        tags: [],
        days_ahead: 7,
        enabled: true,
        last_error: null,
        created: DATE_TIME,
        updated: DATE_TIME,
      },
      checkpoints: [
        { ...common, id: cps[0], order: 0, label: 'Shop', description: 'Buy things', location: { lat: 53.787154, lng: 9.75798, address: 'Moltkestrasse 32', radius: 150 }, max_delay: 5, tags, form_template_id: tpl, from_time: '00:00:00', duration: 720 },
        { ...common, id: cps[1], order: 1, label: 'Bakery', description: 'Bread', location: { lat: 53.79, lng: 9.76, address: 'Am Markt 1', radius: 80 }, max_delay: 0, tags: [], form_template_id: null, from_time: '12:00:00', duration: 720 },
      ],
    });
    expect(await d.call('task/schedule/read', { id: cps[1] })).toEqual({ success: true, value: body.checkpoints[1] });
  });

  it('list answers route entries with types ["route"]; the default (["task"]) leaves them out', async () => {
    const task = (await d.ok('task/schedule/create', { schedule: { location: { lat: 53.78, lng: 9.75, address: 'Depot', radius: 100 }, label: 'Depot', from_time: '08:00:00', duration: 30, parameters: { type: 'weekdays', weekdays: [1] } } })).id;
    const routeEntry = (await d.ok('task/schedule/read', { id })).value;
    expect(await d.call('task/schedule/list', { types: ['route'] })).toEqual({ success: true, list: [routeEntry] });
    const ids = async (p: Record<string, unknown>) => (await d.ok('task/schedule/list', p)).list.map((x: { id: number }) => x.id);
    expect(await ids({})).toEqual([task]);
    expect(await ids({ types: ['task', 'route'] })).toEqual([id, task]);
    expect(await ids({ types: ['route'], trackers: [van] })).toEqual([id]);
    expect(await ids({ types: ['route'], filter: 'BUY' })).toEqual([id]);
    expect(await ids({ types: ['route'], tag_ids: [tags[0]] })).toEqual([]); // the route carries no tags of its own
    expect(await d.call('task/schedule/delete', { schedule_id: task })).toEqual({ success: true });
  });

  it('update takes the documented single checkpoint object: kept by id, the other deleted; routes already created stay', async () => {
    const before = tasks();
    const body = await d.call('task/schedule/route/update', { route: route({ id, label: 'Shop round' }), checkpoints: checkpoint({ id: cps[0], label: 'Shop (new)', duration: 1440 }) });
    expect(body).toEqual({ success: true, created_task_ids: [] }); // every due day was created already
    expect(tasks()).toBe(before);
    const read = await d.ok('task/schedule/read', { id });
    expect(read.value).toMatchObject({ label: 'Shop round' });
    expect(read.checkpoints.map((c: any) => [c.id, c.label, c.duration, c.order])).toEqual([[cps[0], 'Shop (new)', 1440, 0]]);
    expect((await d.call('task/schedule/read', { id: cps[1] })).status.code).toBe(201);
    const r = await d.ok('task/route/read', { route_id: firstRoute });
    expect([r.value.label, ...r.checkpoints.map((c: any) => c.label)]).toEqual(['Shop', 'Shop', 'Bakery']);
  });

  it('update with a list: a checkpoint without id is new; order places it', async () => {
    const body = await d.call('task/schedule/route/update', { route: route({ id }), checkpoints: [checkpoint({ id: cps[0], order: 1 }), { ...second(), order: 0 }] });
    expect(body).toEqual({ success: true, created_task_ids: [] });
    const read = await d.ok('task/schedule/read', { id });
    expect(read.checkpoints.map((c: any) => [c.label, c.order, c.parent_id])).toEqual([['Bakery', 0, id], ['Shop', 1, id]]);
    expect(read.checkpoints[1].id).toBe(cps[0]);
    expect(read.checkpoints[0].id).not.toBe(cps[1]);
  });

  it('bad inputs answer 7 naming the parameter (201, 204 for unknown entities) and store nothing', async () => {
    const before = [rows(), tasks()];
    const create = async (p: Record<string, unknown>) => params(await d.call('task/schedule/route/create', p));
    expect(await create({ route: route() })).toEqual([7, ['checkpoints']]);
    expect(await create({ route: route(), checkpoints: [] })).toEqual([7, ['checkpoints']]);
    expect(await create({ route: route(), checkpoints: [checkpoint({ location: undefined })] })).toEqual([7, ['checkpoints.0.location']]);
    expect(await create({ route: route(), checkpoints: [checkpoint(), second(), checkpoint({ duration: undefined })] })).toEqual([7, ['checkpoints.2.duration']]);
    expect(await create({ route: route({ parameters: { type: 'yearly', days: [1] } }), checkpoints: [checkpoint()] })).toEqual([7, ['route.parameters.type']]);
    expect(await create({ route: route({ parameters: { type: 'weekdays', weekdays: [8] } }), checkpoints: [checkpoint()] })).toEqual([7, ['route.parameters.weekdays.0']]);
    expect(await create({ route: route({ label: undefined }), checkpoints: [checkpoint()] })).toEqual([7, ['route.label']]);
    expect(await create({ route: route({ tracker_id: null }), checkpoints: [checkpoint()] })).toEqual([7, ['checkpoints.0.tracker_id']]);
    expect(await create({ route: route(), checkpoints: [checkpoint({ tags: [999_999] })] })).toEqual([7, ['checkpoints.0.tags']]);
    expect(await create({ route: route(), checkpoints: [checkpoint({ from_time: '25:00:00' })] })).toEqual([7, ['checkpoints.0.from_time']]);
    expect((await create({ route: route({ tracker_id: 999_999 }), checkpoints: [checkpoint({ tracker_id: 999_999 })] }))[0]).toBe(201);
    expect((await create({ route: route(), checkpoints: [checkpoint({ form_template_id: 999_999 })] }))[0]).toBe(204);
    expect(params(await d.call('task/schedule/list', { types: ['route', 'trip'] }))).toEqual([7, ['types.1']]);

    const update = async (p: Record<string, unknown>) => params(await d.call('task/schedule/route/update', p));
    expect(await update({ route: route({ id }) })).toEqual([7, ['checkpoints']]);
    expect(await update({ route: route({ id }), checkpoints: { ...checkpoint(), location: undefined } })).toEqual([7, ['checkpoints.0.location']]);
    expect((await update({ route: route({ id: 999_999 }), checkpoints: [checkpoint()] }))[0]).toBe(201);
    expect((await update({ route: route({ id }), checkpoints: [checkpoint({ id: 999_999 })] }))[0]).toBe(201);
    const other = await d.s.user('route-schedules-other@example.com');
    const theirs = await d.s.call('task/schedule/route/update', { hash: other.hash, route: route({ id, tracker_id: null }), checkpoints: [checkpoint({ tracker_id: null, tags: [], form_template_id: null })] });
    expect(theirs.body.status.code).toBe(201);
    expect((await d.s.call('task/schedule/route/delete', { hash: other.hash, id })).body.status.code).toBe(201);
    expect((await d.s.call('task/schedule/read', { hash: other.hash, id })).body.status.code).toBe(201);
    // A route schedule is not a task schedule, nor a checkpoint a route.
    expect((await d.call('task/schedule/update', { schedule: { location: { lat: 1, lng: 1, radius: 100 }, label: 'x', from_time: '08:00:00', duration: 30, parameters: { type: 'weekdays', weekdays: [1] }, id } })).status.code).toBe(204);
    const cp = (await d.ok('task/schedule/read', { id })).checkpoints[0].id;
    expect((await d.call('task/schedule/route/delete', { id: cp })).status.code).toBe(201);
    expect((await d.call('task/schedule/delete', { schedule_id: cp })).status.code).toBe(201);
    expect([rows(), tasks()]).toEqual(before);
    expect((await d.ok('task/schedule/read', { id })).checkpoints.map((c: { label: string }) => c.label)).toEqual(['Bakery', 'Shop']);
  });

  it('delete takes the documented id and deletes the checkpoints too; the routes created stay', async () => {
    const before = tasks();
    expect(await d.call('task/schedule/route/delete', { id })).toEqual({ success: true });
    expect((await d.call('task/schedule/read', { id })).status.code).toBe(201);
    expect(d.s.sql.prepare('SELECT COUNT(*) FROM task_schedules WHERE parent_id = ?').pluck().get(id)).toBe(0);
    expect(tasks()).toBe(before);
    expect((await d.call('task/schedule/route/delete', { id })).status.code).toBe(201);
    // task/schedule/delete takes a route schedule too (documented: "task or route schedules" share list and read).
    const again = (await d.ok('task/schedule/route/create', { route: route({ label: 'Again' }), checkpoints: [checkpoint()] })).id;
    expect(await d.call('task/schedule/delete', { schedule_id: again })).toEqual({ success: true });
    expect(rows()).toBe(0);
  });
});

describe('task/schedule/checkpoint (documented shapes)', () => {
  let id: number;
  let cps: number[];
  const stop = (label: string, order: number) => checkpoint({ label, order, tags: [], form_template_id: null, from_time: `0${order * 4}:00:00`.slice(-8), duration: order === 2 ? 1440 - 480 : 240 });

  it('delete takes checkpoint_id: the others move up; the last one stays (7)', async () => {
    id = (await d.ok('task/schedule/route/create', { route: route({ label: 'Three stops' }), checkpoints: [stop('A', 0), stop('B', 1), stop('C', 2)] })).id;
    cps = (await d.ok('task/schedule/read', { id })).checkpoints.map((c: { id: number }) => c.id);
    expect(await d.call('task/schedule/checkpoint/delete', { checkpoint_id: cps[1] })).toEqual({ success: true });
    const read = await d.ok('task/schedule/read', { id });
    expect(read.value).toMatchObject({ label: 'Three stops', tracker_id: van });
    expect(read.checkpoints.map((c: any) => [c.id, c.label, c.order, c.from_time])).toEqual([[cps[0], 'A', 0, '00:00:00'], [cps[2], 'C', 1, '08:00:00']]);
    expect((await d.call('task/schedule/read', { id: cps[1] })).status.code).toBe(201);
    expect((await d.call('task/schedule/checkpoint/delete', { checkpoint_id: cps[1] })).status.code).toBe(201);
    expect((await d.call('task/schedule/checkpoint/delete', { checkpoint_id: id })).status.code).toBe(201); // a route is no checkpoint
    expect(await d.call('task/schedule/checkpoint/delete', { checkpoint_id: cps[0] })).toEqual({ success: true });
    const before = rows();
    const last = await d.call('task/schedule/checkpoint/delete', { checkpoint_id: cps[2] });
    expect(params(last)).toEqual([7, ['checkpoint_id']]);
    expect(rows()).toBe(before);
    expect((await d.ok('task/schedule/read', { id })).checkpoints.map((c: { id: number }) => c.id)).toEqual([cps[2]]);
  });

  it('transmute takes checkpoint_id: the checkpoint becomes a task schedule, its route schedule is gone; no task on a day its route has', async () => {
    const before = tasks();
    expect(await d.call('task/schedule/checkpoint/transmute', { checkpoint_id: cps[2] })).toEqual({ success: true, created_task_ids: [] });
    expect(tasks()).toBe(before);
    expect((await d.call('task/schedule/read', { id })).status.code).toBe(201);
    expect((await d.ok('task/schedule/list', { types: ['route'] })).list).toEqual([]);
    const { value } = await d.ok('task/schedule/read', { id: cps[2] });
    expect(value).toEqual({
      id: cps[2],
      user_id: d.userId,
      type: 'task',
      label: 'C',
      description: 'Buy things',
      location: { lat: 53.787154, lng: 9.75798, address: 'Moltkestrasse 32', radius: 150 },
      tracker_id: van,
      max_delay: 5,
      min_stay_duration: 0,
      external_id: null,
      tags: [],
      fields: {},
      form_template_id: null,
      parameters: { type: 'month_days', month_days: EVERY_DAY },
      from_time: '08:00:00',
      duration: 960,
      min_arrival_duration: 0,
      days_ahead: 7,
      enabled: true,
      last_error: null,
      created: DATE_TIME,
      updated: DATE_TIME,
    });
    expect((await d.ok('task/schedule/list')).list.map((x: { id: number }) => x.id)).toEqual([cps[2]]);
    expect((await d.call('task/schedule/checkpoint/transmute', { checkpoint_id: cps[2] })).status.code).toBe(201); // no longer a checkpoint
    expect(await d.call('task/schedule/delete', { schedule_id: cps[2] })).toEqual({ success: true });
  });
});
