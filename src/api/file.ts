/**
 * Files (spec: File object; the upload flow of issue 11, docs/files.md): form/file/create and
 * checkin/file/create announce a file and answer where and how to send its bytes; file/read reads
 * one. Outside the call kernel: POST <mount>file/upload/<id> takes the multipart upload (token
 * field first, the file last, streamed to disk), GET <mount>file/download/<id> and
 * <mount>file/preview/<id> serve an uploaded file and its preview to a session of its owner, and
 * GET <mount>file/avatar/<avatar_file_name> serves an avatar.
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { formatDateTime } from '../core/time.ts';
import { BlobStore } from '../files/blobs.ts';
import { createCheckinFile, createFormFile, DEFAULT_MAX_FILE_SIZE, MAX_NAME, receiveUpload, type CreatedFile, type FileDeps } from '../files/files.ts';
import type { FileRow } from '../store/files.ts';
import type { FormRow } from '../store/forms.ts';
import { errorBody, httpStatus, noteAnswerCode } from './errors.ts';
import { authenticate, defineCall, MOUNTS, type Services } from './kernel.ts';
import { MultipartBody } from './multipart.ts';
import { CHECKIN_READ_RIGHT, requireRight } from './rights.ts';
import type { UserRow } from '../store/users.ts';
import { id } from './schemas.ts';

/** The multipart part that carries the file's bytes. */
export const FILE_FIELD_NAME = 'file';

/** What the domain file code needs, from the services (the blob store is stateless: made per call). */
export function fileDeps(services: Services): FileDeps {
  return { store: services.store, blobs: new BlobStore(services.config.dataDir), now: services.now, limits: services.config.files };
}

/** The server's own origin as clients reach it: FSM_PUBLIC_URL, else the request's. */
export function baseUrl(services: Services, request: FastifyRequest): string {
  return services.config.publicUrl ?? `${request.protocol}://${request.host}`;
}

export interface FileViewOptions {
  timeZone: string;
  /** The server's origin (baseUrl) for download_url and previews. */
  base: string;
  /** task/form/read and file/read add bindings and previews. */
  details?: boolean;
}

/** The spec's File object (plus bindings and previews with `details`). */
export function fileView(f: FileRow, o: FileViewOptions): Record<string, unknown> {
  const uploaded = f.state === 'uploaded';
  const out: Record<string, unknown> = {
    id: f.id,
    // Each file has its own blob: the storage is named by the file's id.
    storage_id: f.id,
    user_id: f.user_id,
    type: f.type,
    created: formatDateTime(f.created, o.timeZone),
    uploaded: f.uploaded === null ? null : formatDateTime(f.uploaded, o.timeZone),
    name: f.name,
    size: uploaded ? f.size : f.max_size,
    mime_type: f.mime_type,
    metadata: f.metadata === null ? null : (JSON.parse(f.metadata) as { orientation: number | null }),
    state: f.state,
    download_url: uploaded ? `${o.base}/v2/file/download/${f.id}` : null,
  };
  if (o.details) {
    out.bindings = bindingsOf(f);
    out.previews = uploaded && f.preview ? [{ download_url: `${o.base}/v2/file/preview/${f.id}` }] : [];
  }
  return out;
}

function bindingsOf(f: FileRow): Array<Record<string, unknown>> {
  if (f.form_id !== null) return [{ type: 'form_field', form_id: f.form_id, field_id: f.field_id, submitted: !!f.submitted }];
  if (f.checkin_id !== null) return [{ type: 'checkin', checkin_id: f.checkin_id }];
  if (f.avatar_of !== null) return [{ type: 'avatar', entity_type: f.avatar_of }];
  return [];
}

/** The answer of the create calls: where and how to send the bytes (the field app's create calls answer it too). */
export function createdAnswer(services: Services, request: FastifyRequest, tz: string, c: CreatedFile): Record<string, unknown> {
  return {
    file_id: c.row.id,
    url: `${baseUrl(services, request)}/v2/file/upload/${c.row.id}`,
    expires: formatDateTime(c.row.expires!, tz),
    file_field_name: FILE_FIELD_NAME,
    fields: { token: c.token },
  };
}

const size = z.number().int().min(1).max(2_147_483_647);
const filename = z.string().min(1).max(MAX_NAME).nullable().optional();

