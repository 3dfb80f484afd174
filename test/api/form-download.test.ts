/**
 * task/form/download {task_id, format: xls|csv|pdf} and form/download {id, format: pdf|xlsx} over real
 * HTTP (spec: Task forms, Forms; docs/forms.md and docs/reports.md, "Files"): one row per form field
 * (label, type, value as text, files as download links), the file with its media type and a UTF-8
 * safe name, read back (csv-parse, exceljs, poppler); errors 201 and 7 as the JSON envelope; nothing
 * stored by any of it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitForm } from '../../src/forms/submit.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addForm } from '../files/fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let dir: string;
let taskId: number;
let formId: number;
let bareTask: number;
let bobTask: number;
let bobForm: number;
let checkinForm: number;
let photo: number;
let doc: number;
let sign: number;
const TZ = 'Europe/Athens';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const LABEL = 'Осмотр котла: №7';
const geocoder: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: 'Οδός Ερμού 1, Αθήνα' }), search: async () => [] };
const fail = (code: number) => ({ success: false, status: { code, description: expect.any(String) } });
const hasPoppler = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasPoppler) console.warn('form-download: poppler-utils not installed: the PDF text checks are skipped; apt-get install -y poppler-utils');

const fields = [
  { id: 'note', label: 'Заметка', type: 'text' },
  { id: 'checks', label: 'Checks', type: 'checkbox_group', group: ['Gas', 'Water', 'Power'] },
  { id: 'kind', label: 'Kind', type: 'dropdown', options: ['Boiler', 'Heater'] },
  { id: 'ok', label: 'Κατάσταση', type: 'radio_group', options: ['Εντάξει', 'Βλάβη'] },
  { id: 'day', label: 'Next visit', type: 'date' },
  { id: 'stars', label: 'Rating', type: 'rating', max_stars: 5 },
  { id: 'sep', label: 'Attachments', type: 'separator' },
  { id: 'pics', label: 'Photos', type: 'photo', max_files: 2 },
  { id: 'doc', label: 'Report', type: 'file' },
  { id: 'sign', label: 'Signature', type: 'signature' },
];

/** POST JSON and read the answer as bytes (a file) or JSON. */
async function download(path: string, params: Record<string, unknown>) {
  const res = await fetch(`${s.url}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, body, json: type.startsWith('application/json') ? JSON.parse(body.toString('utf8')) : undefined };
}
const snapshot = () => JSON.stringify(['tasks', 'forms', 'files'].map((t) => s.sql.prepare(`SELECT * FROM ${t} ORDER BY id`).all()));
const addFile = (form: number, field: string, name: string, type = 'image') =>
  Number(
    s.sql
      .prepare("INSERT INTO files (user_id, type, state, name, max_size, size, mime_type, created, uploaded, form_id, field_id) VALUES (?, ?, 'uploaded', ?, 16777216, 1234, 'image/jpeg', ?, ?, ?, ?)")
      .run(ann.id, type, name, Date.now(), Date.now(), form, field).lastInsertRowid,
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fsm-form-download-'));
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
  const tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: LABEL, description: 'Ежемесячно', fields } })).body.id;
  const task = { label: 'Boiler in Πλάκα', location: { lat: 37.97, lng: 23.73, address: 'Πλάκα', radius: 100 }, from: '2030-01-10 09:00:00', to: '2030-01-10 12:00:00' };
  taskId = (await s.call('task/create', { hash: ann.hash, task })).body.id;
  bareTask = (await s.call('task/create', { hash: ann.hash, task })).body.id;
  expect((await s.call('task/form/create', { hash: ann.hash, task_id: taskId, template_id: tpl })).body.success).toBe(true);
  formId = s.store.forms.ofTask(taskId)!.id;
  photo = addFile(formId, 'pics', 'котёл.jpg');
  doc = addFile(formId, 'doc', 'act.pdf', 'file');
  sign = addFile(formId, 'sign', 'sign.png');
  await submitForm(
    { store: s.store, geocoder, now: Date.now },
    {
      userId: ann.id,
      formId,
      values: {
        note: { type: 'text', value: 'Всё в порядке' },
        checks: { type: 'checkbox_group', values: [true, false, true] },
        kind: { type: 'dropdown', value_index: 1 },
        ok: { type: 'radio_group', value_index: 0 },
        day: { type: 'date', value: '2030-02-01' },
        stars: { type: 'rating', value: 4 },
        pics: { type: 'photo', file_ids: [photo] },
        doc: { type: 'file', file_ids: [doc] },
        sign: { type: 'signature', file_id: sign },
      },
      location: { lat: 37.97, lng: 23.73 },
      time: Date.UTC(2026, 0, 10, 8, 30),
      origin: 'employee',
      timeZone: TZ,
    },
  );
  const bobTpl = (await s.call('form/template/create', { hash: bob.hash, template: { label: 'Bob', fields } })).body.id;
  bobTask = (await s.call('task/create', { hash: bob.hash, task })).body.id;
  await s.call('task/form/create', { hash: bob.hash, task_id: bobTask, template_id: bobTpl });
  bobForm = s.store.forms.ofTask(bobTask)!.id;
  checkinForm = addForm(s, ann.id, { label: 'Check-in form', templateId: null });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await s.close();
});

const url = (id: number) => `${s.url}/v2/file/download/${id}`;
/** The rows every format shows: field label, type, value as text. */
const fieldRows = () => [
  ['Заметка', 'text', 'Всё в порядке'],
  ['Checks', 'checkbox_group', 'Gas, Power'],
  ['Kind', 'dropdown', 'Heater'],
  ['Κατάσταση', 'radio_group', 'Εντάξει'],
  ['Next visit', 'date', '2030-02-01'],
  ['Rating', 'rating', '4 / 5'],
  ['Attachments', 'separator', ''],
  ['Photos', 'photo', `котёл.jpg ${url(photo)}`],
  ['Report', 'file', `act.pdf ${url(doc)}`],
  ['Signature', 'signature', `sign.png ${url(sign)}`],
];
const DISPOSITION = (ext: string) => `attachment; filename="______ ______ _7.${ext}"; filename*=UTF-8''${encodeURIComponent(`Осмотр котла_ №7.${ext}`)}`;

describe('task/form/download', () => {
  it('csv: one row per field with label, type and value, files as links', async () => {
    const before = snapshot();
    const r = await download('task/form/download', { hash: ann.hash, task_id: taskId, format: 'csv' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe(DISPOSITION('csv'));
    const rows = parse(r.body, { bom: true, relax_column_count: true }) as string[][];
    expect(rows.slice(0, 10)).toEqual([
      [LABEL],
      [''],
      ['Form'],
      ['Form', LABEL],
      ['Description', 'Ежемесячно'],
      [`Task`, `Boiler in Πλάκα (#${taskId})`],
      ['Created', expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)],
      ['Submitted', '2026-01-10 10:30:00'],
      ['Submit location', 'Οδός Ερμού 1, Αθήνα'],
      [''],
    ]);
    expect(rows.slice(10)).toEqual([['Fields'], ['Field', 'Type', 'Value'], ...fieldRows()]);
    expect(snapshot()).toBe(before);
  });

  it('xls: the xlsx workbook (the documented answer for xls), with the same rows', async () => {
    const r = await download('task/form/download', { hash: ann.hash, task_id: taskId, format: 'xls' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(XLSX);
    expect(r.headers.get('content-disposition')).toBe(DISPOSITION('xlsx'));
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(r.body as never);
    const ws = book.worksheets[0];
    expect(ws.name).toBe('Осмотр котла №7');
    expect(ws.getCell('A1').value).toBe('Form');
    expect(ws.getCell('B6').value).toEqual(new Date(Date.UTC(2026, 0, 10, 10, 30))); // submitted, Athens time, a date
    expect(ws.getCell('B7').value).toEqual({ text: 'Οδός Ερμού 1, Αθήνα', hyperlink: 'geo:37.970000,23.730000' });
    expect(ws.getRow(10).values).toEqual([undefined, 'Field', 'Type', 'Value']);
    const rows = [];
    for (let i = 11; i <= ws.rowCount; i++) rows.push([1, 2, 3].map((c) => ws.getCell(i, c).text));
    expect(rows).toEqual(fieldRows());
    // A file's value links to its download URL.
    expect(ws.getCell('C18').value).toEqual({ text: `котёл.jpg ${url(photo)}`, hyperlink: url(photo) });
    expect(ws.getCell('C11').value).toBe('Всё в порядке');
  });

  it.skipIf(!hasPoppler)('pdf: one page (no title page), the form and its fields', async () => {
    const r = await download('task/form/download', { hash: ann.hash, task_id: taskId, format: 'pdf' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    expect(r.headers.get('content-disposition')).toBe(DISPOSITION('pdf'));
    const file = join(dir, 'task-form.pdf');
    writeFileSync(file, r.body);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/^Pages:\s+1$/m);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    for (const v of [LABEL, 'Ежемесячно', 'Всё в порядке', 'Gas, Power', 'Κατάσταση', 'Εντάξει', 'котёл.jpg', '2026-01-10 10:30:00']) expect(text).toContain(v);
    expect(text).toMatch(/Rating\s+rating\s+4\s*\/\s*5/);
    expect(text.replace(/\s+/g, '')).toContain(url(doc).replace(/\s+/g, ''));
    for (const f of [photo, doc, sign]) expect(r.body.toString('latin1')).toContain(`/URI (${url(f)})`);
  });

  it('201 for an unknown task, another user\'s task and a task without a form; 7 for a bad or missing format; nothing stored', async () => {
    const before = snapshot();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ task_id: 999_999, format: 'csv' }, 201, 'Not found in the database: task 999999'],
      [{ task_id: bobTask, format: 'pdf' }, 201, `Not found in the database: task ${bobTask}`],
      [{ task_id: bareTask, format: 'xls' }, 201, `Not found in the database: task ${bareTask} has no form`],
    ];
    for (const [p, code, description] of cases) {
      const r = await download('task/form/download', { hash: ann.hash, ...p });
      expect([r.status, r.headers.get('content-disposition')]).toEqual([404, null]);
      expect(r.json).toEqual({ success: false, status: { code, description } });
    }
    for (const format of ['xlsx', 'doc', undefined]) {
      const r = await download('task/form/download', { hash: ann.hash, task_id: taskId, format });
      expect(r.json).toMatchObject({ ...fail(7), errors: [{ parameter: 'format' }] });
    }
    expect(snapshot()).toBe(before);
  });
});

