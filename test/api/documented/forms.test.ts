/**
 * form/template/* as documented (issue 23): choices as [{label}], ids such as "Text-1", the
 * `default` member, every documented member in list and read; and a template built this way carried
 * through a task's form, a submission from the field app, the form list and the form's file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg, upload } from '../../files/fixtures.ts';
import { documentedServer, expectMembers, type Documented } from './harness.ts';

let d: Documented;
beforeAll(async () => {
  d = await documentedServer('forms-doc@example.com');
});
afterAll(() => d?.close());

const TEMPLATE_MEMBERS = ['id', 'label', 'description', 'version', 'fields', 'created', 'submit_in_zone', 'updated', 'default'];

/** A delivery checklist written from the documentation's field types. */
const documentedFields = [
  { id: 'Text-1', label: 'Receiver', description: 'Who took the parcel', required: true, type: 'text', min_length: 2, max_length: 80 },
  { id: 'Check-1', label: 'Condition', description: 'Tick what applies', required: false, type: 'checkbox_group', min_checked: 0, max_checked: 2, group: [{ label: 'Box intact' }, { label: 'Seal intact' }, { label: 'Dry' }] },
  { id: 'Drop-1', label: 'Left with', description: 'Person', required: true, type: 'dropdown', options: [{ label: 'Owner' }, { label: 'Neighbour' }] },
  { id: 'Radio-1', label: 'Paid', description: 'Cash on delivery', required: false, type: 'radio_group', options: [{ label: 'Yes' }, { label: 'No' }] },
  { id: 'Date-1', label: 'Delivered on', description: 'Day', required: false, type: 'date', disable_future: true, disable_past: false },
  { id: 'Rating-1', label: 'Courtesy', description: 'Stars', required: false, type: 'rating', max_stars: 5 },
  { id: 'Sep-1', label: 'Attachments', description: 'Below', required: false, type: 'separator' },
  { id: 'Photo-1', label: 'Parcel photo', description: 'At the door', required: true, type: 'photo', max_files: 2 },
];

describe('form/template/create, read, list, update (documented shapes)', () => {
  let id: number;
  it('create takes the documented template: choices as objects, ids with a dash, default', async () => {
    const r = await d.call('form/template/create', { template: { label: 'Delivery', description: 'Proof of delivery', fields: documentedFields, submit_in_zone: false, default: true } });
    expect(r).toEqual({ success: true, id: expect.any(Number) });
    id = r.id;
  });
  it('read and list answer every documented member, choices as objects', async () => {
    const { value } = await d.ok('form/template/read', { template_id: id });
    expectMembers(value, TEMPLATE_MEMBERS, 'form/template/read value');
    expect(value).toMatchObject({ id, label: 'Delivery', description: 'Proof of delivery', version: 1, submit_in_zone: false, default: true });
    expect(value.fields[1].group).toEqual([{ label: 'Box intact' }, { label: 'Seal intact' }, { label: 'Dry' }]);
    expect(value.fields[2].options).toEqual([{ label: 'Owner' }, { label: 'Neighbour' }]);
    expect(value.fields.map((f: { id: string }) => f.id)).toEqual(documentedFields.map((f) => f.id));
    const { list } = await d.ok('form/template/list');
    for (const t of list) expectMembers(t, TEMPLATE_MEMBERS, 'form/template/list item');
  });
  it('one default template at a time; update takes the documented template with its id', async () => {
    const other = (await d.ok('form/template/create', { template: { label: 'Other', fields: [], default: true } })).id;
    expect((await d.ok('form/template/read', { template_id: id })).value.default).toBe(false);
    expect((await d.ok('form/template/read', { template_id: other })).value.default).toBe(true);
    expect(await d.call('form/template/update', { template: { id, label: 'Delivery', description: null, fields: documentedFields, submit_in_zone: true, default: true } })).toEqual({ success: true });
    const { value } = await d.ok('form/template/read', { template_id: id });
    expect(value).toMatchObject({ version: 2, description: '', submit_in_zone: true, default: true });
    expect((await d.ok('form/template/read', { template_id: other })).value.default).toBe(false);
  });
  it('delete takes template_id; 201 once gone', async () => {
    const gone = (await d.ok('form/template/create', { template: { label: 'Gone', fields: [] } })).id;
    expect(await d.call('form/template/delete', { template_id: gone })).toEqual({ success: true });
    expect((await d.call('form/template/read', { template_id: gone })).status.code).toBe(201);
    expect((await d.call('form/template/delete', { template_id: gone })).status.code).toBe(201);
  });
  it('documented 101 for demo users on create, update, delete', async () => {
    const demo = await d.s.user('forms-demo@example.com', { demo: true });
    for (const [path, p] of [
      ['form/template/create', { template: { label: 'Demo', fields: [] } }],
      ['form/template/update', { template: { id: 1, label: 'Demo', fields: [] } }],
      ['form/template/delete', { template_id: 1 }],
    ] as const) expect((await d.s.call(path, { hash: demo.hash, ...p })).body.status.code, path).toBe(101);
  });
  it('our older shape, choices as bare strings, is still read and answered as objects', async () => {
    const r = await d.ok('form/template/create', { template: { label: 'Old', fields: [{ id: 'c', label: 'C', type: 'dropdown', options: ['A', 'B'] }] } });
    expect((await d.ok('form/template/read', { template_id: r.id })).value.fields[0].options).toEqual([{ label: 'A' }, { label: 'B' }]);
  });
});