const formFileCreate = defineCall({
  path: 'form/file/create',
  summary: `Announce a file for a file, photo or signature field of a form; answers the upload url, its token and expiry. 271 over the field's max_file_size (default ${DEFAULT_MAX_FILE_SIZE} bytes), 267 over 6 unsubmitted files per field, 268 over the storage quota, 242 (field code 9) for an extension the field refuses.`,
  params: z.object({ form_id: id, field_id: z.string().min(1).max(19), size, filename }),
  async handler({ services, owner, user, params, request }) {
    const created = await createFormFile(fileDeps(services), owner, { formId: params.form_id, fieldId: params.field_id, size: params.size, filename: params.filename });
    return createdAnswer(services, request, user.time_zone, created);
  },
});

const checkinFileCreate = defineCall({
  path: 'checkin/file/create',
  summary: 'Announce a file (image or other) for the next check-in; answers the upload url, its token and expiry. 271 over 16 MB, 268 over the storage quota.',
  params: z.object({ tracker_id: id.nullable().optional(), size, filename, type: z.enum(['image', 'file']) }),
  async handler({ services, owner, user, params, request }) {
    const created = await createCheckinFile(fileDeps(services), owner, { trackerId: params.tracker_id, size: params.size, filename: params.filename, type: params.type });
    return createdAnswer(services, request, user.time_zone, created);
  },
});

/**
 * A file bound to an entity is readable only by whoever may read that entity (issue 23): a
 * check-in's files and the files of a check-in's form need the right of checkin/read; a task form's
 * files, avatars and files not yet bound, the owner's session alone (as task/form/read and the
 * entities' reads).
 */
export function checkFileReadable(services: Services, user: UserRow, f: FileRow): void {
  if (f.checkin_id !== null) return requireRight(user, CHECKIN_READ_RIGHT, `to read the files of check-in ${f.checkin_id}`);
  const form = f.form_id === null ? undefined : services.store.forms.get(f.user_id, f.form_id);
  if (form && isCheckinForm(form)) requireRight(user, CHECKIN_READ_RIGHT, `to read the files of check-in form ${form.id}`);
}

/**
 * Whether a form is a check-in's: a form without a task is submitted only together with its check-in
 * (app/checkin/create), so a submitted one belongs to a check-in. Before that it is the field app's
 * work in progress, the account's like a check-in file not yet bound.
 */
export function isCheckinForm(form: Pick<FormRow, 'task_id' | 'submitted'>): boolean {
  return form.task_id === null && form.submitted !== null;
}

const read = defineCall({
  path: 'file/read',
  summary: 'One of the user\'s files (File object with bindings and previews).',
  params: z.object({ file_id: id }),
  handler({ services, owner, user, params, request }) {
    const f = services.store.files.get(owner.id, params.file_id);
    if (!f) throw new DomainError(201, {}, `Not found in the database: file ${params.file_id}`);
    checkFileReadable(services, user, f);
    return { value: fileView(f, { timeZone: user.time_zone, base: baseUrl(services, request), details: true }) };
  },
});

const stats = defineCall({
  path: 'file/stats/read',
  summary: "The user's uploaded files: file_count, total_size (bytes) and quota (bytes of storage, FSM_FILE_QUOTA_MB).",
  params: z.object({}),
  handler({ services, owner }) {
    const { count, bytes } = services.store.files.uploadedStats(owner.id);
    return { value: { file_count: count, total_size: bytes, quota: services.config.files.quotaBytes } };
  },
});

export const fileCalls = [formFileCreate, checkinFileCreate, read, stats];

// --- Routes outside the call kernel: the upload itself and downloads ---

function fail(reply: FastifyReply, e: unknown, request: FastifyRequest): FastifyReply {
  let err: DomainError;
  if (e instanceof DomainError) err = e;
  else {
    request.log.error({ err: e }, 'file route failed');
    err = new DomainError(1);
  }
  noteAnswerCode(request, err.code);
  return reply.code(httpStatus(err)).send(errorBody(err));
}