describe('form/download', () => {
  it('xlsx and pdf of a task form; a check-in form without values has empty values', async () => {
    const before = snapshot();
    const x = await download('form/download', { hash: ann.hash, id: formId, format: 'xlsx' });
    expect([x.status, x.headers.get('content-type'), x.headers.get('content-disposition')]).toEqual([200, XLSX, DISPOSITION('xlsx')]);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(x.body as never);
    expect(book.worksheets[0].getCell('C11').value).toBe('Всё в порядке');
    const p = await download('form/download', { hash: ann.hash, id: formId, format: 'pdf' });
    expect([p.status, p.headers.get('content-type'), p.body.subarray(0, 5).toString()]).toEqual([200, 'application/pdf', '%PDF-']);
    const c = await download('form/download', { hash: ann.hash, id: checkinForm, format: 'xlsx' });
    expect(c.headers.get('content-disposition')).toBe('attachment; filename="Check-in form.xlsx"');
    const cb = new ExcelJS.Workbook();
    await cb.xlsx.load(c.body as never);
    const ws = cb.worksheets[0];
    expect([ws.getCell('A4').value, ws.getCell('B4').value]).toEqual(['Submitted', 'not submitted']);
    expect(ws.getRow(8).values).toEqual([undefined, 'Document', 'file']);
    expect(snapshot()).toBe(before);
  });

  it('201 for an unknown form and another user\'s form; 7 for a bad format; 4 without a session', async () => {
    const before = snapshot();
    expect((await download('form/download', { hash: ann.hash, id: 999_999, format: 'pdf' })).json).toEqual({ success: false, status: { code: 201, description: 'Not found in the database: form 999999' } });
    expect((await download('form/download', { hash: ann.hash, id: bobForm, format: 'xlsx' })).json).toEqual({ success: false, status: { code: 201, description: `Not found in the database: form ${bobForm}` } });
    for (const format of ['csv', 'xls', undefined]) expect((await download('form/download', { hash: ann.hash, id: formId, format })).json).toMatchObject({ ...fail(7), errors: [{ parameter: 'format' }] });
    expect((await download('form/download', { id: formId, format: 'pdf' })).json).toMatchObject(fail(4));
    expect(snapshot()).toBe(before);
  });
});
