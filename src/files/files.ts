/**
 * The upload flow of the spec's File object (issue 11, docs/files.md): a create call announces a
 * file (for a form field or for a check-in) and gets a one-time token; the client then sends the
 * bytes (`receiveUpload`), which go to a temporary file and are renamed into place only when
 * complete and checked; the row moves created -> in_progress -> uploaded. Limits: the field's
 * max_file_size (16 MB by default) -> 271, six files per field not yet submitted (a photo field's
 * max_files) -> 267, the owner's storage quota -> 268, extensions and image content -> 242 with a
 * field error of code 9.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DomainError, invalidParams } from '../core/errors.ts';
import type { Store } from '../store/index.ts';
import type { FileRow } from '../store/files.ts';
import type { UserRow } from '../store/users.ts';
import { BlobStore } from './blobs.ts';
import { IMAGE_EXTENSIONS, inspectImage, writePreview } from './images.ts';

export const DEFAULT_MAX_FILE_SIZE = 16 * 1024 * 1024;
/** Files of one form field that are not yet part of a submission. */
export const MAX_OPEN_FILES_PER_FIELD = 6;
export const MAX_NAME = 255;

export interface FileDeps {
  store: Store;
  blobs: BlobStore;
  now: () => number;
  limits: { quotaBytes: number; uploadMinutes: number };
}

/** A created file and the token its upload must carry. */
export interface CreatedFile {
  row: FileRow;
  token: string;
}

interface FormFieldDef {
  id: string;
  type: string;
  max_file_size?: number | null;
  min_file_size?: number | null;
  allowed_extensions?: string[] | null;
  max_files?: number | null;
}

const FILE_FIELD_TYPES = ['file', 'photo', 'signature'];

/** The extension of a file name, lower case, without the dot ('' when none). */
export function extensionOf(name: string): string {
  const m = /\.([^./\\]{1,16})$/.exec(name);
  return m ? m[1].toLowerCase() : '';
}

/** A field error as form submissions report them (242 with `errors: [{field_id, code, error}]`). */
function fieldError(fieldId: string | null, code: number, error: string): DomainError {
  return new DomainError(242, { errors: [{ field_id: fieldId, code, error }] }, `Validation error: ${error}`);
}

async function checkQuota(deps: FileDeps, owner: UserRow, size: number): Promise<void> {
  const used = await deps.store.data.files.usedBytes(owner.id);
  if (used + size > deps.limits.quotaBytes) throw new DomainError(268, { quota: deps.limits.quotaBytes, used }, `Over quota: the user's files would take ${used + size} of ${deps.limits.quotaBytes} bytes`);
}

async function insert(deps: FileDeps, owner: UserRow, f: { type: 'image' | 'file'; name: string; maxSize: number; formId?: number; fieldId?: string; trackerId?: number | null }): Promise<CreatedFile> {
  const token = randomBytes(18).toString('base64url');
  const now = deps.now();
  const id = await deps.store.data.files.insert({ userId: owner.id, type: f.type, name: f.name, maxSize: f.maxSize, mimeType: 'application/octet-stream', created: now, expires: now + deps.limits.uploadMinutes * 60_000, token, formId: f.formId, fieldId: f.fieldId, trackerId: f.trackerId });
  return { row: (await deps.store.data.files.get(owner.id, id))!, token };
}

/** form/file/create: a file for a file, photo or signature field of one of the owner's forms. */
export async function createFormFile(deps: FileDeps, owner: UserRow, p: { formId: number; fieldId: string; size: number; filename?: string | null }): Promise<CreatedFile> {
  const form = await deps.store.data.files.formFields(owner.id, p.formId);
  if (!form) throw new DomainError(201, {}, `Not found in the database: form ${p.formId}`);
  const field = (JSON.parse(form.fields) as FormFieldDef[]).find((f) => f.id === p.fieldId);
  if (!field) throw invalidParams([{ parameter: 'field_id', error: `form ${p.formId} has no field ${JSON.stringify(p.fieldId)}` }]);
  if (!FILE_FIELD_TYPES.includes(field.type)) throw invalidParams([{ parameter: 'field_id', error: `field ${p.fieldId} is a ${field.type} field, not a file, photo or signature field` }]);
  const name = p.filename ?? '';
  const ext = extensionOf(name);
  const image = field.type !== 'file';
  const maxSize = field.type === 'file' ? Math.min(field.max_file_size ?? DEFAULT_MAX_FILE_SIZE, DEFAULT_MAX_FILE_SIZE) : DEFAULT_MAX_FILE_SIZE;
  if (p.size > maxSize) throw new DomainError(271, { max_size: maxSize }, `File too large: field ${p.fieldId} takes at most ${maxSize} bytes`);
  if (field.type === 'file' && field.min_file_size && p.size < field.min_file_size) throw fieldError(p.fieldId, 6, `below the field's min_file_size of ${field.min_file_size} bytes`);
  if (image && name && !IMAGE_EXTENSIONS.includes(ext)) throw fieldError(p.fieldId, 9, `a ${field.type} field takes images only (${IMAGE_EXTENSIONS.join(', ')})`);
  if (field.type === 'file' && field.allowed_extensions && !field.allowed_extensions.map((e) => e.toLowerCase().replace(/^\./, '')).includes(ext)) {
    throw fieldError(p.fieldId, 9, `extension ${ext ? `"${ext}"` : '(none)'} is not allowed; allowed: ${field.allowed_extensions.join(', ')}`);
  }
  const maxFiles = field.type === 'photo' ? Math.min(field.max_files ?? MAX_OPEN_FILES_PER_FIELD, MAX_OPEN_FILES_PER_FIELD) : MAX_OPEN_FILES_PER_FIELD;
  const open = await deps.store.data.files.openInField(form.id, p.fieldId);
  if (open >= maxFiles) throw new DomainError(267, { max_files: maxFiles }, `Too many files: field ${p.fieldId} already has ${open} files not yet submitted (at most ${maxFiles})`);
  await checkQuota(deps, owner, p.size);
  return insert(deps, owner, { type: image ? 'image' : 'file', name, maxSize: p.size, formId: form.id, fieldId: p.fieldId });
}

