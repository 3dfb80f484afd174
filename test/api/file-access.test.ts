/**
 * Who may take and who may read a file (issue 23, docs/files.md#who-may-bind-and-read-a-file):
 * a check-in file announced for a tracker is that tracker's until bound (another phone of the same
 * account cannot put it on its check-in), and a file bound to a check-in, or to a check-in's form,
 * is read only with the right that guards checkin/read: by file/read, its download URL and its
 * preview alike. Real HTTP, real SQLite; every refusal leaves the data as it was.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg, upload } from '../files/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let clerk: { id: number; hash: string };
let staff: { id: number; hash: string };
let x: { tracker: number; token: string };
let y: { tracker: number; token: string };
let tpl: number;
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'UTC' });
  clerk = await s.user('clerk@example.com', { parent: 'ann@example.com', rights: ['task_update'] });
  staff = await s.user('staff@example.com', { parent: 'ann@example.com', rights: ['employee_update'] });
  x = await phone('phone-x');
  y = await phone('phone-y');
  const fields = [
    { id: 'note', label: 'Note', type: 'text', required: false },
    { id: 'pics', label: 'Photos', type: 'photo', max_files: 2 },
  ];
  tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Check', fields } })).body.id;
});
afterAll(() => s?.close());

async function phone(deviceId: string) {
  const tracker = s.addTracker(ann.id, deviceId, { protocol: 'osmand' });
  const { code } = (await s.call('tracker/app/activation/create', { hash: ann.hash, tracker_id: tracker })).body;
  return { tracker, token: (await s.call('app/activate', { code })).body.token as string };
}
const at = { lat: 54.687, lng: 25.28 };
const count = (table: string) => s.sql.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const fileRow = (id: number) => s.sql.prepare('SELECT state, checkin_id, form_id FROM files WHERE id = ?').get(id);

/** A check-in photo announced by a phone's app (or a user's session) and uploaded; answers its id. */
async function uploaded(via: { token?: string; hash?: string; tracker_id?: number }): Promise<number> {
  const photo = await jpeg();
  const path = via.token ? 'app/checkin/file/create' : 'checkin/file/create';
  const a = (await s.call(path, { hash: via.token ?? via.hash, size: photo.length, filename: 'p.jpg', type: 'image', ...(via.tracker_id ? { tracker_id: via.tracker_id } : {}) })).body;
  expect((await upload(a.url, a.fields, photo, { filename: 'p.jpg', type: 'image/jpeg' })).status).toBe(200);
  return a.file_id;
}

const notFree = (ids: number[]) => ({
  success: false,
  status: { code: 7, description: 'Invalid parameters: file_ids' },
  errors: [{ parameter: 'file_ids', error: `not uploaded files of the user free to bind: ${ids.join(', ')} (a file announced for another tracker stays that tracker's until bound)` }],
});

describe('a phone cannot take another phone\'s upload', () => {
  it("X's check-in with Y's file: 7 naming file_ids, no check-in, the file free; Y's own check-in then carries it", async () => {
    const f = await uploaded({ token: y.token });
    const checkins = count('checkins');
    expect((await s.call('app/checkin/create', { hash: x.token, location: at, file_ids: [f] })).body).toEqual(notFree([f]));
    // With a form made in the same call: refused before the form is submitted, no form left.
    const forms = count('forms');
    expect((await s.call('app/checkin/create', { hash: x.token, location: at, file_ids: [f], form: { template_id: tpl, values: {} } })).body).toEqual(notFree([f]));
    expect([count('checkins'), count('forms'), fileRow(f)]).toEqual([checkins, forms, { state: 'uploaded', checkin_id: null, form_id: null }]);
    const mine = await s.call('app/checkin/create', { hash: y.token, location: at, file_ids: [f] });
    expect(mine.body).toMatchObject({ success: true, id: expect.any(Number) });
    expect(fileRow(f)).toEqual({ state: 'uploaded', checkin_id: mine.body.id, form_id: null });
  });

  it('a file a user announced for tracker Y is Y\'s too; one announced for no tracker goes with any of the owner\'s', async () => {
    const forY = await uploaded({ hash: ann.hash, tracker_id: y.tracker });
    expect((await s.call('app/checkin/create', { hash: x.token, location: at, file_ids: [forY] })).body).toEqual(notFree([forY]));
    expect(fileRow(forY)).toEqual({ state: 'uploaded', checkin_id: null, form_id: null });
    const anyone = await uploaded({ hash: ann.hash });
    expect((await s.call('app/checkin/create', { hash: x.token, location: at, file_ids: [anyone] })).body.success).toBe(true);
  });
});

