/**
 * The file sweep (docs/files.md): announced files not uploaded before they expire are deleted by
 * the server's periodic sweep; blobs whose rows went with their form or check-in are collected,
 * younger ones only after the grace period; stale temporary files go too.
 */
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobStore } from '../../src/files/blobs.ts';
import { sweepFiles } from '../../src/files/sweep.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addForm, blobsOnDisk, tempsOnDisk, upload } from './fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer({ FSM_FILE_SWEEP_SECONDS: '1' });
  ann = await s.user('ann@example.com');
});
afterAll(() => s.close());

const exists = (id: number) => s.sql.prepare('SELECT count(*) FROM files WHERE id = ?').pluck().get(id) === 1;

async function uploaded(form: number, data = 'bytes'): Promise<number> {
  const r = await s.call('form/file/create', { hash: ann.hash, form_id: form, field_id: 'any', size: 100, filename: 'a.txt' });
  const u = await upload(r.body.url, r.body.fields, data);
  expect(u.body.value.state).toBe('uploaded');
  return r.body.file_id;
}

describe('the file sweep', () => {
  it('deletes announced files past their expiry, by the server timer; uploaded ones stay', async () => {
    const form = addForm(s, ann.id);
    const kept = await uploaded(form);
    const r = await s.call('form/file/create', { hash: ann.hash, form_id: form, field_id: 'any', size: 100 });
    const later = await s.call('form/file/create', { hash: ann.hash, form_id: form, field_id: 'any', size: 100 });
    s.sql.prepare('UPDATE files SET expires = ? WHERE id IN (?, ?)').run(Date.now() - 1000, r.body.file_id, kept);
    for (let i = 0; i < 60 && exists(r.body.file_id); i++) await new Promise((res) => setTimeout(res, 100));
    expect(exists(r.body.file_id)).toBe(false);
    expect(exists(later.body.file_id)).toBe(true);
    expect(exists(kept)).toBe(true);
    expect((await upload(r.body.url, r.body.fields, 'late')).body.status.code).toBe(204);
  });

  it('collects blobs nothing refers to (a deleted form cascades its files), after the grace period', async () => {
    const form = addForm(s, ann.id);
    const other = addForm(s, ann.id);
    await uploaded(form, 'one');
    const stays = await uploaded(other, 'two');
    const before = blobsOnDisk(s.dataDir);
    s.sql.prepare('DELETE FROM forms WHERE id = ?').run(form);
    const deps = { store: s.store, blobs: new BlobStore(s.dataDir), now: Date.now };
    // Within the grace period (an upload may be committing its row): kept.
    expect((await sweepFiles(deps)).blobs).toBe(0);
    expect(blobsOnDisk(s.dataDir)).toEqual(before);
    // A stale temporary file from a crash.
    mkdirSync(join(s.dataDir, 'files', 'tmp'), { recursive: true });
    const tmp = join(s.dataDir, 'files', 'tmp', 'dead.part');
    writeFileSync(tmp, 'half');
    utimesSync(tmp, new Date(Date.now() - 2 * 86_400_000), new Date(Date.now() - 2 * 86_400_000));
    const r = await sweepFiles(deps, 0);
    // The server's own sweep (every second here) may have taken the stale temporary file first.
    expect(r.blobs).toBe(1);
    expect(blobsOnDisk(s.dataDir)).toHaveLength(before.length - 1);
    expect(tempsOnDisk(s.dataDir)).toEqual([]);
    const key = s.sql.prepare('SELECT storage_key FROM files WHERE id = ?').pluck().get(stays) as string;
    expect(blobsOnDisk(s.dataDir)).toContain(key);
  });
});
