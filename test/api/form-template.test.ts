/** Form template calls over real HTTP (issue 11; docs/forms.md): every call, 7 naming the field, 201, ownership, version, delete. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'Europe/Vilnius' });
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

const allTypes = [
  { id: 'note', label: 'Note', type: 'text', required: true, min_length: 1, max_length: 200 },
  { id: 'boxes', label: 'Checks', type: 'checkbox_group', group: ['Clean', 'Dry'], min_checked: 0, max_checked: 2 },
  { id: 'pick', label: 'Pick', type: 'dropdown', options: ['A', 'B'] },
  { id: 'radio', label: 'Radio', type: 'radio_group', options: ['Yes', 'No'] },
  { id: 'day', label: 'Day', type: 'date', disable_past: true },
  { id: 'stars', label: 'Stars', type: 'rating', max_stars: 5 },
  { id: 'doc', label: 'Doc', type: 'file', allowed_extensions: ['pdf'] },
  { id: 'pics', label: 'Photos', type: 'photo', max_files: 3 },
  { id: 'sign', label: 'Signature', type: 'signature' },
  { id: 'sep', label: 'Section', type: 'separator' },
];
const template = (over: Record<string, unknown> = {}) => ({ label: 'Inspection', description: 'Monthly', fields: allTypes, submit_in_zone: true, ...over });
const count = () => s.sql.prepare('SELECT COUNT(*) FROM form_templates').pluck().get() as number;

describe('form/template/create, read, list', () => {
  it('creates a template with every field type; read answers it with defaults filled, version 1', async () => {
    const r = await s.call('form/template/create', { hash: ann.hash, template: template() });
    expect(r.body).toEqual({ success: true, id: expect.any(Number) });
    const read = await s.call('form/template/read', { hash: ann.hash, template_id: r.body.id });
    expect(read.body.value).toMatchObject({ id: r.body.id, label: 'Inspection', description: 'Monthly', submit_in_zone: true, version: 1, created: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) });
    expect(read.body.value.created).toBe(read.body.value.updated);
    expect(read.body.value.fields[0]).toEqual({ id: 'note', label: 'Note', description: '', required: true, type: 'text', min_length: 1, max_length: 200 });
    expect(read.body.value.fields[6]).toEqual({ id: 'doc', label: 'Doc', description: '', required: false, type: 'file', allowed_extensions: ['pdf'], max_file_size: 16777216, min_file_size: 0 });
    expect(read.body.value.fields.map((f: { type: string }) => f.type)).toEqual(allTypes.map((f) => f.type));
    const list = await s.call('form/template/list', { hash: ann.hash });
    expect(list.body.list.map((t: { id: number }) => t.id)).toContain(r.body.id);
  });

  it('7 naming the field for bad definitions and contradictions; nothing is stored', async () => {
    const before = count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [template({ label: '' }), 'template.label'],
      [template({ label: 'x'.repeat(101) }), 'template.label'],
      [template({ fields: [{ id: 'a b', label: 'A', type: 'text' }] }), 'template.fields.0.id'],
      [template({ fields: [{ id: 'a', label: 'A', type: 'colour' }] }), 'template.fields.0.type'],
      [template({ fields: [{ id: 'a', label: 'A', type: 'text', required: true }] }), 'template.fields.0.min_length'],
      [template({ fields: [{ id: 'a', label: 'A', type: 'checkbox_group', group: ['x'], min_checked: 3, max_checked: 1 }] }), 'template.fields.0.min_checked'],
      [template({ fields: [{ id: 'a', label: 'A', type: 'text' }, { id: 'a', label: 'B', type: 'date' }] }), 'template.fields.1.id'],
      [template({ fields: [{ id: 'a', label: 'A', type: 'photo', max_files: 7 }] }), 'template.fields.0.max_files'],
      [template({ fields: [{ id: 'a', label: 'A', type: 'file', max_file_size: 20_000_000 }] }), 'template.fields.0.max_file_size'],
      [template({ fields: [{ id: 'a', label: 'A', type: 'separator', required: true }] }), 'template.fields.0.required'],
      [template({ fields: {} }), 'template.fields'],
    ];
    for (const [t, parameter] of cases) {
      const r = await s.call('form/template/create', { hash: ann.hash, template: t });
      expect(r.status, parameter).toBe(400);
      expect(r.body.status.code, parameter).toBe(7);
      expect(r.body.errors.map((e: { parameter: string }) => e.parameter), parameter).toContain(parameter);
    }
    expect(count()).toBe(before);
  });

  it("201 for an unknown or another user's template; list shows only the owner's", async () => {
    const mine = (await s.call('form/template/create', { hash: ann.hash, template: template({ label: 'Mine' }) })).body.id;
    for (const [path, p] of [
      ['form/template/read', { template_id: mine }],
      ['form/template/update', { template: { ...template(), id: mine } }],
      ['form/template/delete', { template_id: mine }],
    ] as const) {
      const r = await s.call(path, { hash: bob.hash, ...p });
      expect(r.body.status, path).toEqual({ code: 201, description: `Not found in the database: form template ${mine}` });
    }
    expect((await s.call('form/template/read', { hash: ann.hash, template_id: 999999 })).body.status.code).toBe(201);
    expect((await s.call('form/template/list', { hash: bob.hash })).body.list).toEqual([]);
    expect((await s.call('form/template/read', { hash: ann.hash, template_id: mine })).body.value.version).toBe(1);
  });
});

describe('form/template/update and delete', () => {
  it('every change increments version; updated moves, created stays', async () => {
    const id = (await s.call('form/template/create', { hash: ann.hash, template: template() })).body.id;
    s.sql.prepare('UPDATE form_templates SET created = created - 60000, updated = updated - 60000 WHERE id = ?').run(id);
    const before = (await s.call('form/template/read', { hash: ann.hash, template_id: id })).body.value;
    expect((await s.call('form/template/update', { hash: ann.hash, template: { ...template({ label: 'Renamed', submit_in_zone: false }), id } })).body).toEqual({ success: true });
    expect((await s.call('form/template/update', { hash: ann.hash, template: { ...template({ label: 'Renamed', submit_in_zone: false, fields: [] }), id } })).body).toEqual({ success: true });
    const after = (await s.call('form/template/read', { hash: ann.hash, template_id: id })).body.value;
    expect(after).toMatchObject({ label: 'Renamed', submit_in_zone: false, version: 3, fields: [], created: before.created });
    expect(after.updated > before.updated).toBe(true);
    // A refused update changes nothing, not even the version.
    expect((await s.call('form/template/update', { hash: ann.hash, template: { ...template({ label: '' }), id } })).body.status.code).toBe(7);
    expect((await s.call('form/template/read', { hash: ann.hash, template_id: id })).body.value.version).toBe(3);
  });

  it('deleting a template leaves its forms, with template_id null', async () => {
    const tpl = (await s.call('form/template/create', { hash: ann.hash, template: template() })).body.id;
    const task = await s.call('task/create', { hash: ann.hash, task: { label: 'T', location: { lat: 54.68, lng: 25.28, address: 'Vilnius', radius: 100 }, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00', form_template_id: tpl }, create_form: true });
    expect(task.body.success).toBe(true);
    expect((await s.call('form/template/delete', { hash: ann.hash, template_id: tpl })).body).toEqual({ success: true });
    expect((await s.call('form/template/read', { hash: ann.hash, template_id: tpl })).body.status.code).toBe(201);
    const form = await s.call('task/form/read', { hash: ann.hash, task_id: task.body.id });
    expect(form.body.value).toMatchObject({ template_id: null, template_version: 1, label: 'Inspection' });
    expect((await s.call('form/template/delete', { hash: ann.hash, template_id: tpl })).body.status.code).toBe(201);
  });
});