describe('a file bound to a check-in is read only by whoever may read the check-in', () => {
  let checkinFile: number;
  let formFile: number;
  let formId: number;
  let checkinId: number;
  beforeAll(async () => {
    checkinFile = await uploaded({ token: x.token });
    const form = (await s.call('app/checkin/form/create', { hash: x.token, template_id: tpl })).body.value;
    formId = form.id;
    const photo = await jpeg();
    const a = (await s.call('app/form/file/create', { hash: x.token, form_id: form.id, field_id: 'pics', size: photo.length, filename: 'f.jpg' })).body;
    expect((await upload(a.url, a.fields, photo, { filename: 'f.jpg', type: 'image/jpeg' })).status).toBe(200);
    formFile = a.file_id;
    const r = await s.call('app/checkin/create', { hash: x.token, location: at, file_ids: [checkinFile], form: { form_id: form.id, values: { pics: { type: 'photo', file_ids: [formFile] } } } });
    expect(r.body.success).toBe(true);
    checkinId = r.body.id;
  });

  const denied = (what: string) => ({ success: false, status: { code: 13, description: `Operation not permitted: the right employee_update is required to read ${what}` } });
  const get = async (path: string, hash: string) => {
    const res = await fetch(`${s.url}${path}?hash=${hash}`);
    return { status: res.status, type: res.headers.get('content-type'), body: res.headers.get('content-type')?.startsWith('application/json') ? await res.json() : (await res.arrayBuffer()).byteLength };
  };

  it('a sub-user without the right: 13 from checkin/read, file/read, the download URL and the preview of its files', async () => {
    expect((await s.call('checkin/read', { hash: clerk.hash, checkin_id: checkinId })).body.status.code).toBe(13);
    const ofCheckin = denied(`the files of check-in ${checkinId}`);
    expect((await s.call('file/read', { hash: clerk.hash, file_id: checkinFile })).body).toEqual(ofCheckin);
    expect(await get(`/v2/file/download/${checkinFile}`, clerk.hash)).toEqual({ status: 403, type: 'application/json; charset=utf-8', body: ofCheckin });
    expect(await get(`/v2/file/preview/${checkinFile}`, clerk.hash)).toEqual({ status: 403, type: 'application/json; charset=utf-8', body: ofCheckin });
  });

  it("nor the check-in's form (form/read, form/download) nor its form's files", async () => {
    expect((await s.call('form/read', { hash: clerk.hash, id: formId })).body).toEqual(denied(`check-in form ${formId}`));
    expect((await s.call('form/download', { hash: clerk.hash, id: formId, format: 'pdf' })).body).toEqual(denied(`check-in form ${formId}`));
    const ofForm = denied(`the files of check-in form ${formId}`);
    expect((await s.call('file/read', { hash: clerk.hash, file_id: formFile })).body).toEqual(ofForm);
    expect(await get(`/v2/file/download/${formFile}`, clerk.hash)).toEqual({ status: 403, type: 'application/json; charset=utf-8', body: ofForm });
  });

  it('the master and a sub-user with the right read all of them', async () => {
    for (const who of [ann, staff]) {
      expect((await s.call('checkin/read', { hash: who.hash, checkin_id: checkinId })).body.success).toBe(true);
      expect((await s.call('form/read', { hash: who.hash, id: formId })).body.success).toBe(true);
      for (const f of [checkinFile, formFile]) {
        expect((await s.call('file/read', { hash: who.hash, file_id: f })).body.value).toMatchObject({ id: f, state: 'uploaded' });
        expect(await get(`/v2/file/download/${f}`, who.hash)).toMatchObject({ status: 200, type: 'image/jpeg' });
      }
    }
  });

  it("a task form's files stay readable by any sub-user of the account, as the task and its form are", async () => {
    const task = (await s.call('task/create', { hash: ann.hash, create_form: true, task: { label: 'T', location: { ...at, address: 'Square', radius: 100 }, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', tracker_id: x.tracker, form_template_id: tpl } })).body.id;
    const form = s.store.forms.ofTask(task)!.id;
    const photo = await jpeg();
    const a = (await s.call('form/file/create', { hash: ann.hash, form_id: form, field_id: 'pics', size: photo.length, filename: 't.jpg' })).body;
    expect((await upload(a.url, a.fields, photo, { filename: 't.jpg', type: 'image/jpeg' })).status).toBe(200);
    expect((await s.call('task/form/read', { hash: clerk.hash, task_id: task })).body.success).toBe(true);
    expect((await s.call('file/read', { hash: clerk.hash, file_id: a.file_id })).body.success).toBe(true);
    expect(await get(`/v2/file/download/${a.file_id}`, clerk.hash)).toMatchObject({ status: 200, type: 'image/jpeg' });
  });
});
