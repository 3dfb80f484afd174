/**
 * Forms on tasks over real HTTP (issue 11; spec: Task forms, Forms, States and transitions;
 * docs/forms.md): task/form/create|delete|read|list, form/read, task/form/values/update, create_form
 * in task/create and task/update, and submissions through the domain function (the field app's
 * endpoint calls the same) with their refusals. Ownership across two users throughout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitForm } from '../../src/forms/submit.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let annTracker: number;
let tplA: number;
let tplB: number;
let tplZone: number;
let bobTpl: number;
const geocoder: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: 'Gedimino pr. 1, Vilnius' }), search: async () => [] };
const deps = () => ({ store: s.store, geocoder, now: Date.now });

const ZONE = { lat: 54.687, lng: 25.28, address: 'Cathedral square', radius: 100 };
const fields = [
  { id: 'note', label: 'Note', type: 'text', required: true, min_length: 2, max_length: 50 },
  { id: 'radio', label: 'OK?', type: 'radio_group', options: ['Yes', 'No'] },
  { id: 'pics', label: 'Photos', type: 'photo', max_files: 2 },
  { id: 'sep', label: 'Section', type: 'separator' },
];
const task = (over: Record<string, unknown> = {}) => ({ label: 'Inspect', description: 'Boiler', location: ZONE, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', ...over });
const newTask = async (over: Record<string, unknown> = {}, extra: Record<string, unknown> = {}, hash = ann.hash) => {
  const r = await s.call('task/create', { hash, task: task(over), ...extra });
  if (!r.body.success) throw new Error(JSON.stringify(r.body));
  return r.body.id as number;
};
const formCount = () => s.sql.prepare('SELECT COUNT(*) FROM forms').pluck().get() as number;
const formOf = (taskId: number) => s.store.forms.ofTask(taskId);
const setStatus = (taskId: number, status: string) => s.sql.prepare('UPDATE tasks SET status = ? WHERE id = ?').run(status, taskId);
const addFile = (formId: number, fieldId: string, o: { type?: string; state?: string; name?: string; mime?: string; user?: number } = {}) =>
  Number(
    s.sql
      .prepare("INSERT INTO files (user_id, type, state, name, max_size, size, mime_type, created, uploaded, form_id, field_id) VALUES (?, ?, ?, ?, 16777216, 1234, ?, ?, ?, ?, ?)")
      .run(o.user ?? ann.id, o.type ?? 'image', o.state ?? 'uploaded', o.name ?? 'photo.jpg', o.mime ?? 'image/jpeg', Date.now(), Date.now(), formId, fieldId).lastInsertRowid,
  );
const submit = (formId: number, values: Record<string, unknown>, o: { lat?: number; lng?: number; userId?: number; time?: number } = {}) =>
  submitForm(deps(), { userId: o.userId ?? ann.id, formId, values, location: { lat: o.lat ?? ZONE.lat, lng: o.lng ?? ZONE.lng }, time: o.time ?? Date.now(), origin: 'employee', timeZone: 'Europe/Vilnius' });
const good = { note: { type: 'text', value: 'All fine' }, radio: { type: 'radio_group', value_index: 0 } };

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'Europe/Vilnius' });
  bob = await s.user('bob@example.com');
  annTracker = s.addTracker(ann.id, '861000000000011', { label: 'Van 1' });
  const mk = async (hash: string, t: Record<string, unknown>) => (await s.call('form/template/create', { hash, template: t })).body.id as number;
  tplA = await mk(ann.hash, { label: 'Inspection', description: 'Monthly check', fields });
  tplB = await mk(ann.hash, { label: 'Delivery note', fields: [{ id: 'who', label: 'Received by', type: 'text' }] });
  tplZone = await mk(ann.hash, { label: 'On site only', fields, submit_in_zone: true });
  bobTpl = await mk(bob.hash, { label: 'Bob', fields });
});
afterAll(() => s.close());

describe('task/form/create, read, delete; form/read', () => {
  it('attaches a copy of the template; task/form/read and form/read answer the form; task/read carries it', async () => {
    const id = await newTask();
    expect((await s.call('task/form/read', { hash: ann.hash, task_id: id })).body).toEqual({ success: true, value: null, files: [] });
    expect((await s.call('task/read', { hash: ann.hash, task_id: id })).body.value.form).toBeUndefined();
    expect((await s.call('task/form/create', { hash: ann.hash, task_id: id, template_id: tplA })).body).toEqual({ success: true });
    const r = await s.call('task/form/read', { hash: ann.hash, task_id: id });
    const form = formOf(id)!;
    expect(r.body).toEqual({
      success: true,
      value: {
        id: form.id,
        label: 'Inspection',
        description: 'Monthly check',
        fields: [
          { id: 'note', label: 'Note', description: '', required: true, type: 'text', min_length: 2, max_length: 50 },
          { id: 'radio', label: 'OK?', description: '', required: false, type: 'radio_group', options: [{ label: 'Yes' }, { label: 'No' }] },
          { id: 'pics', label: 'Photos', description: '', required: false, type: 'photo', max_files: 2 },
          { id: 'sep', label: 'Section', description: '', required: false, type: 'separator' },
        ],
        created: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        submit_in_zone: false,
        task_id: id,
        template_id: tplA,
        template_version: 1,
        tracker_id: null,
        values: null,
        submitted: null,
        submit_location: null,
      },
      files: [],
    });
    expect((await s.call('form/read', { hash: ann.hash, id: form.id })).body).toEqual(r.body);
    expect((await s.call('task/read', { hash: ann.hash, task_id: id })).body.value.form).toEqual(r.body.value);
    expect((await s.call('task/form/delete', { hash: ann.hash, task_id: id })).body).toEqual({ success: true });
    expect(formOf(id)).toBeUndefined();
    expect((await s.call('task/form/read', { hash: ann.hash, task_id: id })).body.value).toBeNull();
  });

  it('later template edits do not change an attached form', async () => {
    const tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Old', fields } })).body.id;
    const id = await newTask();
    await s.call('task/form/create', { hash: ann.hash, task_id: id, template_id: tpl });
    await s.call('form/template/update', { hash: ann.hash, template: { id: tpl, label: 'New', fields: [] } });
    expect((await s.call('task/form/read', { hash: ann.hash, task_id: id })).body.value).toMatchObject({ label: 'Old', template_version: 1, template_id: tpl });
  });

  it('201: unknown task, another user\'s task or template, unknown template, a route; nothing stored', async () => {
    const id = await newTask();
    const bobTask = await newTask({}, {}, bob.hash);
    const route = (await s.call('task/route/create', { hash: ann.hash, route: { label: 'R' }, checkpoints: [task()] })).body.result;
    const before = formCount();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ task_id: 99999, template_id: tplA }, 'Not found in the database: task 99999'],
      [{ task_id: bobTask, template_id: tplA }, `Not found in the database: task ${bobTask}`],
      [{ task_id: id, template_id: bobTpl }, `Not found in the database: form template ${bobTpl}`],
      [{ task_id: id, template_id: 99999 }, 'Not found in the database: form template 99999'],
      [{ task_id: route.id, template_id: tplA }, `Not found in the database: task ${route.id} is a route; forms attach to tasks and checkpoints`],
    ];
    for (const [p, description] of cases) {
      const r = await s.call('task/form/create', { hash: ann.hash, ...p });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ success: false, status: { code: 201, description } });
    }
    expect(formCount()).toBe(before);
    // A checkpoint takes a form.
    const cp = (await s.call('task/read', { hash: ann.hash, task_id: route.id })).body.checkpoints[0].id;
    expect((await s.call('task/form/create', { hash: ann.hash, task_id: cp, template_id: tplA })).body.success).toBe(true);
    for (const p of [{ task_id: 99999 }, { task_id: bobTask }, { task_id: id }, { task_id: route.id }]) {
      expect((await s.call('task/form/delete', { hash: ann.hash, ...p })).body.status.code).toBe(201);
    }
    expect((await s.call('task/form/read', { hash: bob.hash, task_id: id })).body.status.code).toBe(201);
    expect((await s.call('form/read', { hash: bob.hash, id: formOf(cp)!.id })).body.status.code).toBe(201);
    expect((await s.call('form/read', { hash: ann.hash, id: 99999 })).body.status.code).toBe(201);
  });

  it('247 when the task already has a form; 255 outside unassigned, assigned, arrived', async () => {
    const id = await newTask({}, { create_form: true, task: task({ form_template_id: tplA }) });
    const r = await s.call('task/form/create', { hash: ann.hash, task_id: id, template_id: tplB });
    expect(r.status).toBe(409);
    expect(r.body.status).toEqual({ code: 247, description: `Entity already exists: task ${id} already has a form` });
    expect(formOf(id)!.template_id).toBe(tplA);
    for (const status of ['done', 'failed', 'delayed', 'faulty']) {
      setStatus(id, status);
      const del = await s.call('task/form/delete', { hash: ann.hash, task_id: id });
      expect(del.body.status, status).toEqual({ code: 255, description: `Invalid task state: task ${id} is ${status}; forms change only while unassigned, assigned or arrived` });
      expect(formOf(id)).toBeDefined();
    }
    const other = await newTask();
    setStatus(other, 'done');
    expect((await s.call('task/form/create', { hash: ann.hash, task_id: other, template_id: tplA })).body.status.code).toBe(255);
    expect(formOf(other)).toBeUndefined();
    setStatus(other, 'arrived');
    expect((await s.call('task/form/create', { hash: ann.hash, task_id: other, template_id: tplA })).body.success).toBe(true);
    expect((await s.call('task/form/delete', { hash: ann.hash, task_id: other })).body.success).toBe(true);
  });

  it('deleting the form deletes its files; deleting the task deletes the form', async () => {
    const id = await newTask({ form_template_id: tplA }, { create_form: true });
    const form = formOf(id)!;
    addFile(form.id, 'pics');
    await s.call('task/form/delete', { hash: ann.hash, task_id: id });
    expect(s.sql.prepare('SELECT COUNT(*) FROM files WHERE form_id = ?').pluck().get(form.id)).toBe(0);
    const id2 = await newTask({ form_template_id: tplA }, { create_form: true });
    const f2 = formOf(id2)!;
    await s.call('task/delete', { hash: ann.hash, task_id: id2 });
    expect(s.store.forms.get(ann.id, f2.id)).toBeUndefined();
  });
});

describe('create_form in task/create and task/update', () => {
  it('task/create: a form with a template; none with null; the template id is ignored without create_form', async () => {
    const a = await newTask({ form_template_id: tplA }, { create_form: true });
    expect(formOf(a)).toMatchObject({ template_id: tplA, label: 'Inspection' });
    expect(formOf(await newTask({ form_template_id: null }, { create_form: true }))).toBeUndefined();
    expect(formOf(await newTask({ form_template_id: tplA }))).toBeUndefined();
  });

  it("task/create: 201 for an unknown or another user's template; no task, no form stored", async () => {
    const tasks = () => s.sql.prepare('SELECT COUNT(*) FROM tasks').pluck().get() as number;
    const [t0, f0] = [tasks(), formCount()];
    for (const tpl of [bobTpl, 99999]) {
      const r = await s.call('task/create', { hash: ann.hash, task: task({ form_template_id: tpl }), create_form: true });
      expect(r.body.status).toEqual({ code: 201, description: `Not found in the database: form template ${tpl}` });
    }
    expect([tasks(), formCount()]).toEqual([t0, f0]);
  });

  it('task/update: replaces the form with another template, keeps it for the same one, deletes it with null', async () => {
    const id = await newTask({ form_template_id: tplA }, { create_form: true });
    const first = formOf(id)!;
    const update = (over: Record<string, unknown>, createForm = true) => s.call('task/update', { hash: ann.hash, task: task({ id, ...over }), create_form: createForm });
    expect((await update({ form_template_id: tplA })).body.success).toBe(true);
    expect(formOf(id)!.id).toBe(first.id);
    expect((await update({ form_template_id: tplB })).body.success).toBe(true);
    expect(formOf(id)).toMatchObject({ template_id: tplB, label: 'Delivery note' });
    expect((await update({ form_template_id: tplB }, false)).body.success).toBe(true);
    expect((await update({})).body.success).toBe(true); // create_form without form_template_id: unchanged
    expect(formOf(id)!.template_id).toBe(tplB);
    expect((await update({ form_template_id: bobTpl })).body.status.code).toBe(201);
    expect(formOf(id)!.template_id).toBe(tplB);
    expect((await update({ form_template_id: null })).body.success).toBe(true);
    expect(formOf(id)).toBeUndefined();
    setStatus(id, 'arrived');
    expect((await update({ form_template_id: tplA })).body.status.code).toBe(255);
    expect(formOf(id)).toBeUndefined();
  });

  it('task/list: the form condition is the template id; sorting by form goes by the form label', async () => {
    const a = await newTask({ label: 'FL-a', form_template_id: tplB }, { create_form: true }); // Delivery note
    const b = await newTask({ label: 'FL-b', form_template_id: tplA }, { create_form: true }); // Inspection
    const r = await s.call('task/list', { hash: ann.hash, filter: 'FL-', conditions: [{ type: 'eq', field: 'form', value: tplA }] });
    expect(r.body.list.map((t: { id: number }) => t.id)).toEqual([b]);
    const sorted = await s.call('task/list', { hash: ann.hash, filter: 'FL-', sort: ['form=asc'] });
    expect(sorted.body.list.map((t: { id: number }) => t.id)).toEqual([a, b]);
  });
});

describe("the form's tracker follows its task until submitted (migration 028)", () => {
  it('reassigning the task moves an unsubmitted form to the new tracker (form/read, list filters and order); a submitted form keeps its submitter', async () => {
    const tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Follows', fields } })).body.id as number;
    const second = s.addTracker(ann.id, '861000000000012', { label: 'Van 2' });
    await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Jonas', last_name: 'Jonaitis', tracker_id: second } });
    const open = await newTask({ label: 'Open', form_template_id: tpl, tracker_id: annTracker }, { create_form: true });
    const done = await newTask({ label: 'Done', form_template_id: tpl, tracker_id: annTracker }, { create_form: true });
    await submit(formOf(done)!.id, good);
    for (const id of [open, done]) expect((await s.call('task/assign', { hash: ann.hash, task_id: id, tracker_id: second })).body.success).toBe(true);
    expect((await s.call('form/read', { hash: ann.hash, id: formOf(open)!.id })).body.value.tracker_id).toBe(second);
    expect((await s.call('form/read', { hash: ann.hash, id: formOf(done)!.id })).body.value.tracker_id).toBe(annTracker);
    const list = (p: Record<string, unknown>) => s.call('task/form/list', { hash: ann.hash, form_template_id: tpl, ascending: true, include_unsubmitted: true, ...p });
    const jonas = await list({ filters: { employee_full_name: 'jonas' } });
    expect(jonas.body.list.map((i: { task: { id: number } }) => i.task.id)).toEqual([open]);
    // (an employee bound to a tracker gives it their name as its label)
    expect(jonas.body.list[0].tracker).toEqual({ id: second, label: 'Jonas Jonaitis' });
    expect((await list({ filters: { tracker_label: 'jonaitis' } })).body.list.map((i: { task: { id: number } }) => i.task.id)).toEqual([open]);
    // Ascending by employee name: the submitter's tracker has no employee here (no name sorts first), then Jonas.
    const byName = await list({ order_by: 'employee_full_name' });
    expect(byName.body.list.map((i: { task: { id: number }; employee: unknown }) => [i.task.id, i.employee])).toEqual([
      [done, null],
      [open, { id: expect.any(Number), first_name: 'Jonas', middle_name: '', last_name: 'Jonaitis' }],
    ]);
  });
});

describe('submissions (submitForm, as the field app calls it) and task/form/values/update', () => {
  it('242 naming each field with its code; nothing stored; then a valid submission is stored with location, address and files marked', async () => {
    const id = await newTask({ form_template_id: tplA, tracker_id: annTracker }, { create_form: true });
    const form = formOf(id)!;
    const pic = addFile(form.id, 'pics');
    const spare = addFile(form.id, 'pics');
    const pdf = addFile(form.id, 'pics', { type: 'file', name: 'a.pdf', mime: 'application/pdf' });
    const pending = addFile(form.id, 'pics', { state: 'in_progress' });
    const bad = await submit(form.id, { note: { type: 'text', value: 'x' }, radio: { type: 'radio_group', value_index: 5 }, pics: { type: 'photo', file_ids: [pdf] } }).catch((e) => e);
    expect(bad.code).toBe(242);
    expect(bad.extra.errors).toEqual([
      { field_id: 'note', code: 6, error: 'at least 2 characters, got 1' },
      { field_id: 'radio', code: 4, error: 'value_index must be 0 to 1, got 5' },
      { field_id: 'pics', code: 9, error: `file ${pdf} is not an image` },
    ]);
    expect((await submit(form.id, { ...good, pics: { type: 'photo', file_ids: [pending] } }).catch((e) => e)).extra.errors).toEqual([{ field_id: 'pics', code: 10, error: `file ${pending} is not uploaded (state in_progress)` }]);
    expect((await submit(form.id, { ...good, nope: 1 }).catch((e) => e)).extra.errors).toEqual([{ parameter: 'values.nope', error: 'the form has no field nope' }]);
    expect(formOf(id)).toMatchObject({ values_json: null, submitted: null });

    await submit(form.id, { ...good, pics: { type: 'photo', file_ids: [pic] } });
    const r = await s.call('task/form/read', { hash: ann.hash, task_id: id });
    expect(r.body.value).toMatchObject({
      values: { ...good, pics: { type: 'photo', file_ids: [pic] } },
      submitted: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      submit_location: { lat: ZONE.lat, lng: ZONE.lng, address: 'Gedimino pr. 1, Vilnius' },
    });
    expect(r.body.files.map((f: { id: number; bindings: unknown[] }) => [f.id, f.bindings])).toEqual(
      [pic, spare, pdf, pending].map((fid) => [fid, [{ type: 'form_field', form_id: form.id, field_id: 'pics', submitted: fid === pic }]]),
    );
    expect(r.body.files[0]).toEqual({
      id: pic, storage_id: pic, user_id: ann.id, type: 'image', created: expect.any(String), uploaded: expect.any(String), name: 'photo.jpg', size: 1234, mime_type: 'image/jpeg',
      // The fixture row has no preview made (its bytes were never uploaded through the upload route).
      metadata: null, state: 'uploaded', download_url: `${s.url}/v2/file/download/${pic}`, bindings: [{ type: 'form_field', form_id: form.id, field_id: 'pics', submitted: true }], previews: [],
    });
    // Resubmitting with another photo moves the marks.
    await submit(form.id, { ...good, pics: { type: 'photo', file_ids: [spare] } });
    const marks = s.sql.prepare('SELECT id, submitted FROM files WHERE form_id = ? ORDER BY id').all(form.id);
    expect(marks).toEqual([pic, spare, pdf, pending].map((fid) => ({ id: fid, submitted: fid === spare ? 1 : 0 })));
  });

  it("files of another user or another form are invalid references (8); another user's form is 201", async () => {
    const id = await newTask({ form_template_id: tplA }, { create_form: true });
    const other = await newTask({ form_template_id: tplA }, { create_form: true });
    const form = formOf(id)!;
    const foreign = addFile(formOf(other)!.id, 'pics');
    const bobs = addFile(form.id, 'pics', { user: bob.id });
    for (const f of [foreign, bobs, 999999]) {
      const e = await submit(form.id, { ...good, pics: { type: 'photo', file_ids: [f] } }).catch((x) => x);
      expect(e.extra.errors[0]).toMatchObject({ field_id: 'pics', code: 8 });
    }
    expect((await submit(form.id, good, { userId: bob.id }).catch((x) => x)).code).toBe(201);
    expect(formOf(id)!.submitted).toBeNull();
  });

  it('submit_in_zone: 13 outside the task zone (nothing stored), accepted inside', async () => {
    const id = await newTask({ form_template_id: tplZone }, { create_form: true });
    const form = formOf(id)!;
    const e = await submit(form.id, good, { lat: ZONE.lat + 0.01 }).catch((x) => x);
    expect(e.code).toBe(13);
    expect(e.message).toBe(`Operation not permitted: form ${form.id} can be submitted only in the task zone (1112 m from its center, radius 100 m)`);
    expect(formOf(id)!.submitted).toBeNull();
    await submit(form.id, good, { lat: ZONE.lat + 0.0005 });
    expect(formOf(id)!.submitted).not.toBeNull();
  });

  it('task/form/values/update corrects submitted values (242 and 7 like a submission; 255 before one; 201); time and place stay', async () => {
    const id = await newTask({ form_template_id: tplA }, { create_form: true });
    const update = (values: Record<string, unknown>, taskId = id, hash = ann.hash) => s.call('task/form/values/update', { hash, task_id: taskId, values });
    const before = await update(good);
    expect(before.status).toBe(409);
    expect(before.body.status.code).toBe(255);
    await submit(formOf(id)!.id, good, { time: Date.now() - 60_000 });
    const submitted = formOf(id)!;
    const refused = await update({ note: { type: 'text', value: '' } });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ success: false, status: { code: 242, description: 'Validation error: note' }, errors: [{ field_id: 'note', code: 1, error: 'required but empty' }] });
    const unknown = await update({ ...good, zzz: { type: 'text', value: 'a' } });
    expect(unknown.body).toMatchObject({ status: { code: 7 }, errors: [{ parameter: 'values.zzz', error: 'the form has no field zzz' }] });
    expect(formOf(id)!.values_json).toBe(submitted.values_json);
    const ok = await update({ note: { type: 'text', value: 'Corrected' } });
    expect(ok.body).toEqual({ success: true });
    expect(formOf(id)).toMatchObject({ values_json: JSON.stringify({ note: { type: 'text', value: 'Corrected' } }), submitted: submitted.submitted, submit_lat: submitted.submit_lat });
    expect((await update(good, id, bob.hash)).body.status.code).toBe(201);
    expect((await update(good, await newTask())).body.status).toEqual({ code: 201, description: expect.stringMatching(/has no form$/) });
  });
});

describe('task/form/list', () => {
  let tpl: number;
  let ids: number[];
  let zoneId: number;
  let placeId: number;
  beforeAll(async () => {
    tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Listed', description: 'for the list', fields } })).body.id;
    await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Ona', last_name: 'Petraitė', tracker_id: annTracker } });
    zoneId = (await s.call('zone/create', { hash: ann.hash, zone: { type: 'circle', label: 'Old town', address: '', radius: 500, center: { lat: ZONE.lat, lng: ZONE.lng } } })).body.id;
    placeId = (await s.call('place/create', { hash: ann.hash, place: { label: 'Cathedral', location: { lat: ZONE.lat, lng: ZONE.lng, address: 'Sq.', radius: 50 } } })).body.id;
    // Bob's zone at the same spot is never listed for ann.
    await s.call('zone/create', { hash: bob.hash, zone: { type: 'circle', label: 'Bob zone', address: '', radius: 500, center: { lat: ZONE.lat, lng: ZONE.lng } } });
    ids = [];
    for (const [i, label] of ['Charlie', 'alpha', 'Bravo'].entries()) {
      const id = await newTask({ label, form_template_id: tpl, tracker_id: annTracker, from: `2030-02-0${i + 1} 09:00:00`, to: `2030-02-0${i + 1} 12:00:00` }, { create_form: true });
      ids.push(id);
    }
    // Submitted: the first (inside the zone, earlier) and the third (far away, later); the second never.
    await submit(formOf(ids[0])!.id, good, { time: Date.UTC(2026, 1, 1, 8) });
    await submit(formOf(ids[2])!.id, good, { time: Date.UTC(2026, 1, 3, 8), lat: 10, lng: 10 });
  });
  const list = (p: Record<string, unknown>, hash = ann.hash) => s.call('task/form/list', { hash, form_template_id: tpl, ascending: true, include_unsubmitted: false, ...p });
  const idsOf = (r: { body: { list: Array<{ task: { id: number } }> } }) => r.body.list.map((i) => i.task.id);

  it('items: employee, task, tracker, vehicle null, form, submit_places through the geofence index', async () => {
    const r = await list({});
    expect(r.body.count).toBe(2);
    expect(idsOf(r)).toEqual([ids[0], ids[2]]);
    const item = r.body.list[0];
    expect(item).toEqual({
      employee: { id: expect.any(Number), first_name: 'Ona', middle_name: '', last_name: 'Petraitė' },
      task: { id: ids[0], label: 'Charlie', from: '2030-02-01 09:00:00', to: '2030-02-01 12:00:00', creation_date: expect.any(String), arrival_date: null, address: 'Cathedral square', status: expect.any(String), completion_date: null, fact_duration: 'PT0S' },
      tracker: { id: annTracker, label: expect.any(String) },
      vehicle: null,
      form: expect.objectContaining({ id: formOf(ids[0])!.id, label: 'Listed', values: good, submitted: '2026-02-01 10:00:00' }),
      submit_places: { location: { lat: ZONE.lat, lng: ZONE.lng, address: 'Gedimino pr. 1, Vilnius' }, places: [{ id: placeId, label: 'Cathedral' }], zones: [{ id: zoneId, label: 'Old town' }] },
    });
    expect(r.body.list[1].submit_places).toEqual({ location: { lat: 10, lng: 10, address: 'Gedimino pr. 1, Vilnius' }, places: [], zones: [] });
  });

  it('include_unsubmitted, ascending, order_by, paging, count', async () => {
    const all = await list({ include_unsubmitted: true });
    expect(all.body.count).toBe(3);
    expect(all.body.list.find((i: { task: { id: number } }) => i.task.id === ids[1])).toMatchObject({ submit_places: null, form: { values: null, submitted: null, submit_location: null } });
    expect(idsOf(await list({ include_unsubmitted: true, order_by: 'task_label' }))).toEqual([ids[1], ids[2], ids[0]]);
    expect(idsOf(await list({ include_unsubmitted: true, order_by: 'task_label', ascending: false }))).toEqual([ids[0], ids[2], ids[1]]);
    expect(idsOf(await list({ ascending: false }))).toEqual([ids[2], ids[0]]);
    expect(idsOf(await list({ include_unsubmitted: true, order_by: 'task_from', offset: 1, limit: 1 }))).toEqual([ids[1]]);
    const page = await list({ include_unsubmitted: true, limit: 1 });
    expect([page.body.list.length, page.body.count]).toEqual([1, 3]);
    for (const order_by of ['task_id', 'created', 'submitted', 'task_address', 'submit_address', 'employee_full_name', 'vehicle_label', 'tracker_label', 'task_label', 'task_creation_date', 'task_from', 'task_to', 'task_arrival_date', 'task_completion_date', 'form_label', 'form_description']) {
      const r = await list({ include_unsubmitted: true, order_by });
      expect(r.body.count, order_by).toBe(3);
      expect(new Set(idsOf(r)), order_by).toEqual(new Set(ids));
    }
  });

  it('filters (partial, case-insensitive) and the six periods', async () => {
    const f = async (filters: Record<string, unknown>) => idsOf(await list({ include_unsubmitted: true, order_by: 'task_id', filters }));
    expect(await f({ task_label: 'RAV' })).toEqual([ids[2]]);
    expect(await f({ employee_full_name: 'ona pet' })).toEqual(ids);
    expect(await f({ form_label: 'list', form_description: 'for the' })).toEqual(ids);
    expect(await f({ submit_address: 'Gedimino' })).toEqual([ids[0], ids[2]]);
    expect(await f({ task_address: 'cathedral' })).toEqual(ids);
    expect(await f({ tracker_label: 'zzz' })).toEqual([]);
    expect(await f({ vehicle_label: 'x' })).toEqual([]);
    expect(await f({ task_id: ids[1] })).toEqual([ids[1]]);
    expect(await f({ task_label: '%' })).toEqual([]);
    const p = async (name: string, from: string, to: string) => idsOf(await list({ include_unsubmitted: true, order_by: 'task_id', [name]: { from, to } }));
    expect(await p('submit_period', '2026-02-01 00:00:00', '2026-02-02 00:00:00')).toEqual([ids[0]]);
    expect(await p('task_from_period', '2030-02-02 00:00:00', '2030-02-03 23:00:00')).toEqual([ids[1], ids[2]]);
    expect(await p('task_to_period', '2030-02-03 12:00:00', '2030-02-03 12:00:00')).toEqual([ids[2]]);
    expect(await p('task_creation_period', '2000-01-01 00:00:00', '2100-01-01 00:00:00')).toEqual(ids);
    expect(await p('task_arrival_period', '2000-01-01 00:00:00', '2100-01-01 00:00:00')).toEqual([]);
    expect(await p('task_completion_period', '2000-01-01 00:00:00', '2100-01-01 00:00:00')).toEqual([]);
  });

  it('task label and address filters follow a task changed after its form was made; no feed row for the form from it', async () => {
    const id = await newTask({ label: 'Old pump', location: { ...ZONE, address: 'Harbour road 4' }, tracker_id: annTracker, form_template_id: tplA }, { create_form: true });
    const f = async (filters: Record<string, unknown>) => {
      const r = await s.call("task/form/list", { hash: ann.hash, task_ids: [id], ascending: true, include_unsubmitted: true, filters });
      if (!r.body.success) throw new Error(JSON.stringify(r.body));
      return idsOf(r);
    };
    expect([await f({ task_label: 'old pump' }), await f({ task_address: 'harbour' })]).toEqual([[id], [id]]);
    const feedRows = () => s.sql.prepare('SELECT COUNT(*) FROM app_task_feed WHERE task_id = ?').pluck().get(id) as number;
    const feedBefore = feedRows();
    const r = await s.call('task/update', { hash: ann.hash, task: task({ id, label: 'New valve', location: { ...ZONE, address: 'Mill street 9' }, tracker_id: annTracker, form_template_id: tplA }) });
    expect(r.body).toEqual({ success: true });
    expect([await f({ task_label: 'old pump' }), await f({ task_address: 'harbour' })]).toEqual([[], []]);
    expect([await f({ task_label: 'NEW VALVE' }), await f({ task_address: 'mill st' })]).toEqual([[id], [id]]);
    expect(feedRows()).toBe(feedBefore + 1); // the task's change, once: the form's copies of its text add no row
  });

  it('a text filter with paging: count is every match, pages are slices of the whole filtered order', async () => {
    const base = { include_unsubmitted: true, filters: { task_address: 'cathedral' } };
    for (const order_by of ['task_id', 'submitted', 'task_label', 'form_label']) {
      const whole = await list({ ...base, order_by });
      expect(whole.body.count, order_by).toBe(3);
      const pages = [await list({ ...base, order_by, limit: 2 }), await list({ ...base, order_by, offset: 2, limit: 2 }), await list({ ...base, order_by, offset: 5, limit: 2 })];
      expect(pages.map((r) => r.body.count), order_by).toEqual([3, 3, 3]);
      expect(pages.flatMap((r) => idsOf(r)), order_by).toEqual(idsOf(whole));
    }
  });

  it('task_ids alone, or with the template; another user sees nothing', async () => {
    const r = await s.call('task/form/list', { hash: ann.hash, task_ids: [ids[1], ids[2]], ascending: true, include_unsubmitted: true });
    expect(idsOf(r)).toEqual([ids[1], ids[2]]);
    expect(idsOf(await list({ task_ids: [ids[0]] }))).toEqual([ids[0]]);
    const bobs = await s.call('task/form/list', { hash: bob.hash, task_ids: ids, ascending: true, include_unsubmitted: true });
    expect(bobs.body).toEqual({ success: true, list: [], count: 0 });
  });

  it('ordered by task label or from: paging walks the tasks index when matches are dense, with the same order as a full sort (ties by task id)', async () => {
    const carol = await s.user('carol@example.com', { timeZone: 'Europe/Vilnius' });
    const ctpl = (await s.call('form/template/create', { hash: carol.hash, template: { label: 'C', fields } })).body.id;
    const mine: number[] = [];
    for (const [label, day] of [['Same', 3], ['same', 1], ['Apple', 2], ['Zulu', 1], ['Same', 2]] as const) {
      mine.push(await newTask({ label, form_template_id: ctpl, from: `2030-03-0${day} 09:00:00`, to: `2030-03-0${day} 12:00:00` }, { create_form: true }, carol.hash));
    }
    const page = async (p: Record<string, unknown>) =>
      idsOf(await s.call('task/form/list', { hash: carol.hash, form_template_id: ctpl, include_unsubmitted: true, ...p }));
    for (const order_by of ['task_label', 'task_from']) {
      for (const ascending of [true, false]) {
        const full = await page({ order_by, ascending }); // one sort over all matches
        const paged: number[] = [];
        for (let offset = 0; offset < 5; offset++) paged.push(...(await page({ order_by, ascending, offset, limit: 1 }))); // the index walk
        expect(paged, `${order_by} ${ascending}`).toEqual(full);
        expect(new Set(full)).toEqual(new Set(mine));
      }
    }
    expect(await page({ order_by: 'task_label', ascending: true })).toEqual([mine[2], mine[0], mine[1], mine[4], mine[3]]);
  });

  it('ordered by employee name: trackers read in name order (NOCASE, so equal names interleave by form id; no employee first ascending); pages are slices of the whole', async () => {
    const dora = await s.user('dora@example.com', { timeZone: 'Europe/Vilnius' });
    const dtpl = (await s.call('form/template/create', { hash: dora.hash, template: { label: 'D', fields } })).body.id;
    const trackers = [0, 1, 2, 3].map((i) => s.addTracker(dora.id, `86100000000100${i}`, { label: `D${i}` }));
    for (const [i, [first_name, last_name]] of [['Anna', 'Berg'], ['anna', 'berg'], ['Zed', 'Ode']].entries()) {
      expect((await s.call('employee/create', { hash: dora.hash, employee: { first_name, last_name, tracker_id: trackers[i] } })).body.success).toBe(true);
    }
    // The tracker of each task in creation order (null: none); tracker 3 has no employee.
    const of = [0, 2, 1, 3, null, 0, 1, 2, 3, 1];
    const mine: number[] = [];
    for (const [i, k] of of.entries()) {
      mine.push(await newTask({ label: `E${i}`, form_template_id: dtpl, ...(k === null ? {} : { tracker_id: trackers[k] }) }, { create_form: true }, dora.hash));
    }
    const rank = (k: number | null) => (k === null || k === 3 ? 0 : k === 2 ? 2 : 1);
    const asc = mine.map((id, i) => ({ id, r: rank(of[i]) })).sort((a, b) => a.r - b.r || a.id - b.id).map((x) => x.id);
    const page = async (p: Record<string, unknown>) =>
      idsOf(await s.call('task/form/list', { hash: dora.hash, form_template_id: dtpl, include_unsubmitted: true, order_by: 'employee_full_name', ...p }));
    for (const ascending of [true, false]) {
      const whole = await page({ ascending });
      expect(whole, `ascending ${ascending}`).toEqual(ascending ? asc : [...asc].reverse());
      for (let offset = 0; offset < whole.length; offset += 3) expect(await page({ ascending, offset, limit: 3 })).toEqual(whole.slice(offset, offset + 3));
    }
    // A text filter on a task column: the groups are counted over the same join.
    expect(await page({ ascending: true, filters: { task_label: 'e1' } })).toEqual([mine[1]]);
  });

  it('7 naming the parameter; 204 for an unknown or another user\'s template', async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ form_template_id: null }, 'form_template_id'],
      [{ ascending: undefined }, 'ascending'],
      [{ include_unsubmitted: 'maybe' }, 'include_unsubmitted'],
      [{ order_by: 'colour' }, 'order_by'],
      [{ task_ids: Array.from({ length: 501 }, (_, i) => i + 1) }, 'task_ids'],
      [{ submit_period: { from: '2030-02-02 00:00:00', to: '2030-02-01 00:00:00' } }, 'submit_period.to'],
      [{ task_from_period: { from: 'yesterday', to: '2030-02-01 00:00:00' } }, 'task_from_period.from'],
      [{ filters: { task_id: 'x' } }, 'filters.task_id'],
      [{ limit: -1 }, 'limit'],
    ];
    for (const [p, parameter] of bad) {
      const r = await list(p);
      expect(r.body.status?.code, parameter).toBe(7);
      expect(r.body.errors.map((e: { parameter: string }) => e.parameter), parameter).toContain(parameter);
    }
    for (const t of [bobTpl, 99999]) {
      const r = await list({ form_template_id: t });
      expect(r.status).toBe(404);
      expect(r.body.status).toEqual({ code: 204, description: `Entity not found: form template ${t}` });
    }
  });
});
