/** Task calls over real HTTP (issue 4; spec: Tasks, Task table, States and transitions, Limits). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let annTracker: number;
let bobTracker: number;
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'Asia/Tokyo' });
  bob = await s.user('bob@example.com');
  annTracker = s.addTracker(ann.id, '861000000000001', { label: 'Van 1' });
  bobTracker = s.addTracker(bob.id, '861000000000002');
});
afterAll(() => s.close());

const berlin = { lat: 52.52, lng: 13.405, address: 'Alexanderplatz 1, Berlin', radius: 150 };
const minimal = (over: Record<string, unknown> = {}) => ({ label: 'Deliver', description: 'Box', location: berlin, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', ...over });
const create = async (hash: string, task: Record<string, unknown>, extra: Record<string, unknown> = {}) => s.call('task/create', { hash, task, ...extra });
const row = (id: number) => s.store.tasks.get(ann.id, id);
const taskCount = () => s.sql.prepare('SELECT COUNT(*) FROM tasks').pluck().get() as number;
const geo = () => s.sql.prepare("SELECT value FROM versions WHERE name = 'geo'").pluck().get() as number;
const sourceOf = (trackerId: number) => s.store.trackers.getAny(trackerId)!.source_id;

describe('task/create and task/read', () => {
  it('creates a minimal task, unassigned, times in the user zone, stored as UTC', async () => {
    const r = await create(ann.hash, minimal());
    expect(r.body).toEqual({ success: true, id: expect.any(Number) });
    const read = await s.call('task/read', { hash: ann.hash, task_id: r.body.id });
    expect(read.body).toEqual({
      success: true,
      value: {
        id: r.body.id,
        user_id: ann.id,
        tracker_id: null,
        label: 'Deliver',
        description: 'Box',
        creation_date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        from: '2030-01-10 09:00:00',
        to: '2030-01-10 12:00:00',
        external_id: null,
        status: 'unassigned',
        status_change_date: expect.any(String),
        origin: 'manual',
        tags: [],
        type: 'task',
        location: berlin,
        max_delay: 0,
        min_stay_duration: 0,
        arrival_date: null,
        stay_duration: 0,
        fields: {},
      },
    });
    // Asia/Tokyo is UTC+9
    expect(row(r.body.id)!.from_time).toBe(Date.UTC(2030, 0, 10, 0, 0, 0));
  });

  it('with a tracker the task is assigned; external_id_counts counts the owner\'s tasks with that id', async () => {
    const a = await create(ann.hash, minimal({ tracker_id: annTracker, external_id: 'ORD-1' }));
    expect(a.body.external_id_counts).toEqual([{ external_id: 'ORD-1', count: 1 }]);
    const b = await create(ann.hash, minimal({ external_id: 'ORD-1' }));
    expect(b.body.external_id_counts).toEqual([{ external_id: 'ORD-1', count: 2 }]);
    // bob's tasks with the same external id do not count
    expect((await create(bob.hash, minimal({ external_id: 'ORD-1' }))).body.external_id_counts).toEqual([{ external_id: 'ORD-1', count: 1 }]);
    expect(row(a.body.id)!.status).toBe('assigned');
    expect(row(a.body.id)!.tracker_id).toBe(annTracker);
    expect(row(b.body.id)!.status).toBe('unassigned');
  });

  it('ignores id, status, user_id and other read-only fields; creating twice makes two tasks', async () => {
    const a = await create(ann.hash, minimal({ id: 1, status: 'done', user_id: bob.id, arrival_date: '2030-01-01 00:00:00', origin: 'imported' }));
    const b = await create(ann.hash, minimal({ id: 1, status: 'done' }));
    expect(a.body.id).not.toBe(b.body.id);
    expect(row(a.body.id)).toMatchObject({ user_id: ann.id, status: 'unassigned', arrival_date: null, origin: 'manual' });
  });

  it('stores tags and custom fields', async () => {
    const tag = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'urgent' } })).body.id;
    const field = (await s.call('entity/fields/create', { hash: ann.hash, field: { entity_type: 'task', label: 'Floor', type: 'number' } })).body.id;
    const r = await create(ann.hash, minimal({ tags: [tag], fields: { [field]: { type: 'number', value: 3 } } }));
    const v = (await s.call('task/read', { hash: ann.hash, task_id: r.body.id })).body.value;
    expect(v.tags).toEqual([tag]);
    expect(v.fields).toEqual({ [field]: { type: 'number', value: 3 } });
  });

  it('fills an empty address from the geocoder', async () => {
    const r = await create(ann.hash, minimal({ location: { lat: 52.52, lng: 13.405, radius: 100 } }));
    expect(row(r.body.id)!.address).toMatch(/Berlin/);
  });

  it('7 naming the parameter for every field rule and limit; nothing is created', async () => {
    const before = taskCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [minimal({ label: '' }), 'task.label'],
      [minimal({ label: 'x'.repeat(201) }), 'task.label'],
      [minimal({ description: 'x'.repeat(1025) }), 'task.description'],
      [minimal({ location: { ...berlin, lat: 91 } }), 'task.location.lat'],
      [minimal({ location: { ...berlin, lng: -181 } }), 'task.location.lng'],
      [minimal({ location: { lat: 1, lng: 1, address: '' } }), 'task.location.radius'],
      [minimal({ location: { ...berlin, radius: 0 } }), 'task.location.radius'],
      [minimal({ location: { ...berlin, radius: 100_001 } }), 'task.location.radius'],
      [minimal({ location: null }), 'task.location'],
      [minimal({ from: '2030-01-10' }), 'task.from'],
      [minimal({ from: '2030-02-30 10:00:00' }), 'task.from'],
      [minimal({ to: '2030-01-10 09:00:00' }), 'task.to'],
      [minimal({ to: '2030-01-09 09:00:00' }), 'task.to'],
      [minimal({ max_delay: -1 }), 'task.max_delay'],
      [minimal({ min_stay_duration: -5 }), 'task.min_stay_duration'],
      [minimal({ min_stay_duration: 1.5 }), 'task.min_stay_duration'],
      [minimal({ tags: [999999] }), 'task.tags'],
      [minimal({ fields: { 999999: { type: 'text', value: 'x' } } }), 'task.fields.999999'],
      [minimal({ external_id: 'x'.repeat(257) }), 'task.external_id'],
    ];
    for (const [task, parameter] of cases) {
      const r = await create(ann.hash, task);
      expect(r.status, parameter).toBe(400);
      expect(r.body.status.code, parameter).toBe(7);
      expect(r.body.errors.map((e: any) => e.parameter), parameter).toContain(parameter);
    }
    expect((await s.call('task/create', { hash: ann.hash })).body.errors[0].parameter).toBe('task');
    expect(taskCount()).toBe(before);
  });

  it('a tag of another user is refused like a missing one', async () => {
    const bobTag = (await s.call('tag/create', { hash: bob.hash, tag: { name: 'bobs' } })).body.id;
    const r = await create(ann.hash, minimal({ tags: [bobTag] }));
    expect(r.body.errors).toEqual([{ parameter: 'task.tags', error: `no such tags: ${bobTag}` }]);
  });

  it('201 for an unknown or another user\'s tracker, 208 blocked, 236 tariff without tasks; nothing created', async () => {
    const before = taskCount();
    expect((await create(ann.hash, minimal({ tracker_id: 999999 }))).body.status.code).toBe(201);
    expect((await create(ann.hash, minimal({ tracker_id: bobTracker }))).body.status.code).toBe(201);
    const blocked = s.addTracker(ann.id, '861000000000010');
    s.store.trackers.setBlocked(sourceOf(blocked), true);
    const b = await create(ann.hash, minimal({ tracker_id: blocked }));
    expect(b.status).toBe(403);
    expect(b.body.status.code).toBe(208);
    const noTasks = s.addTracker(ann.id, '861000000000011');
    const tariff = s.store.tariffs.copy(1, 'no tasks');
    s.store.tariffs.update(tariff, { has_tasks: false });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tariff, sourceOf(noTasks));
    expect((await create(ann.hash, minimal({ tracker_id: noTasks }))).body.status.code).toBe(236);
    expect(taskCount()).toBe(before);
  });

  it('create_form: a form from the template; 201 for an unknown template (nothing stored); form_template_id is ignored without create_form', async () => {
    const before = taskCount();
    const r = await create(ann.hash, minimal({ form_template_id: 5 }), { create_form: true });
    expect(r.body.status).toEqual({ code: 201, description: 'Not found in the database: form template 5' });
    expect(taskCount()).toBe(before);
    const tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Check', fields: [{ id: 'ok', label: 'OK', type: 'rating' }] } })).body.id;
    const withForm = await create(ann.hash, minimal({ form_template_id: tpl }), { create_form: true });
    expect((await s.call('task/read', { hash: ann.hash, task_id: withForm.body.id })).body.value.form).toMatchObject({ label: 'Check', template_id: tpl, task_id: withForm.body.id, values: null });
    // Another user's template is unknown.
    expect((await create(bob.hash, minimal({ form_template_id: tpl }), { create_form: true })).body.status.code).toBe(201);
    expect((await create(ann.hash, minimal({ form_template_id: 5 }))).body.success).toBe(true);
    expect((await create(ann.hash, minimal({ form_template_id: null }), { create_form: true })).body.success).toBe(true);
  });

  it("201 for an unknown id and for another user's task", async () => {
    const a = await create(ann.hash, minimal());
    expect((await s.call('task/read', { hash: ann.hash, task_id: 999999 })).body.status.code).toBe(201);
    const r = await s.call('task/read', { hash: bob.hash, task_id: a.body.id });
    expect(r.status).toBe(404);
    expect(r.body.status).toEqual({ code: 201, description: `Not found in the database: task ${a.body.id}` });
  });

  it('bumps the geo version', async () => {
    const v = geo();
    await create(ann.hash, minimal());
    expect(geo()).toBeGreaterThan(v);
  });
});

describe('task/update', () => {
  it('changes the fields; tracker_id and status are ignored', async () => {
    const a = (await create(ann.hash, minimal({ external_id: 'U-1' }))).body.id;
    const r = await s.call('task/update', { hash: ann.hash, task: minimal({ id: a, label: 'New', tracker_id: annTracker, status: 'done', location: { ...berlin, radius: 300 }, external_id: 'U-1' }) });
    expect(r.body).toEqual({ success: true, external_id_counts: [{ external_id: 'U-1', count: 1 }] });
    expect(row(a)).toMatchObject({ label: 'New', radius: 300, tracker_id: null, status: 'unassigned' });
  });
  it('keeps tags and fields when absent, replaces them when given', async () => {
    const tag = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'keep' } })).body.id;
    const a = (await create(ann.hash, minimal({ tags: [tag] }))).body.id;
    await s.call('task/update', { hash: ann.hash, task: minimal({ id: a }) });
    expect(s.store.tags.entityTags('task', [a]).get(a)).toEqual([tag]);
    await s.call('task/update', { hash: ann.hash, task: minimal({ id: a, tags: [] }) });
    expect(s.store.tags.entityTags('task', [a]).get(a)).toEqual([]);
  });
  it('201 for another user, 7 naming task.to, 255 once the task is done; nothing changes', async () => {
    const a = (await create(ann.hash, minimal())).body.id;
    expect((await s.call('task/update', { hash: bob.hash, task: minimal({ id: a, label: 'Bob' }) })).body.status.code).toBe(201);
    const bad = await s.call('task/update', { hash: ann.hash, task: minimal({ id: a, label: 'Bad', to: '2030-01-01 00:00:00' }) });
    expect(bad.body.errors).toEqual([{ parameter: 'task.to', error: 'must be after from' }]);
    expect((await s.call('task/update', { hash: ann.hash, task: minimal({ label: 'no id' }) })).body.errors[0].parameter).toBe('task.id');
    s.store.tasks.setOutcome(a, { status: 'done', at: Date.now() });
    const done = await s.call('task/update', { hash: ann.hash, task: minimal({ id: a, label: 'Late' }) });
    expect(done.status).toBe(409);
    expect(done.body.status.code).toBe(255);
    expect(row(a)!.label).toBe('Deliver');
  });
  it('create_form with an unknown template id is 201 (task-form.test.ts covers replace and delete)', async () => {
    const a = (await create(ann.hash, minimal())).body.id;
    expect((await s.call('task/update', { hash: ann.hash, task: minimal({ id: a, form_template_id: 3 }), create_form: true })).body.status.code).toBe(201);
  });
});

describe('task/delete', () => {
  it('deletes with its tags and field values; 201 for another user', async () => {
    const tag = (await s.call('tag/create', { hash: ann.hash, tag: { name: 'gone' } })).body.id;
    const a = (await create(ann.hash, minimal({ tags: [tag] }))).body.id;
    expect((await s.call('task/delete', { hash: bob.hash, task_id: a })).body.status.code).toBe(201);
    expect(row(a)).toBeDefined();
    expect((await s.call('task/delete', { hash: ann.hash, task_id: a })).body).toEqual({ success: true });
    expect(row(a)).toBeUndefined();
    expect(s.sql.prepare("SELECT COUNT(*) FROM entity_tags WHERE entity_type = 'task' AND entity_id = ?").pluck().get(a)).toBe(0);
    expect((await s.call('task/delete', { hash: ann.hash, task_id: a })).body.status.code).toBe(201);
  });
});

describe('task/assign', () => {
  it('assigns, replaces the tracker, unassigns with null', async () => {
    const a = (await create(ann.hash, minimal())).body.id;
    const other = s.addTracker(ann.id, '861000000000020');
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: annTracker })).body).toEqual({ success: true });
    expect(row(a)).toMatchObject({ status: 'assigned', tracker_id: annTracker });
    await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: other });
    expect(row(a)).toMatchObject({ status: 'assigned', tracker_id: other });
    await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: null });
    expect(row(a)).toMatchObject({ status: 'unassigned', tracker_id: null });
  });
  it('201 unknown task, 204 unknown or foreign tracker, 208 blocked, 236 no tasks in tariff, 255 done; nothing changes', async () => {
    const a = (await create(ann.hash, minimal())).body.id;
    expect((await s.call('task/assign', { hash: ann.hash, task_id: 999999, tracker_id: annTracker })).body.status.code).toBe(201);
    expect((await s.call('task/assign', { hash: bob.hash, task_id: a, tracker_id: bobTracker })).body.status.code).toBe(201);
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: 999999 })).body.status.code).toBe(204);
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: bobTracker })).body.status.code).toBe(204);
    const blocked = s.addTracker(ann.id, '861000000000021');
    s.store.trackers.setBlocked(sourceOf(blocked), true);
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: blocked })).body.status.code).toBe(208);
    const noTasks = s.addTracker(ann.id, '861000000000022');
    const tariff = s.store.tariffs.copy(1, 'no tasks 2');
    s.store.tariffs.update(tariff, { has_tasks: false });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(tariff, sourceOf(noTasks));
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: noTasks })).body.status.code).toBe(236);
    expect(row(a)).toMatchObject({ status: 'unassigned', tracker_id: null });
    s.store.tasks.setOutcome(a, { status: 'failed', at: Date.now() });
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: annTracker })).body.status.code).toBe(255);
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a, tracker_id: null })).body.status.code).toBe(255);
    expect(row(a)).toMatchObject({ status: 'failed', tracker_id: null });
  });
  it('7 when tracker_id is missing (null must be explicit)', async () => {
    const a = (await create(ann.hash, minimal())).body.id;
    expect((await s.call('task/assign', { hash: ann.hash, task_id: a })).body.errors[0].parameter).toBe('tracker_id');
  });
});

describe('task/count', () => {
  it("counts the user's tasks only", async () => {
    const c = (await s.call('task/count', { hash: bob.hash })).body.count;
    await create(bob.hash, minimal());
    expect((await s.call('task/count', { hash: bob.hash })).body).toEqual({ success: true, count: c + 1 });
    expect((await s.call('task/count', { hash: ann.hash })).body.count).toBe(s.store.tasks.count(ann.id));
  });
});

describe('for the telemetry core', () => {
  it('activeForTracker and setOutcome', async () => {
    const t = s.addTracker(ann.id, '861000000000030');
    const a = (await create(ann.hash, minimal({ tracker_id: t }))).body.id;
    expect(s.store.tasks.activeForTracker(t).map((r) => r.id)).toEqual([a]);
    const v = geo();
    s.store.tasks.setOutcome(a, { status: 'arrived', at: 1000, arrival_date: 1000, stay_duration: 30 });
    expect(row(a)).toMatchObject({ status: 'arrived', status_change_date: 1000, arrival_date: 1000, stay_duration: 30 });
    s.store.tasks.setOutcome(a, { status: 'done', at: 2000, stay_duration: 600, completion_date: 2000 });
    expect(row(a)).toMatchObject({ status: 'done', arrival_date: 1000, stay_duration: 600 });
    expect(geo()).toBe(v);
    expect(s.store.tasks.activeForTracker(t)).toEqual([]);
  });
});

describe('task/list', () => {
  let carol: { id: number; hash: string };
  let t1: number;
  let ids: Record<string, number>;
  let tag: number;
  let field: number;
  beforeAll(async () => {
    carol = await s.user('carol@example.com', { timeZone: 'Europe/Berlin' });
    t1 = s.addTracker(carol.id, '861000000000100', { label: 'Alpha van' });
    tag = (await s.call('tag/create', { hash: carol.hash, tag: { name: 'vip' } })).body.id;
    field = (await s.call('entity/fields/create', { hash: carol.hash, field: { entity_type: 'task', label: 'Gate', type: 'text' } })).body.id;
    const mk = async (label: string, over: Record<string, unknown>) => (await create(carol.hash, minimal({ label, ...over }))).body.id as number;
    ids = {
      berlin: await mk('Berlin drop', { tracker_id: t1, external_id: 'E1', from: '2030-03-01 08:00:00', to: '2030-03-01 10:00:00', tags: [tag] }),
      potsdam: await mk('Potsdam pickup', { location: { lat: 52.39, lng: 13.06, address: 'Potsdam', radius: 100 }, from: '2030-03-02 08:00:00', to: '2030-03-02 10:00:00', description: 'fragile glass' }),
      munich: await mk('Munich drop', { location: { lat: 48.137, lng: 11.575, address: 'München', radius: 100 }, external_id: 'E2', from: '2030-03-03 08:00:00', to: '2030-03-03 10:00:00', fields: { [field]: { type: 'text', value: 'North gate 7' } } }),
    };
    s.store.tasks.setOutcome(ids.munich, { status: 'done', at: Date.now(), arrival_date: Date.UTC(2030, 2, 3, 8, 30) });
  });
  const list = async (p: Record<string, unknown>) => {
    const r = await s.call('task/list', { hash: carol.hash, ...p });
    if (!r.body.success) throw new Error(JSON.stringify(r.body));
    return r.body as { list: any[]; count: number };
  };
  const labels = async (p: Record<string, unknown>) => (await list(p)).list.map((t) => t.label);

  it('lists all with count, ordered by id; items carry tags and fields', async () => {
    const r = await list({});
    expect(r.count).toBe(3);
    expect(r.list.map((t) => t.id)).toEqual([ids.berlin, ids.potsdam, ids.munich]);
    expect(r.list[0].tags).toEqual([tag]);
    expect(r.list[2].fields).toEqual({ [field]: { type: 'text', value: 'North gate 7' } });
    expect((await s.call('task/list', { hash: bob.hash })).body.list.map((t: any) => t.id)).not.toContain(ids.berlin);
  });
  it('external_id, statuses, trackers, tag_ids; null and empty filters are not applied', async () => {
    expect(await labels({ external_id: 'E2' })).toEqual(['Munich drop']);
    expect(await labels({ statuses: ['assigned', 'done'] })).toEqual(['Berlin drop', 'Munich drop']);
    expect(await labels({ trackers: [t1] })).toEqual(['Berlin drop']);
    expect(await labels({ trackers: [bobTracker] })).toEqual([]);
    expect(await labels({ tag_ids: [tag] })).toEqual(['Berlin drop']);
    expect((await list({ external_id: null, statuses: null, trackers: [], tag_ids: null, offset: null, limit: null })).count).toBe(3);
  });
  it('from/to: tasks whose window overlaps', async () => {
    expect(await labels({ from: '2030-03-02 09:00:00' })).toEqual(['Potsdam pickup', 'Munich drop']);
    expect(await labels({ to: '2030-03-02 08:00:00' })).toEqual(['Berlin drop', 'Potsdam pickup']);
    expect(await labels({ from: '2030-03-01 10:00:01', to: '2030-03-02 07:59:59' })).toEqual([]);
    const r = await s.call('task/list', { hash: carol.hash, from: '2030-03-02 00:00:00', to: '2030-03-01 00:00:00' });
    expect(r.body.errors[0].parameter).toBe('to');
  });
  it('conditions: eq, contains, in, period, not, or, nullable, custom field, employee', async () => {
    expect(await labels({ conditions: [{ type: 'contains', field: 'label', value: 'DROP' }] })).toEqual(['Berlin drop', 'Munich drop']);
    expect(await labels({ conditions: [{ type: 'eq', field: 'status', value: 'done' }] })).toEqual(['Munich drop']);
    expect(await labels({ conditions: [{ type: 'in', field: 'id', value: [ids.potsdam, ids.munich] }] })).toEqual(['Potsdam pickup', 'Munich drop']);
    expect(await labels({ conditions: [{ type: 'period', field: 'from', value: { from: '2030-03-02 08:00:00', to: '2030-03-03 08:00:00' } }] })).toEqual(['Potsdam pickup', 'Munich drop']);
    expect(await labels({ conditions: [{ type: 'not', condition: { type: 'eq', field: 'external_id', value: null } }] })).toEqual(['Berlin drop', 'Munich drop']);
    expect(await labels({ conditions: [{ type: 'eq', field: 'arrival_date', value: null }] })).toEqual(['Berlin drop', 'Potsdam pickup']);
    expect(await labels({ conditions: [{ type: 'or', conditions: [{ type: 'contains', field: 'location', value: 'potsdam' }, { type: 'contains', field: 'description', value: 'nothing' }] }] })).toEqual(['Potsdam pickup']);
    expect(await labels({ conditions: [{ type: 'contains', field: String(field), value: 'gate' }] })).toEqual(['Munich drop']);
    const emp = Number(s.sql.prepare("INSERT INTO employees (user_id, tracker_id, first_name, last_name) VALUES (?, ?, 'Zed', 'Driver')").run(carol.id, t1).lastInsertRowid);
    expect(await labels({ conditions: [{ type: 'eq', field: 'employee', value: emp }] })).toEqual(['Berlin drop']);
    expect(await labels({ sort: ['employee=desc'] })).toEqual(['Berlin drop', 'Potsdam pickup', 'Munich drop']);
    // conditions and filter must both match
    expect(await labels({ conditions: [{ type: 'contains', field: 'label', value: 'drop' }], filter: 'München' })).toEqual(['Munich drop']);
  });
  it('filter over built-in and custom fields; filters (label, description or address) all match', async () => {
    expect(await labels({ filter: 'fragile' })).toEqual(['Potsdam pickup']);
    expect(await labels({ filter: 'north gate' })).toEqual(['Munich drop']);
    expect(await labels({ filter: 'alpha van' })).toEqual(['Berlin drop']);
    expect(await labels({ filter: '100%' })).toEqual([]);
    expect(await labels({ filters: ['drop', 'münchen'] })).toEqual(['Munich drop']);
  });
  it('location: zone centers within the radius', async () => {
    expect(await labels({ location: { lat: 52.5, lng: 13.4, radius: 5_000 } })).toEqual(['Berlin drop']);
    expect(await labels({ location: { lat: 52.5, lng: 13.4, radius: 40_000 } })).toEqual(['Berlin drop', 'Potsdam pickup']);
    expect(await labels({ location: { lat: 52.5, lng: 13.4, radius: 1_000_000 } })).toEqual(['Berlin drop', 'Potsdam pickup', 'Munich drop']);
  });
  it('sort, offset and limit; count ignores paging', async () => {
    const r = await list({ sort: ['label=desc'], offset: 1, limit: 1 });
    expect(r).toMatchObject({ count: 3 });
    expect(r.list.map((t) => t.label)).toEqual(['Munich drop']);
    expect(await labels({ sort: ['status=asc', 'from=desc'] })).toEqual(['Berlin drop', 'Munich drop', 'Potsdam pickup']);
    expect(await labels({ offset: 2 })).toEqual(['Munich drop']);
  });
  it('hostile field names, sort keys and values: refused with 7 or matched literally; the table survives', async () => {
    const hostile = [
      [{ conditions: [{ type: 'eq', field: 'label; DROP TABLE tasks', value: 'x' }] }, 'conditions.0.field'],
      [{ conditions: [{ type: 'eq', field: 'constructor', value: 'x' }] }, 'conditions.0.field'],
      [{ conditions: [{ type: 'eq', field: '__proto__', value: 'x' }] }, 'conditions.0.field'],
      [{ sort: ['label; DROP TABLE tasks=asc'] }, 'sort.0'],
      [{ sort: ['label=asc; DELETE FROM tasks'] }, 'sort.0'],
      [{ sort: ['(SELECT 1)=desc'] }, 'sort.0'],
      [{ conditions: [{ type: 'eq', field: 'id', value: "1 OR 1=1" }] }, 'conditions.0.value'],
      [{ conditions: [{ type: 'contains', field: 'stay_duration', value: 'x' }] }, 'conditions.0.field'],
      [{ conditions: [{ type: 'period', field: 'label', value: { from: 'a', to: 'b' } }] }, 'conditions.0.field'],
      [{ conditions: [{ type: 'eq', field: 'from', value: '2030-13-01 00:00:00' }] }, 'conditions.0.value'],
      [{ statuses: ['open'] }, 'statuses.0'],
      [{ location: { lat: 100, lng: 0, radius: 10 } }, 'location.lat'],
      [{ limit: -1 }, 'limit'],
    ] as const;
    for (const [p, parameter] of hostile) {
      const r = await s.call('task/list', { hash: carol.hash, ...p });
      expect(r.body.status?.code, JSON.stringify(p)).toBe(7);
      expect(r.body.errors[0].parameter, JSON.stringify(p)).toBe(parameter);
    }
    expect(await labels({ conditions: [{ type: 'eq', field: 'label', value: "' OR 1=1 --" }] })).toEqual([]);
    expect(await labels({ conditions: [{ type: 'contains', field: 'label', value: "%' OR '1'='1" }] })).toEqual([]);
    expect(await labels({ filter: "'); DROP TABLE tasks; --" })).toEqual([]);
    expect(await labels({ external_id: "E1' OR '1'='1" })).toEqual([]);
    expect((await list({})).count).toBe(3);
  });
  it('too many conditions is 7', async () => {
    const c = { type: 'eq', field: 'id', value: 1 };
    const r = await s.call('task/list', { hash: carol.hash, conditions: Array.from({ length: 73 }, () => c) });
    expect(r.body.status.code).toBe(7);
  });
});

describe('task/batch_convert', () => {
  const call = (p: Record<string, unknown>) => s.call('task/batch_convert', { hash: ann.hash, ...p });
  it('converts rows in the default field order with the documented defaults; saves nothing', async () => {
    const before = taskCount();
    const r = await call({ batch: 'Drop\t2030-05-01 10:00:00\t\tAlexanderplatz, Berlin\t52.52\t13.405\tfirst\nPick\t2030-05-01 11:00\t2030-05-01 13:00:00\tHamburg\t53,55\t9,99\t' });
    expect(r.body.success).toBe(true);
    expect(r.body.limit_exceeded).toBe(false);
    expect(r.body.list).toEqual([
      { type: 'task', label: 'Drop', description: 'first', location: { lat: 52.52, lng: 13.405, address: 'Alexanderplatz, Berlin', radius: 100 }, from: '2030-05-01 10:00:00', to: '2030-05-01 11:00:00', external_id: null, max_delay: 0, min_stay_duration: 0, tracker_id: null },
      { type: 'task', label: 'Pick', description: '', location: { lat: 53.55, lng: 9.99, address: 'Hamburg', radius: 100 }, from: '2030-05-01 11:00:00', to: '2030-05-01 13:00:00', external_id: null, max_delay: 0, min_stay_duration: 0, tracker_id: null },
    ]);
    expect(taskCount()).toBe(before);
  });
  it('custom fields order and defaults; per-row errors', async () => {
    const r = await call({
      fields: ['external_id', 'label', 'lat', 'lng', 'from', 'to', 'radius'],
      default_radius: 250,
      default_duration: 30,
      default_max_delay: 5,
      default_min_stay_duration: 2,
      batch: ['X1\tOne\t10\t20\t2030-05-01 10:00:00', 'X2\t\t10\t20\t2030-05-01 10:00:00\t2030-05-01 09:00:00\t0', 'X3\tThree\t95\t20\tyesterday'].join('\n'),
    });
    const [a, b, c] = r.body.list;
    expect(a).toMatchObject({ external_id: 'X1', label: 'One', location: { lat: 10, lng: 20, radius: 250 }, to: '2030-05-01 10:30:00', max_delay: 5, min_stay_duration: 2 });
    expect(a.errors).toBeUndefined();
    expect(b.errors.map((e: any) => e.parameter).sort()).toEqual(['label', 'radius', 'to']);
    expect(c.errors.map((e: any) => e.parameter).sort()).toEqual(['from', 'lat']);
  });
  it('geocodes rows with an address only; unknown addresses are row errors; no_check allows no location', async () => {
    const r = await call({ fields: ['label', 'from', 'address'], batch: 'A\t2030-05-01 10:00:00\tBerlin\nB\t2030-05-01 10:00:00\tQqxzzy Nowhere Qqq\nC\t2030-05-01 10:00:00\t' });
    const [a, b, c] = r.body.list;
    expect(a.location.lat).toBeCloseTo(52.52, 0);
    expect(a.location.address).toBe('Berlin');
    expect(b.errors).toEqual([expect.objectContaining({ parameter: 'address' })]);
    expect(c.errors).toEqual([expect.objectContaining({ parameter: 'lat' })]);
    const nc = await call({ fields: ['label', 'from', 'address'], batch: 'C\t2030-05-01 10:00:00\t', location_check_mode: 'no_check' });
    expect(nc.body.list[0]).toMatchObject({ location: null });
    expect(nc.body.list[0].errors).toBeUndefined();
  });
  it('fills the address of rows with coordinates only', async () => {
    const r = await call({ fields: ['label', 'from', 'lat', 'lng'], batch: 'A\t2030-05-01 10:00:00\t52.52\t13.405' });
    expect(r.body.list[0].location.address).toMatch(/Berlin/);
  });
  it('employee_ids: round-robin over the employees\' trackers, valid rows only; vehicle_ids accepted', async () => {
    const t2 = s.addTracker(ann.id, '861000000000200');
    const e1 = Number(s.sql.prepare("INSERT INTO employees (user_id, tracker_id, first_name) VALUES (?, ?, 'A')").run(ann.id, annTracker).lastInsertRowid);
    const e2 = Number(s.sql.prepare("INSERT INTO employees (user_id, tracker_id, first_name) VALUES (?, ?, 'B')").run(ann.id, t2).lastInsertRowid);
    const e3 = Number(s.sql.prepare("INSERT INTO employees (user_id, first_name) VALUES (?, 'No tracker')").run(ann.id).lastInsertRowid);
    const rows = ['a', 'b', '', 'c'].map((l) => `${l}\t2030-05-01 10:00:00\t\t\t1\t2\t`).join('\n');
    const r = await call({ batch: rows, employee_ids: [e1, e3, e2], vehicle_ids: [1, 2] });
    expect(r.body.list.map((t: any) => t.tracker_id)).toEqual([annTracker, t2, null, annTracker]);
    const bobEmp = Number(s.sql.prepare("INSERT INTO employees (user_id, first_name) VALUES (?, 'Bob')").run(bob.id).lastInsertRowid);
    const bad = await call({ batch: rows, employee_ids: [e1, bobEmp] });
    expect(bad.body.errors).toEqual([{ parameter: 'employee_ids', error: `no such employees: ${bobEmp}` }]);
  });
  it('limit_exceeded when the batch is cut; 7 for an unknown field or bad defaults', async () => {
    const rows = Array.from({ length: 5001 }, (_, i) => `T${i}\t2030-05-01 10:00:00\t\t\t1\t2\t`).join('\n');
    const r = await call({ batch: rows });
    expect(r.body.limit_exceeded).toBe(true);
    expect(r.body.list).toHaveLength(5000);
    for (const [p, parameter] of [
      [{ fields: ['label', 'colour'] }, 'fields.1'],
      [{ fields: ['label', 'label'] }, 'fields'],
      [{ default_radius: 0 }, 'default_radius'],
      [{ default_duration: 0 }, 'default_duration'],
      [{ default_max_delay: -1 }, 'default_max_delay'],
      [{ location_check_mode: 'strict' }, 'location_check_mode'],
      [{ geocoder: 'bing' }, 'geocoder'], // 'google' is an alias of geocoder_type_1 since issue 23
    ] as const) {
      const x = await call({ batch: 'a', ...p });
      expect(x.body.status.code, parameter).toBe(7);
      expect(x.body.errors[0].parameter, parameter).toBe(parameter);
    }
  });
});
