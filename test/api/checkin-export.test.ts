/**
 * checkin/list with `format` over real HTTP (spec: Check-ins, "format string optional (pdf or xlsx;
 * when set, a file is returned instead of JSON)"; docs/checkins.md and docs/reports.md, "Files"):
 * the listed check-ins as an xlsx or PDF file (status, headers, the file opened back), the filters
 * and paging applying to the file as to the JSON, errors as the JSON envelope, and nothing stored.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckin, type CheckinDeps } from '../../src/checkins/checkins.ts';
import { parseDateTime } from '../../src/core/time.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addForm, jpeg, upload } from '../files/fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let dir: string;
const TZ = 'Asia/Tokyo';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const geocoder: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: `Улица ${lat.toFixed(3)}` }), search: async () => [] };
let t1: number;
let bobTracker: number;
let fileId: number;
const at = (v: string) => parseDateTime(v, TZ)!;
const fail = (code: number) => ({ success: false, status: { code, description: expect.any(String) } });
const hasPoppler = (() => {
  try {
    execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasPoppler) console.warn('checkin-export: poppler-utils not installed: the PDF text checks are skipped; apt-get install -y poppler-utils');

/** POST JSON and read the answer as bytes (a file) or JSON. */
async function download(path: string, params: Record<string, unknown>) {
  const res = await fetch(`${s.url}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) });
  const body = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, body, json: type.startsWith('application/json') ? JSON.parse(body.toString('utf8')) : undefined };
}

const snapshot = () => JSON.stringify(['checkins', 'files', 'forms'].map((t) => s.sql.prepare(`SELECT * FROM ${t} ORDER BY id`).all()));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fsm-checkin-export-'));
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
  const deps: CheckinDeps = { store: s.store, geocoder, now: Date.now };
  t1 = s.addTracker(ann.id, '350000000000301', { label: 'Фургон 1' });
  const t2 = s.addTracker(ann.id, '350000000000302', { label: 'Van 2' });
  bobTracker = s.addTracker(bob.id, '350000000000303');
  await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Ζωή', last_name: 'Adams', tracker_id: t1 } });
  const form = addForm(s, ann.id, { label: 'Audit', templateId: null });
  const r = await s.call('checkin/file/create', { hash: ann.hash, size: 100_000, filename: 'gate.jpg', type: 'image' });
  await upload(r.body.url, r.body.fields, await jpeg(40, 20, 1), { filename: 'gate.jpg', type: 'image/jpeg' });
  fileId = r.body.file_id;
  await createCheckin(deps, { trackerId: t1, time: at('2026-03-01 10:00:00'), location: { lat: 35.0, lng: 139.0, precision: 12 }, comment: 'Ворота открыты', fileIds: [fileId], formId: form });
  await createCheckin(deps, { trackerId: t2, time: at('2026-03-02 11:00:00'), location: { lat: 35.1, lng: 139.1 }, comment: '=1+2', fileIds: [] });
  await createCheckin(deps, { trackerId: bobTracker, time: at('2026-03-01 10:00:00'), location: { lat: 35.0, lng: 139.0 }, fileIds: [] });
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await s.close();
});

async function workbook(body: Buffer) {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(body as never);
  return book;
}

describe('checkin/list with format', () => {
  it('answers xlsx: the listed check-ins as a table with times, places, labels and file links', async () => {
    const before = snapshot();
    const r = await download('checkin/list', { hash: ann.hash, format: 'xlsx', sort: ['marker_time=asc'] });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(XLSX);
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="checkins.xlsx"');
    const ws = (await workbook(r.body)).worksheets[0];
    expect(ws.name).toBe('Check-ins');
    expect(ws.getCell('A1').value).toBe('Check-ins: 2');
    expect(ws.getRow(2).values).toEqual([undefined, 'Time', 'Tracker', 'Employee', 'Location', 'Comment', 'Form', 'Files']);
    expect(ws.views[0]).toMatchObject({ state: 'frozen', ySplit: 2 });
    // Times in the user's zone, as dates.
    expect(ws.getCell('A3').value).toEqual(new Date(Date.UTC(2026, 2, 1, 10)));
    expect(ws.getCell('A4').value).toEqual(new Date(Date.UTC(2026, 2, 2, 11)));
    expect(ws.getRow(3).values).toEqual([
      undefined,
      new Date(Date.UTC(2026, 2, 1, 10)),
      'Ζωή Adams', // an employee's tracker carries the employee's name
      'Ζωή Adams',
      { text: 'Улица 35.000', hyperlink: 'geo:35.000000,139.000000' },
      'Ворота открыты',
      'Audit',
      { text: `gate.jpg ${s.url}/v2/file/download/${fileId}`, hyperlink: `${s.url}/v2/file/download/${fileId}` },
    ]);
    expect([ws.getCell('B4').value, ws.getCell('C4').value, ws.getCell('E4').value]).toEqual(['Van 2', null, '=1+2']);
    expect(ws.getCell('E4').type).toBe(ExcelJS.ValueType.String);
    expect(snapshot()).toBe(before);
  });

  it.skipIf(!hasPoppler)('answers pdf with the same table', async () => {
    const r = await download('checkin/list', { hash: ann.hash, format: 'pdf' });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/pdf');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename="checkins.pdf"');
    const file = join(dir, 'checkins.pdf');
    writeFileSync(file, r.body);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(/^Pages:\s+3$/m);
    const text = execFileSync('pdftotext', ['-f', '3', '-l', '3', '-layout', file, '-'], { encoding: 'utf8' });
    for (const v of ['Check-ins: 2', 'Van 2', 'Ζωή Adams', 'Улица 35.000', 'Ворота открыты', 'Audit', '2026-03-01 10:00:00', '2026-03-02 11:00:00', 'gate.jpg']) expect(text).toContain(v);
    expect(text.replace(/\s+/g, '')).toContain(`/v2/file/download/${fileId}`);
    // The download URL is a link (an annotation of the page).
    expect(r.body.toString('latin1')).toContain(`/URI (${s.url}/v2/file/download/${fileId})`);
  });

  it('applies the filters, sort and paging of the list to the file, and says when more matched', async () => {
    const r = await download('checkin/list', { hash: ann.hash, format: 'xlsx', trackers: [t1] });
    const ws = (await workbook(r.body)).worksheets[0];
    expect([ws.getCell('A1').value, ws.getCell('E3').value, ws.rowCount]).toEqual(['Check-ins: 1', 'Ворота открыты', 3]);
    const page = (await workbook((await download('checkin/list', { hash: ann.hash, format: 'xlsx', sort: ['marker_time=desc'], limit: 1, offset: 1 })).body)).worksheets[0];
    expect([page.getCell('A1').value, page.getCell('E3').value, page.rowCount]).toEqual(['Check-ins 2–2 of 2', 'Ворота открыты', 3]);
    // Only the user's own check-ins: Bob's file has his one.
    const bobs = (await workbook((await download('checkin/list', { hash: bob.hash, format: 'xlsx' })).body)).worksheets[0];
    expect([bobs.getCell('A1').value, bobs.getCell('B3').value]).toEqual(['Check-ins: 1', 'tracker 350000000000303']);
  });

  it('answers errors as the JSON envelope: 7 for an unknown format, 217 for foreign trackers, 211 over the span, 4 without a session', async () => {
    const before = snapshot();
    const bad = await download('checkin/list', { hash: ann.hash, format: 'doc' });
    expect([bad.status, bad.headers.get('content-type')]).toEqual([400, 'application/json; charset=utf-8']);
    expect(bad.json).toMatchObject({ ...fail(7), errors: [{ parameter: 'format' }] });
    const foreign = await download('checkin/list', { hash: ann.hash, format: 'pdf', trackers: [bobTracker] });
    expect(foreign.json).toEqual({ ...fail(217), ids: [bobTracker] });
    expect(foreign.headers.get('content-disposition')).toBeNull();
    const span = await download('checkin/list', { hash: ann.hash, format: 'xlsx', from: '2026-01-01 00:00:00', to: '2026-03-01 00:00:00' });
    expect(span.json).toEqual({ ...fail(211), max_time_span: 'P31D' });
    expect((await download('checkin/list', { format: 'xlsx' })).json).toMatchObject(fail(4));
    expect(snapshot()).toBe(before);
  });
});