async function upload(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const fileId = Number((request.params as { id: string }).id);
  if (!Number.isSafeInteger(fileId) || fileId < 1) return fail(reply, invalidParams([{ parameter: 'id', error: 'a file id is expected in the path' }]), request);
  if (!request.isMultipart()) return fail(reply, invalidParams([{ parameter: '(body)', error: 'multipart/form-data is expected' }]), request);
  const deps = fileDeps(services);
  // The announced size bounds the part (one byte more shows an oversized file as such).
  const body = new MultipartBody(request, services.store.files.getAny(fileId)?.max_size ?? 0);
  let token: string | undefined;
  let result: FileRow | undefined;
  // A client that stops sending is cut after FSM_FILE_UPLOAD_IDLE_SECONDS: its upload then fails
  // like any interrupted one, instead of holding the file in_progress.
  const socket = request.raw.socket;
  socket.setTimeout(services.config.files.uploadIdleSeconds * 1000, () => socket.destroy());
  try {
    for await (const part of body.parts()) {
      if (part.type === 'field') {
        if (part.fieldname === 'token' && typeof part.value === 'string') token = part.value;
        continue;
      }
      if (part.fieldname !== FILE_FIELD_NAME) throw invalidParams([{ parameter: part.fieldname, error: `the file goes in the part "${FILE_FIELD_NAME}"` }]);
      if (!token) throw invalidParams([{ parameter: 'token', error: 'required, before the file part' }]);
      result = await receiveUpload(deps, { fileId, token, source: part.file, filename: part.filename, mimeType: part.mimetype });
    }
    if (!result) throw new DomainError(233, {}, `No data file: send the file as the multipart part "${FILE_FIELD_NAME}", after the token`);
  } catch (e) {
    // Refused before the whole body came (a wrong token, a malformed body): the rest is read and
    // thrown away after the answer, within bounds; else the answer closes the connection.
    if (!body.discardRest()) reply.header('connection', 'close');
    return fail(reply, body.error(e), request);
  } finally {
    socket.setTimeout(0);
  }
  const user = services.store.users.get(result.user_id);
  return reply.send({ success: true, value: fileView(result, { timeZone: user?.time_zone ?? 'UTC', base: baseUrl(services, request), details: true }) });
}

/** A file of the session's owner, streamed (201 for anything else: not found, not uploaded, someone else's). */
async function download(services: Services, request: FastifyRequest, reply: FastifyReply, preview: boolean): Promise<FastifyReply> {
  try {
    const raw = { ...(request.query as Record<string, unknown>) };
    const { owner, user } = await authenticate({ path: 'file/download', summary: '', params: z.object({}), handler: () => undefined }, services, request, raw);
    const fileId = Number((request.params as { id: string }).id);
    const f = Number.isSafeInteger(fileId) ? services.store.files.get(owner!.id, fileId) : undefined;
    if (!f || f.state !== 'uploaded' || !f.storage_key || (preview && !f.preview)) throw new DomainError(201, {}, `Not found in the database: file ${fileId}`);
    checkFileReadable(services, user!, f);
    const blobs = new BlobStore(services.config.dataDir);
    return sendBlob(reply, preview ? blobs.previewPath(f.storage_key) : blobs.path(f.storage_key), preview ? 'image/jpeg' : f.mime_type, preview ? undefined : f.name || `file-${f.id}`, f.type === 'image');
  } catch (e) {
    return fail(reply, e, request);
  }
}

function sendBlob(reply: FastifyReply, path: string, type: string, name: string | undefined, inline: boolean): FastifyReply {
  reply.header('content-type', type).header('x-content-type-options', 'nosniff').header('cache-control', 'private, max-age=3600');
  // Only images are shown inline; anything else is an attachment (a stored HTML page must not run on our origin).
  const safe = (name ?? '').replace(/[^\x20-\x7e]|["\\]/g, '_');
  reply.header('content-disposition', `${inline ? 'inline' : 'attachment'}${safe ? `; filename="${safe}"` : ''}`);
  return reply.send(createReadStream(path));
}

async function avatar(services: Services, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const name = (request.params as { name: string }).name;
  const f = BlobStore.isKey(name) ? services.store.files.avatarByName(name) : undefined;
  if (!f) return fail(reply, new DomainError(201, {}, `Not found in the database: avatar ${name.slice(0, 40)}`), request);
  return sendBlob(reply, new BlobStore(services.config.dataDir).path(name), 'image/jpeg', undefined, true);
}

/**
 * The routes under every mount. Avatars are served without a session: an avatar_file_name is 96
 * random bits, known only to whoever can read the entity (docs/files.md).
 */
export function fileRoutes(services: Services) {
  return async (app: FastifyInstance): Promise<void> => {
    // The plugin only marks multipart requests; upload() reads the parts (src/api/multipart.ts).
    await app.register(multipart);
    for (const m of MOUNTS) {
      app.post(`${m}file/upload/:id`, (req, reply) => upload(services, req, reply));
      app.get(`${m}file/download/:id`, (req, reply) => download(services, req, reply, false));
      app.get(`${m}file/preview/:id`, (req, reply) => download(services, req, reply, true));
      app.get(`${m}file/avatar/:name`, (req, reply) => avatar(services, req, reply));
    }
  };
}
