/**
 * The field app's forms, files and check-ins over real HTTP (docs/field-app.md, "Forms and
 * check-ins"): the refusals of each call, with nothing stored, and that an app reaches only its own
 * tracker's tasks and forms. The whole happy path is test/api/field-app-day.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { jpeg, upload } from '../files/fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let tpl: number;
let zoneTpl: number;
let bobTpl: number;
let mine: { tracker: number; token: string };
let other: { tracker: number; token: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'UTC' });
  bob = await s.user('bob@example.com');
  const fields = [
    { id: 'note', label: 'Note', type: 'text', required: true, min_length: 1, max_length: 50 },
    { id: 'pics', label: 'Photos', type: 'photo', max_files: 2 },
  ];
  tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Check', fields } })).body.id;
  zoneTpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'On site', fields, submit_in_zone: true } })).body.id;
  bobTpl = (await s.call('form/template/create', { hash: bob.hash, template: { label: 'Bob', fields } })).body.id;
  mine = await phone('phone-a');
  other = await phone('phone-b');
});
afterAll(() => s.close());

async function phone(deviceId: string) {
  const tracker = s.addTracker(ann.id, deviceId, { protocol: 'osmand' });
  const { code } = (await s.call('tracker/app/activation/create', { hash: ann.hash, tracker_id: tracker })).body;
  return { tracker, token: (await s.call('app/activate', { code })).body.token as string };
}
const ZONE = { lat: 54.687, lng: 25.28, address: 'Square', radius: 100 };
async function task(trackerId: number, templateId: number | null = tpl): Promise<number> {
  const r = await s.call('task/create', { hash: ann.hash, ...(templateId ? { create_form: true } : {}), task: { label: 'T', location: ZONE, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', tracker_id: trackerId, ...(templateId ? { form_template_id: templateId } : {}) } });
  expect(r.body.success).toBe(true);
  return r.body.id;
}
const app = (token: string, path: string, p: Record<string, unknown> = {}) => s.call(path, { hash: token, ...p });
const count = (table: string) => s.sql.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const code = (r: { body: { status?: { code: number } } }) => r.body.status?.code;
const note = { note: { type: 'text', value: 'ok' } };
const at = { lat: ZONE.lat, lng: ZONE.lng };

describe('app/form/submit', () => {
  it("only the tracker's own tasks, with a form (201); 13 outside the zone when the form asks; 7 for a bad time; nothing stored", async () => {
    const foreign = await task(other.tracker);
    const bare = await task(mine.tracker, null);
    const zoned = await task(mine.tracker, zoneTpl);
    expect(code(await app(mine.token, 'app/form/submit', { task_id: foreign, values: note, location: at }))).toBe(201);
    expect(code(await app(mine.token, 'app/form/submit', { task_id: bare, values: note, location: at }))).toBe(201);
    expect(code(await app(mine.token, 'app/form/submit', { task_id: 999_999, values: note, location: at }))).toBe(201);
    const far = await app(mine.token, 'app/form/submit', { task_id: zoned, values: note, location: { lat: 54.7, lng: 25.3 } });
    expect(far.body).toMatchObject({ success: false, status: { code: 13 }, distance: expect.any(Number), radius: 100 });
    expect((await app(mine.token, 'app/form/submit', { task_id: zoned, values: note, location: at, time: 'now' })).body.errors).toEqual([{ parameter: 'time', error: expect.any(String) }]);
    expect((await app(mine.token, 'app/form/submit', { task_id: zoned, values: note, location: { lat: 91, lng: 0 } })).body.errors[0].parameter).toBe('location.lat');
    expect((await app(mine.token, 'app/form/submit', { task_id: zoned, values: { nope: { type: 'text', value: 'x' } }, location: at })).body.errors).toEqual([{ parameter: 'values.nope', error: expect.any(String) }]);
    expect(s.sql.prepare('SELECT count(*) FROM forms WHERE submitted IS NOT NULL').pluck().get()).toBe(0);
    const ok = await app(mine.token, 'app/form/submit', { task_id: zoned, values: note, location: at, time: '2030-01-10 09:30:00' });
    expect(ok.body).toMatchObject({ success: true, value: { task_id: zoned, tracker_id: mine.tracker, values: note } });
  });
});

describe('app/form/file/create and app/checkin/file/create', () => {
  it("files only for the tracker's forms (201 for another tracker's or user's); the answer is form/file/create's", async () => {
    const foreignTask = await task(other.tracker);
    const foreignForm = s.store.forms.ofTask(foreignTask)!.id;
    const before = count('files');
    expect(code(await app(mine.token, 'app/form/file/create', { form_id: foreignForm, field_id: 'pics', size: 100 }))).toBe(201);
    const ownTask = await task(mine.tracker);
    const form = s.store.forms.ofTask(ownTask)!.id;
    expect(code(await app(mine.token, 'app/form/file/create', { form_id: form, field_id: 'nope', size: 100 }))).not.toBe(200);
    expect((await app(mine.token, 'app/form/file/create', { form_id: form, field_id: 'pics', size: 0 })).body.errors[0].parameter).toBe('size');
    expect(count('files')).toBe(before);
    const ok = await app(mine.token, 'app/form/file/create', { form_id: form, field_id: 'pics', size: 100, filename: 'a.jpg' });
    expect(ok.body).toEqual({ success: true, file_id: expect.any(Number), url: expect.stringMatching(/\/v2\/file\/upload\/\d+$/), expires: expect.any(String), file_field_name: 'file', fields: { token: expect.any(String) } });
    expect(code(await app(mine.token, 'app/checkin/file/create', { size: 100, type: 'video' }))).toBe(7);
    expect(code(await app(mine.token, 'app/checkin/file/create', { size: 17 * 1024 * 1024, type: 'image' }))).toBe(271);
  });
});

describe('app/checkin/form/create and app/checkin/create', () => {
  it('a check-in form from an own template (201 for another user\'s); files announced on it; the check-in binds the form', async () => {
    expect(code(await app(mine.token, 'app/checkin/form/create', { template_id: bobTpl }))).toBe(201);
    const form = (await app(mine.token, 'app/checkin/form/create', { template_id: tpl })).body.value;
    expect(form).toMatchObject({ template_id: tpl, task_id: null, tracker_id: mine.tracker, values: null });
    // Another app cannot use it.
    expect(code(await app(other.token, 'app/form/file/create', { form_id: form.id, field_id: 'pics', size: 100 }))).toBe(201);
    const photo = await jpeg();
    const f = (await app(mine.token, 'app/form/file/create', { form_id: form.id, field_id: 'pics', size: photo.length, filename: 'p.jpg' })).body;
    expect((await upload(f.url, f.fields, photo, { filename: 'p.jpg', type: 'image/jpeg' })).status).toBe(200);
    const r = await app(mine.token, 'app/checkin/create', { location: at, form: { form_id: form.id, values: { ...note, pics: { type: 'photo', file_ids: [f.file_id] } } } });
    expect(r.body).toMatchObject({ success: true, id: expect.any(Number), form: { id: form.id, values: { pics: { type: 'photo', file_ids: [f.file_id] } } } });
    // Used once only.
    expect(code(await app(mine.token, 'app/checkin/create', { location: at, form: { form_id: form.id, values: note } }))).toBe(247);
  });

  it('refusals store neither a check-in nor a form: bad files (7), both or neither form id (7), a task form (7), invalid values (242)', async () => {
    const checkins = count('checkins');
    const forms = count('forms');
    expect((await app(mine.token, 'app/checkin/create', { location: at, file_ids: [999_999] })).body.errors[0].parameter).toBe('file_ids');
    expect((await app(mine.token, 'app/checkin/create', { location: at, file_ids: [999_999], form: { template_id: tpl, values: note } })).body.errors[0].parameter).toBe('file_ids');
    expect((await app(mine.token, 'app/checkin/create', { location: at, form: { template_id: tpl, form_id: 1, values: note } })).body.errors[0].parameter).toBe('form');
    expect((await app(mine.token, 'app/checkin/create', { location: at, form: { values: note } })).body.errors[0].parameter).toBe('form');
    const taskForm = s.store.forms.ofTask(await task(mine.tracker))!.id;
    expect((await app(mine.token, 'app/checkin/create', { location: at, form: { form_id: taskForm, values: note } })).body.errors[0].parameter).toBe('form.form_id');
    expect((await app(mine.token, 'app/checkin/create', { location: at, form: { template_id: tpl, values: {} } })).body).toMatchObject({ status: { code: 242 }, errors: [{ field_id: 'note', code: 1 }] });
    expect((await app(mine.token, 'app/checkin/create', { location: { lat: 0, lng: 181 } })).body.errors[0].parameter).toBe('location.lng');
    expect((await app(mine.token, 'app/checkin/create', { location: at, comment: 'x'.repeat(1025) })).body.errors[0].parameter).toBe('comment');
    expect(count('checkins')).toBe(checkins);
    expect(count('forms')).toBe(forms + 1); // the task's form made above
  });

  it('a check-in without a form or files, at the time the app gives', async () => {
    const r = await app(mine.token, 'app/checkin/create', { location: { ...at, precision: 12 }, comment: 'Arrived', time: '2030-01-10 09:15:00' });
    expect(r.body).toEqual({ success: true, id: expect.any(Number), form: null });
    const read = await s.call('checkin/read', { hash: ann.hash, checkin_id: r.body.id });
    expect(read.body.value).toMatchObject({ tracker_id: mine.tracker, marker_time: '2030-01-10 09:15:00', comment: 'Arrived', location: { lat: at.lat, lng: at.lng, precision: 12 }, files: [], form_id: null });
  });
});

describe('a refused check-in leaves its prepared form usable', () => {
  it('bad files refuse before the form is submitted; the same form then works', async () => {
    const form = (await app(mine.token, 'app/checkin/form/create', { template_id: tpl })).body.value;
    expect((await app(mine.token, 'app/checkin/create', { location: at, file_ids: [999_999], form: { form_id: form.id, values: note } })).body.errors[0].parameter).toBe('file_ids');
    expect(s.store.forms.get(ann.id, form.id)!.submitted).toBeNull();
    expect((await app(mine.token, 'app/checkin/create', { location: at, form: { form_id: form.id, values: note } })).body.success).toBe(true);
  });
});
