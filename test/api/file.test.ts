/**
 * Files over real HTTP (issue 11; spec: File object; docs/files.md): form/file/create,
 * checkin/file/create, the multipart upload to the answered url, file/read, downloads and previews,
 * every documented error with nothing stored, and ownership across two users.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { formatDateTime } from '../../src/core/time.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addForm, blobsOnDisk, jpeg, tempsOnDisk, upload } from '../files/fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
const TZ = 'Europe/Berlin';
beforeAll(async () => {
  s = await startTestServer({ FSM_FILE_QUOTA_MB: '1' });
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
});
afterAll(() => s.close());

const rows = () => s.sql.prepare('SELECT count(*) FROM files').pluck().get() as number;
const fail = (code: number) => ({ success: false, status: { code, description: expect.any(String) } });

describe('form/file/create', () => {
  it('answers the upload url, its expiry, the part name and the token; the file is created with its limit as size', async () => {
    const form = addForm(s, ann.id);
    const before = Date.now();
    const r = await s.call('form/file/create', { hash: ann.hash, form_id: form, field_id: 'doc', size: 500, filename: 'report.pdf' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      file_id: expect.any(Number),
      url: `${s.url.replace('127.0.0.1', '127.0.0.1')}/v2/file/upload/${r.body.file_id}`,
      expires: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      file_field_name: 'file',
      fields: { token: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) },
    });
    // Expires an hour later (FSM_FILE_UPLOAD_MINUTES), in the user's zone.
    expect([formatDateTime(before + 3_600_000, TZ), formatDateTime(Date.now() + 3_600_000, TZ)]).toContain(r.body.expires);
    const read = await s.call('file/read', { hash: ann.hash, file_id: r.body.file_id });
    expect(read.body.value).toEqual({
      id: r.body.file_id,
      storage_id: r.body.file_id,
      user_id: ann.id,
      type: 'file',
      created: expect.any(String),
      uploaded: null,
      name: 'report.pdf',
      size: 500,
      mime_type: 'application/octet-stream',
      metadata: null,
      state: 'created',
      download_url: null,
      bindings: [{ type: 'form_field', form_id: form, field_id: 'doc', submitted: false }],
      previews: [],
    });
  });

  it('refuses, storing nothing: 201 unknown or foreign form, 7 unknown or non-file field, 271, 242 (code 6, 9), 267, 268, 7 bad sizes', async () => {
    const form = addForm(s, ann.id);
    const bobForm = addForm(s, bob.id);
    const n = rows();
    const create = (p: Record<string, unknown>) => s.call('form/file/create', { hash: ann.hash, form_id: form, field_id: 'any', size: 10, ...p });
    expect((await create({ form_id: 999_999 })).body).toEqual(fail(201));
    expect((await create({ form_id: bobForm })).body).toEqual(fail(201));
    let r = await create({ field_id: 'nope' });
    expect(r.body).toMatchObject({ ...fail(7), errors: [{ parameter: 'field_id', error: expect.stringContaining('no field') }] });
    r = await create({ field_id: 'note' });
    expect(r.body).toMatchObject({ ...fail(7), errors: [{ parameter: 'field_id', error: expect.stringContaining('text field') }] });
    // The field's max_file_size (1000), and the 16 MB default.
    r = await create({ field_id: 'doc', size: 1001, filename: 'a.pdf' });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ ...fail(271), max_size: 1000 });
    expect((await create({ size: 16 * 1024 * 1024 + 1 })).body).toEqual({ ...fail(271), max_size: 16 * 1024 * 1024 });
    r = await create({ field_id: 'doc', size: 5, filename: 'a.pdf' });
    expect(r.body).toEqual({ ...fail(242), errors: [{ field_id: 'doc', code: 6, error: expect.stringContaining('min_file_size') }] });
    r = await create({ field_id: 'doc', size: 50, filename: 'a.exe' });
    expect(r.body).toEqual({ ...fail(242), errors: [{ field_id: 'doc', code: 9, error: expect.stringContaining('not allowed') }] });
    r = await create({ field_id: 'pics', size: 50, filename: 'a.pdf' });
    expect(r.body).toEqual({ ...fail(242), errors: [{ field_id: 'pics', code: 9, error: expect.stringContaining('images only') }] });
    r = await create({ field_id: 'sign', size: 50, filename: 'sig.txt' });
    expect(r.body).toMatchObject({ ...fail(242), errors: [{ field_id: 'sign', code: 9 }] });
    for (const size of [0, -1, 1.5, 'ten']) expect((await create({ size })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'size' }] });
    expect((await create({ field_id: '' })).body).toMatchObject(fail(7));
    // Over the quota (1 MB for this server).
    r = await create({ size: 2 * 1024 * 1024 });
    expect(r.body).toMatchObject({ ...fail(268), quota: 1024 * 1024 });
    expect(r.status).toBe(403);
    expect(rows()).toBe(n);
  });

  it('267 past the unsubmitted files of a field (a photo field: its max_files; else 6); submitted files no longer count', async () => {
    const form = addForm(s, ann.id);
    const create = (field_id: string) => s.call('form/file/create', { hash: ann.hash, form_id: form, field_id, size: 10, filename: 'p.jpg' });
    expect((await create('pics')).body.success).toBe(true);
    expect((await create('pics')).body.success).toBe(true);
    const r = await create('pics');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ ...fail(267), max_files: 2 });
    for (let i = 0; i < 6; i++) expect((await create('any')).body.success).toBe(true);
    expect((await create('any')).body).toEqual({ ...fail(267), max_files: 6 });
    s.sql.prepare("UPDATE files SET submitted = 1 WHERE form_id = ? AND field_id = 'any'").run(form);
    expect((await create('any')).body.success).toBe(true);
  });
});

describe('checkin/file/create', () => {
  it('answers the upload; 201 foreign tracker, 208 blocked, 271, 242 (9) for a non-image name of an image, 7 bad type', async () => {
    const t = s.addTracker(ann.id, '350000000000101');
    const bobs = s.addTracker(bob.id, '350000000000102');
    let r = await s.call('checkin/file/create', { hash: ann.hash, tracker_id: t, size: 100, filename: 'a.jpg', type: 'image' });
    expect(r.body).toMatchObject({ success: true, file_id: expect.any(Number), file_field_name: 'file', fields: { token: expect.any(String) } });
    r = await s.call('checkin/file/create', { hash: ann.hash, size: 100, type: 'file' });
    expect(r.body.success).toBe(true);
    const n = rows();
    expect((await s.call('checkin/file/create', { hash: ann.hash, tracker_id: bobs, size: 100, type: 'file' })).body).toEqual(fail(201));
    s.sql.prepare('UPDATE sources SET blocked = 1 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(t);
    expect((await s.call('checkin/file/create', { hash: ann.hash, tracker_id: t, size: 100, type: 'file' })).body).toEqual(fail(208));
    s.sql.prepare('UPDATE sources SET blocked = 0 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(t);
    expect((await s.call('checkin/file/create', { hash: ann.hash, size: 17 * 1024 * 1024, type: 'file' })).body).toMatchObject(fail(271));
    expect((await s.call('checkin/file/create', { hash: ann.hash, size: 100, type: 'image', filename: 'a.docx' })).body).toMatchObject({ ...fail(242), errors: [{ field_id: null, code: 9 }] });
    expect((await s.call('checkin/file/create', { hash: ann.hash, size: 100, type: 'video' })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'type' }] });
    expect(rows()).toBe(n);
  });
});

async function announce(field_id: string, size: number, filename: string, hash = ann.hash, userId = ann.id) {
  const form = addForm(s, userId);
  const r = await s.call('form/file/create', { hash, form_id: form, field_id, size, filename });
  expect(r.body.success).toBe(true);
  return { ...r.body, form } as { file_id: number; url: string; fields: { token: string }; form: number };
}

describe('the upload', () => {
  it('stores the bytes: created -> uploaded, download_url serves them to the owner only', async () => {
    const a = await announce('doc', 100, 'notes.txt');
    const blobs = blobsOnDisk(s.dataDir).length;
    const r = await upload(a.url, a.fields, 'hello, files', { filename: 'other.txt', type: 'text/plain' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      value: expect.objectContaining({ id: a.file_id, state: 'uploaded', size: 12, name: 'notes.txt', mime_type: 'text/plain', uploaded: expect.any(String), download_url: `${s.url}/v2/file/download/${a.file_id}`, previews: [] }),
    });
    expect(blobsOnDisk(s.dataDir).length).toBe(blobs + 1);
    const get = await fetch(`${r.body.value.download_url}?hash=${ann.hash}`);
    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('text/plain');
    expect(get.headers.get('content-disposition')).toBe('attachment; filename="notes.txt"');
    expect(await get.text()).toBe('hello, files');
    const viaHeader = await fetch(r.body.value.download_url, { headers: { authorization: `NVX ${ann.hash}` } });
    expect(await viaHeader.text()).toBe('hello, files');
    // Another user, no session, a file id that is not uploaded: as not found.
    const bobGet = await fetch(`${r.body.value.download_url}?hash=${bob.hash}`);
    expect(bobGet.status).toBe(404);
    expect(await bobGet.json()).toEqual(fail(201));
    expect((await (await fetch(r.body.value.download_url)).json()).status.code).toBe(4);
    // A sub-user of the owner reads the master's files; the same routes under the other mounts.
    const sub = await s.user(`sub-${a.file_id}@example.com`, { parent: 'ann@example.com', rights: [] });
    expect(await (await fetch(`${s.url}/api-v2/file/download/${a.file_id}?hash=${sub.hash}`)).text()).toBe('hello, files');
    expect(await (await fetch(`${s.url}/v2/fsm/file/download/${a.file_id}/?hash=${sub.hash}`)).text()).toBe('hello, files');
    expect((await s.call('file/read', { hash: bob.hash, file_id: a.file_id })).body).toEqual(fail(201));
    // The token is spent: a second upload is refused and changes nothing.
    const again = await upload(a.url, a.fields, 'other bytes');
    expect(again.body).toEqual(fail(204));
    expect(await (await fetch(`${r.body.value.download_url}?hash=${ann.hash}`)).text()).toBe('hello, files');
  });

  it('a JPEG with EXIF orientation: metadata.orientation and an upright preview', async () => {
    const a = await announce('pics', 100_000, 'shot.jpg');
    const r = await upload(a.url, a.fields, await jpeg(64, 32, 6), { filename: 'shot.jpg', type: 'image/jpeg' });
    expect(r.body.value).toMatchObject({ type: 'image', state: 'uploaded', mime_type: 'image/jpeg', metadata: { orientation: 6 }, previews: [{ download_url: `${s.url}/v2/file/preview/${a.file_id}` }] });
    const p = await fetch(`${r.body.value.previews[0].download_url}?hash=${ann.hash}`);
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(Buffer.from(await p.arrayBuffer())).metadata();
    // Turned upright: the 64 x 32 landscape with orientation 6 is a 32 x 64 portrait.
    expect([meta.format, meta.width, meta.height, meta.orientation ?? 1]).toEqual(['jpeg', 32, 64, 1]);
    const read = await s.call('file/read', { hash: ann.hash, file_id: a.file_id });
    expect(read.body.value.metadata).toEqual({ orientation: 6 });
  });

  it('refuses, leaving no blob and the file waiting: bad token, wrong part order or name, no file, over the announced size, not an image', async () => {
    const a = await announce('any', 20, 'a.bin');
    const img = await announce('pics', 1000, 'p.jpg');
    const blobs = blobsOnDisk(s.dataDir).length;
    expect((await upload(a.url, { token: 'x'.repeat(24) }, 'data')).body).toEqual(fail(204));
    expect((await upload(a.url.replace(/\d+$/, '999999'), a.fields, 'data')).body).toEqual(fail(204));
    expect((await upload(a.url, {}, 'data')).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'token' }] });
    expect((await upload(a.url, a.fields, 'data', { fieldName: 'doc' })).body).toMatchObject({ ...fail(7), errors: [{ parameter: 'doc' }] });
    const noFile = await fetch(a.url, { method: 'POST', body: (() => { const f = new FormData(); f.append('token', a.fields.token); return f; })() });
    expect(await noFile.json()).toEqual(fail(233));
    const json = await fetch(a.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect((await json.json()).status.code).toBe(7);
    const big = await upload(a.url, a.fields, 'x'.repeat(21));
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject(fail(271));
    const notImage = await upload(img.url, img.fields, 'this is text, not a picture', { filename: 'p.jpg', type: 'image/jpeg' });
    expect(notImage.body).toEqual({ ...fail(242), errors: [{ field_id: 'pics', code: 9, error: expect.stringContaining('not an image') }] });
    expect(blobsOnDisk(s.dataDir).length).toBe(blobs);
    expect(tempsOnDisk(s.dataDir)).toEqual([]);
    for (const id of [a.file_id, img.file_id]) expect((await s.call('file/read', { hash: ann.hash, file_id: id })).body.value.state).toBe('created');
    // Still uploadable with the right bytes.
    expect((await upload(a.url, a.fields, 'x'.repeat(20))).body.value.state).toBe('uploaded');
  });

  it('an expired announcement takes no upload', async () => {
    const a = await announce('any', 20, 'a.bin');
    s.sql.prepare('UPDATE files SET expires = ? WHERE id = ?').run(Date.now() - 1, a.file_id);
    expect((await upload(a.url, a.fields, 'data')).body).toEqual(fail(204));
  });

  it('file/read: 201 for an unknown id, 7 for a bad one', async () => {
    expect((await s.call('file/read', { hash: ann.hash, file_id: 999_999 })).body).toEqual(fail(201));
    expect((await s.call('file/read', { hash: ann.hash, file_id: 'x' })).body).toMatchObject(fail(7));
  });
});