describe('a documented template downstream: task form, submission, list, file', () => {
  it('attaches to a task, takes a submission from the field app, lists and renders with the choice labels', async () => {
    const tpl = (await d.ok('form/template/create', { template: { label: 'Drop-off', fields: documentedFields, submit_in_zone: false, default: false } })).id;
    const tracker = d.s.addTracker(d.userId, 'doc-forms-phone', { protocol: 'osmand' });
    const { code } = await d.ok('tracker/app/activation/create', { tracker_id: tracker });
    const token = (await d.s.call('app/activate', { code })).body.token as string;
    const zone = { lat: 54.687, lng: 25.28, address: 'Square', radius: 100 };
    const task = (await d.ok('task/create', { create_form: true, task: { label: 'Parcel', location: zone, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', tracker_id: tracker, form_template_id: tpl } })).id;
    const form = (await d.ok('task/form/read', { task_id: task })).value;
    expect(form.fields[1].group).toEqual([{ label: 'Box intact' }, { label: 'Seal intact' }, { label: 'Dry' }]);
    const photo = await jpeg();
    const file = await d.s.call('app/form/file/create', { hash: token, form_id: form.id, field_id: 'Photo-1', size: photo.length, filename: 'door.jpg' });
    expect(file.body).toMatchObject({ success: true, file_id: expect.any(Number) });
    expect((await upload(file.body.url, file.body.fields, photo, { filename: 'door.jpg', type: 'image/jpeg' })).status).toBe(200);
    const values = {
      'Photo-1': { type: 'photo', file_ids: [file.body.file_id] },
      'Text-1': { type: 'text', value: 'Ona' },
      'Check-1': { type: 'checkbox_group', values: [true, false, true] },
      'Drop-1': { type: 'dropdown', value_index: 1 },
      'Radio-1': { type: 'radio_group', value_index: 0 },
      'Rating-1': { type: 'rating', value: 4 },
    };
    const bad = await d.s.call('app/form/submit', { hash: token, task_id: task, values: { ...values, 'Drop-1': { type: 'dropdown', value_index: 2 } }, location: { lat: zone.lat, lng: zone.lng } });
    expect(bad.body.status.code).toBe(242);
    expect(bad.body.errors).toEqual([{ field_id: 'Drop-1', code: 4, error: 'value_index must be 0 to 1, got 2' }]);
    const sent = await d.s.call('app/form/submit', { hash: token, task_id: task, values, location: { lat: zone.lat, lng: zone.lng } });
    expect(sent.body.success).toBe(true);
    const read = await d.ok('task/form/read', { task_id: task });
    expect(read.value.values).toEqual(values);
    expect(read.files.map((f: { id: number; bindings: unknown[] }) => [f.id, f.bindings])).toEqual([[file.body.file_id, [{ type: 'form_field', form_id: form.id, field_id: 'Photo-1', submitted: true }]]]);
    const { list, count } = await d.ok('task/form/list', { form_template_id: tpl, ascending: true, include_unsubmitted: false });
    expect(count).toBe(1);
    expect(list[0].form.values['Drop-1']).toEqual({ type: 'dropdown', value_index: 1 });
    const csv = await d.s.call('task/form/download', { hash: d.hash, task_id: task, format: 'csv' });
    expect(csv.status).toBe(200);
    expect(csv.body).toContain('Box intact, Dry');
    expect(csv.body).toContain('Neighbour');
    expect(csv.body).toContain('Yes');
    expect(csv.body).toContain('door.jpg');
  });
});
