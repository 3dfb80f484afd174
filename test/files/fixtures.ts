/** Fixtures of the file and check-in tests: forms written directly, images made with sharp, uploads over HTTP. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { TestServer } from '../helpers/server.ts';

export const FIELDS = [
  { id: 'doc', label: 'Document', description: '', required: false, type: 'file', max_file_size: 1000, min_file_size: 10, allowed_extensions: ['pdf', 'txt'] },
  { id: 'any', label: 'Any file', description: '', required: false, type: 'file', max_file_size: null, allowed_extensions: null },
  { id: 'pics', label: 'Photos', description: '', required: false, type: 'photo', max_files: 2 },
  { id: 'sign', label: 'Signature', description: '', required: false, type: 'signature' },
  { id: 'note', label: 'Note', description: '', required: false, type: 'text', min_length: 0, max_length: 100 },
];

/** A form of the user (a task form when taskId is given, else a check-in form). */
export function addForm(s: TestServer, userId: number, o: { taskId?: number; label?: string; templateId?: number | null } = {}): number {
  return Number(
    s.sql
      .prepare('INSERT INTO forms (user_id, template_id, template_version, label, fields, task_id, created) VALUES (?, ?, 1, ?, ?, ?, ?)')
      .run(userId, o.templateId ?? null, o.label ?? 'Inspection', JSON.stringify(FIELDS), o.taskId ?? null, Date.now()).lastInsertRowid,
  );
}

/** A JPEG of w x h with an EXIF orientation (6: the camera was turned; shown rotated 90° clockwise). */
export function jpeg(w = 64, h = 32, orientation = 6): Promise<Buffer> {
  return sharp({ create: { width: w, height: h, channels: 3, background: { r: 200, g: 40, b: 40 } } })
    .jpeg()
    .withMetadata({ orientation })
    .toBuffer();
}

/** POSTs the multipart upload: the fields, then the file last (as the create call's answer says). */
export async function upload(url: string, fields: Record<string, string>, data: Buffer | string, o: { filename?: string; type?: string; fieldName?: string } = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append(o.fieldName ?? 'file', new Blob([typeof data === 'string' ? data : new Uint8Array(data)], { type: o.type ?? 'application/octet-stream' }), o.filename ?? 'x.bin');
  const res = await fetch(url, { method: 'POST', body: form });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

/** Blob files on disk (not temporary ones), by name. */
export function blobsOnDisk(dataDir: string): string[] {
  const root = join(dataDir, 'files');
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((d) => /^[0-9a-f]{2}$/.test(d))
    .flatMap((d) => readdirSync(join(root, d)));
}

export function tempsOnDisk(dataDir: string): string[] {
  const dir = join(dataDir, 'files', 'tmp');
  return existsSync(dir) ? readdirSync(dir) : [];
}