/** checkin/file/create: a file the next check-in will carry (bound by createCheckin). */
export async function createCheckinFile(deps: FileDeps, owner: UserRow, p: { trackerId?: number | null; size: number; filename?: string | null; type: 'image' | 'file' }): Promise<CreatedFile> {
  if (p.trackerId != null) {
    const t = await deps.store.data.trackers.get(owner.id, p.trackerId);
    if (!t) throw new DomainError(201, {}, `Not found in the database: tracker ${p.trackerId}`);
    if (t.blocked) throw new DomainError(208, {}, `Device blocked: tracker ${p.trackerId}`);
  }
  if (p.size > DEFAULT_MAX_FILE_SIZE) throw new DomainError(271, { max_size: DEFAULT_MAX_FILE_SIZE }, `File too large: at most ${DEFAULT_MAX_FILE_SIZE} bytes`);
  const name = p.filename ?? '';
  if (p.type === 'image' && name && !IMAGE_EXTENSIONS.includes(extensionOf(name))) throw fieldError(null, 9, `an image file takes images only (${IMAGE_EXTENSIONS.join(', ')})`);
  await checkQuota(deps, owner, p.size);
  // Announced for a tracker (its field app's, or a user's naming it), the file is that tracker's until bound.
  return insert(deps, owner, { type: p.type, name, maxSize: p.size, trackerId: p.trackerId ?? null });
}

/**
 * Whether a check-in of `trackerId` may carry this file: uploaded, bound to nothing, and announced
 * for that tracker or for none (a phone never takes another phone's upload; issue 23). The store's
 * binding statement applies the same rule.
 */
export function freeToBind(f: FileRow, trackerId: number): boolean {
  return f.state === 'uploaded' && f.checkin_id === null && f.form_id === null && f.avatar_of === null && (f.tracker_id === null || f.tracker_id === trackerId);
}

function sameToken(a: string | null, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/i;

/**
 * Receives the bytes of an announced file. 204 for an unknown id, a wrong token, an expired or an
 * already uploaded file (the token is spent); 13 while another upload of it runs; 271 over the
 * announced size; 242 (code 9) when an image file's bytes are not an image. Whatever fails, no
 * blob appears and the file waits for its bytes again (until it expires).
 */
export async function receiveUpload(deps: FileDeps, p: { fileId: number; token: string; source: Readable; filename?: string; mimeType?: string }): Promise<FileRow> {
  const { files } = deps.store.data;
  const row = await files.getAny(p.fileId);
  if (!row || !sameToken(row.upload_token, p.token) || row.state === 'uploaded' || (row.expires !== null && row.expires < deps.now())) {
    p.source.resume();
    throw new DomainError(204, {}, `Entity not found: file ${p.fileId} awaits no upload with this token`);
  }
  if (!(await files.startUpload(row.id))) {
    p.source.resume();
    throw new DomainError(13, {}, `Operation not permitted: file ${row.id} is being uploaded`);
  }
  let tmp: string | undefined;
  let key: string | undefined;
  try {
    const got = await deps.blobs.receive(p.source, row.max_size, () => new DomainError(271, { max_size: row.max_size }, `File too large: more than the ${row.max_size} bytes announced`));
    tmp = got.tmp;
    let mimeType = p.mimeType && MIME.test(p.mimeType) ? p.mimeType.toLowerCase() : 'application/octet-stream';
    let metadata: string | null = null;
    if (row.type === 'image') {
      const img = await inspectImage(got.tmp);
      if (!img) throw fieldError(row.field_id, 9, 'the uploaded bytes are not an image (jpeg, png, webp, gif, heif, avif, tiff)');
      mimeType = img.mimeType;
      metadata = JSON.stringify({ orientation: img.orientation });
    }
    key = BlobStore.newKey();
    const path = await deps.blobs.commit(got.tmp, key);
    tmp = undefined;
    let preview = false;
    if (row.type === 'image') {
      try {
        await writePreview(path, deps.blobs.previewPath(key));
        preview = true;
      } catch {
        /* an image sharp reads but cannot render: stored without a preview */
      }
    }
    const done = await files.finishUpload(row.id, { size: got.size, storageKey: key, mimeType, metadata, preview, uploaded: deps.now() });
    if (!done) throw new DomainError(204, {}, `Entity not found: file ${row.id} expired during its upload`);
    key = undefined;
    if (!row.name && p.filename) await files.setName(row.id, p.filename.slice(0, MAX_NAME));
    return (await files.getAny(row.id))!;
  } catch (e) {
    await files.abortUpload(row.id);
    if (tmp) await deps.blobs.discard(tmp);
    if (key) await deps.blobs.remove(key);
    throw e;
  }
}

/** Removes the blobs of these keys that no file row refers to any more (after rows were deleted). */
export async function dropUnusedBlobs(deps: Pick<FileDeps, 'store' | 'blobs'>, keys: Iterable<string | null>): Promise<void> {
  for (const k of keys) if (k && !(await deps.store.data.files.keyUsed(k))) await deps.blobs.remove(k);
}
