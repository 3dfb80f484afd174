/**
 * The API kernel: the spec's conventions implemented once for every call.
 * A resource file declares its calls with `defineCall` (path, access, right, zod schema,
 * handler); `mountCalls` puts each under /v2/fsm/, /v2/ and /api-v2/ for GET and POST, merges
 * query and body, coerces and validates parameters (code 7 naming them), authenticates the
 * session, checks the right, wraps the answer in the envelope and honours redirect_target.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Offload } from '../tracks/points.ts';
import type { UploadRunner } from '../imports/upload-pool.ts';
import type { ReportFiles } from '../reports/render/index.ts';
import type { EarlyXlsx } from '../reports/render/early.ts';
import type { Config } from '../config.ts';
import type { Geocoder } from '../geocoder/types.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Store } from '../store/index.ts';
import type { ForwardingControl } from '../forwarding/types.ts';
import type { ReportRunner } from '../reports/queue.ts';
import type { SessionRow } from '../store/sessions.ts';
import type { UserRow } from '../store/users.ts';
import { DomainError, invalidParams } from '../core/errors.ts';
import { bodyTooLarge, errorBody, httpStatus, noteAnswerCode } from './errors.ts';
import { checkDeclaredLength, MultipartBody } from './multipart.ts';
import type { UploadedFile } from '../core/upload.ts';
import { redactError, secretsOf } from './log-redaction.ts';
import { coerce, issuesToErrors, mergeParams } from './params.ts';
import { requireRight, type Right } from './rights.ts';
import { appDevice, type AppDevice } from '../fieldapp/activation.ts';

export const MOUNTS = ['/v2/fsm/', '/v2/', '/api-v2/'] as const;

/** One position of the field app (app/position/send): a valid GNSS fix, speed in km/h, accuracy in metres. */
export interface AppFix {
  time: number;
  lat: number;
  lng: number;
  speed?: number;
  course?: number;
  altitude?: number;
  precision?: number;
}

/**
 * What the API needs of the fix writer: the gateway's (src/gateway/writer.ts), wired in by src/main.ts.
 * Resolves once the fixes are committed; rejects when the store cannot take them.
 */
export interface FixSink {
  store(sourceId: number, fixes: AppFix[]): Promise<void>;
}

/** What the API needs of chat delivery: the gateway provides it (src/gateway/chat.ts), src/main.ts wires it in. */
export interface ChatSender {
  /** Whether a device speaking `protocol` can receive chat text. */
  carriesText(protocol: string): boolean;
  /** Send what is pending for a device, in order, if it is connected. */
  flush(sourceId: number): Promise<void>;
}

/** What every handler can reach: passed explicitly, no globals. */
export interface Services {
  config: Readonly<Config>;
  store: Store;
  mailer: Mailer;
  /** Addresses for coordinates and coordinates for addresses (src/geocoder, docs/geocoder.md). */
  geocoder: Geocoder;
  /** Delivery of chat messages to connected devices (the gateway's, src/gateway/chat.ts). */
  chat: ChatSender;
  /** Positions of the field app, committed by the gateway's writer; absent: app/position/send answers 1. */
  fixes?: FixSink;
  /** The clock (ms UTC); tests may replace it. */
  now: () => number;
  /** Long track lines simplified off the event loop (the telemetry pool); absent: on this thread. */
  simplify?: Offload;
  /** File uploads unzipped and parsed off the event loop (src/imports/upload-pool.ts); absent: on this thread. */
  uploads?: UploadRunner;
  /** Report files (xlsx, pdf, csv) rendered off the event loop (src/reports/render/pool.ts); absent: on this thread. */
  reportFiles?: ReportFiles;
  /** The xlsx of a big report started at its retrieve (src/reports/render/early.ts); absent: rendered at the download. */
  earlyXlsx?: EarlyXlsx;
  /** The retranslators' forwarding engine (src/forwarding); absent: changes apply at its next look. */
  forwarding?: ForwardingControl;
  /** The report queue (src/reports/queue.ts): told of new reports; absent: they wait for its next start. */
  reports?: ReportRunner;
}

/**
 * public: no hash; session: a user session; activation: only the hash of an activation link;
 * delivery: a user session or a DELIVERY session; device: only a field app's device token (docs/field-app.md).
 */
export type Access = 'public' | 'session' | 'activation' | 'delivery' | 'device';

export interface CallContext<P> {
  params: P;
  services: Services;
  /** The authenticated user (a master or a sub-user); absent for public calls. */
  user: UserRow;
  /** The owner of entities: the master itself, or a sub-user's master. */
  owner: UserRow;
  session: SessionRow;
  /** The field app's token and tracker (device calls only). */
  device: AppDevice;
  request: FastifyRequest;
  reply: FastifyReply;
}

/**
 * Members of a success answer already serialized (`"list":[...]`, no braces): a call whose answer
 * is cached can skip building and serializing it again. As UTF-8 bytes when a worker built a large
 * answer: joined into the body as bytes, never re-encoded on this thread (a 20 MB string costs
 * ~150 ms to encode, and even one copy of its bytes tens of ms).
 */
export class SerializedMembers {
  constructor(readonly json: string | Uint8Array) {}
  /** The whole success body: bytes go out as three chunks, never copied into one buffer. */
  body(): string | Readable {
    const m = this.json;
    if (typeof m === 'string') return `{"success":true${m ? `,${m}` : ''}}`;
    return m.length ? Readable.from([SUCCESS_HEAD, Buffer.from(m.buffer, m.byteOffset, m.byteLength), SUCCESS_TAIL], { objectMode: false }) : '{"success":true}';
  }
  /** The members as an object (the redirect answer needs them as values). */
  members(): object {
    const m = typeof this.json === 'string' ? this.json : Buffer.from(this.json.buffer, this.json.byteOffset, this.json.byteLength).toString('utf8');
    return JSON.parse(`{${m}}`) as object;
  }
}
const SUCCESS_HEAD = Buffer.from('{"success":true,');
const SUCCESS_TAIL = Buffer.from('}');

/** A file answer instead of JSON (downloads). */
export class FileAnswer {
  constructor(
    readonly body: Buffer | string,
    readonly contentType: string,
    readonly fileName?: string,
  ) {}
}

export interface CallDef<S extends z.ZodType = z.ZodType> {
  path: string;
  summary: string;
  access?: Access;
  right?: Right;
  /** Refused with 101 for demo users. */
  notInDemo?: boolean;
  /** Takes multipart uploads and honours redirect_target. */
  upload?: boolean;
  params: S;
  handler(ctx: CallContext<z.infer<S>>): Promise<Record<string, unknown> | FileAnswer | SerializedMembers | void> | Record<string, unknown> | FileAnswer | SerializedMembers | void;
}

export function defineCall<S extends z.ZodType>(def: CallDef<S>): CallDef<S> {
  return def;
}

export function mountCalls(app: FastifyInstance, calls: CallDef[], services: Services): void {
  const seen = new Set<string>();
  for (const call of calls) {
    if (seen.has(call.path)) throw new Error(`call ${call.path} declared twice`);
    seen.add(call.path);
    const handler = (request: FastifyRequest, reply: FastifyReply) => runCall(call, services, request, reply);
    for (const mount of MOUNTS) app.route({ method: ['GET', 'POST'], url: mount + call.path, handler });
  }
}

async function runCall(call: CallDef, services: Services, request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  let redirectTarget: URL | undefined;
  const multipart = call.upload && request.isMultipart() ? new MultipartBody(request, services.config.http.bodyLimit) : undefined;
  try {
    let raw: Record<string, unknown>;
    let auth: Partial<CallContext<unknown>> | undefined;
    if (multipart) ({ raw, auth } = await readUpload(call, services, request, multipart));
    else raw = mergeParams(request.query, request.body);
    if (call.upload && raw.redirect_target !== undefined) redirectTarget = checkRedirectTarget(raw.redirect_target, services, request);
    auth ??= await authenticate(call, services, request, raw);
    const input = coerce(call.params, raw);
    const parsed = call.params.safeParse(input);
    if (!parsed.success) throw invalidParams(issuesToErrors(parsed.error.issues, input));
    const result = await call.handler({ params: parsed.data, services, request, reply, ...auth } as CallContext<unknown>);
    if (reply.sent) return; // the handler took the connection over (a stream of events)
    if (result instanceof SerializedMembers && !redirectTarget) {
      return reply.code(200).type('application/json; charset=utf-8').send(result.body());
    }
    if (result instanceof SerializedMembers) return answer(reply, 200, { success: true, ...result.members() }, redirectTarget);
    if (result instanceof FileAnswer) {
      reply.header('content-type', result.contentType);
      if (result.fileName) reply.header('content-disposition', contentDisposition(result.fileName));
      return reply.send(result.body);
    }
    return answer(reply, 200, { success: true, ...(result ?? {}) }, redirectTarget);
  } catch (e) {
    const err = e instanceof DomainError ? e : internal(request, e);
    noteAnswerCode(request, err.code);
    // Refused before the whole body came (a wrong token, a malformed body): the rest is read and
    // thrown away after the answer, within bounds; else the answer closes the connection.
    if (multipart && !multipart.discardRest()) reply.header('connection', 'close');
    if (multipart && !redirectTarget) {
      // A failure while the body was read still goes to a redirect_target given before it (as a field or in the query).
      const given = mergeParams(request.query, request.body).redirect_target;
      if (given !== undefined) redirectTarget = redirectOrNone(given, services, request);
    }
    return answer(reply, httpStatus(err), errorBody(err), redirectTarget);
  }
}

function redirectOrNone(value: unknown, services: Services, request: FastifyRequest): URL | undefined {
  try {
    return checkRedirectTarget(value, services, request);
  } catch {
    return undefined;
  }
}

/**
 * A multipart call's body, the session checked first (issue 23): a hash in the query or the
 * Authorization header before a byte of the body is read, a hash sent as a field before the file
 * part's bytes are; a Content-Length over FSM_BODY_LIMIT is refused unread. Fields are small (at
 * most 16 of 16 KB), one file part of at most FSM_BODY_LIMIT bytes is read into memory.
 */
async function readUpload(call: CallDef, services: Services, request: FastifyRequest, body: MultipartBody): Promise<{ raw: Record<string, unknown>; auth?: Partial<CallContext<unknown>> }> {
  const limit = services.config.http.bodyLimit;
  const fields: Record<string, unknown> = {};
  // The log's redaction finds a hash sent as a field here (log-redaction.ts secretsOf).
  (request as { body: unknown }).body = fields;
  let raw = mergeParams(request.query, fields);
  let auth = sessionHash(request, raw) !== undefined || call.access === 'public' ? await authenticate(call, services, request, raw) : undefined;
  checkDeclaredLength(request, limit);
  try {
    for await (const part of body.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = part.value;
        continue;
      }
      raw = mergeParams(request.query, fields);
      auth ??= await authenticate(call, services, request, raw);
      fields[part.fieldname] = { filename: part.filename ?? '', mimetype: part.mimetype || 'application/octet-stream', data: await body.readFile(part, () => bodyTooLarge(limit)) } satisfies UploadedFile;
    }
  } catch (e) {
    throw body.error(e);
  }
  return { raw: mergeParams(request.query, fields), auth };
}

/** A header carries Latin-1 only: a name beyond printable ASCII also goes as RFC 6266 filename*. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (ascii === name) return `attachment; filename="${ascii}"`;
  const utf8 = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${utf8}`;
}

function internal(request: FastifyRequest, e: unknown): DomainError {
  request.log.error({ err: redactError(e, secretsOf(request)) }, 'call failed');
  return new DomainError(1);
}

function answer(reply: FastifyReply, status: number, body: Record<string, unknown>, redirectTarget?: URL) {
  if (redirectTarget) return reply.redirect(redirectLocation(redirectTarget, body), 303);
  return reply.code(status).send(body);
}

/**
 * redirect_target must be an absolute http(s) URL on an allowed origin: the server's own (as the
 * request addressed it, or FSM_PUBLIC_URL) or one listed in FSM_REDIRECT_ORIGINS. Anything else
 * (javascript:, data:, file:, foreign sites: an open redirect) is code 7 naming it.
 */
function checkRedirectTarget(value: unknown, services: Services, request: FastifyRequest): URL {
  const refuse = (error: string) => invalidParams([{ parameter: 'redirect_target', error }]);
  if (typeof value !== 'string' || value.length > 2048) throw refuse('must be an absolute http(s) URL of at most 2048 characters');
  let target: URL;
  try {
    target = new URL(value);
  } catch {
    throw refuse('must be an absolute http(s) URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw refuse(`must be an http(s) URL, not ${target.protocol}`);
  if (target.username || target.password) throw refuse('must not carry a user name or password');
  if (!allowedOrigins(services, request).has(target.origin)) throw refuse(`the origin ${target.origin} is not allowed (FSM_REDIRECT_ORIGINS)`);
  return target;
}

function allowedOrigins(services: Services, request: FastifyRequest): Set<string> {
  const out = new Set(services.config.http.redirectOrigins);
  for (const own of [`${request.protocol}://${request.host}`, services.config.publicUrl]) {
    try {
      if (own) out.add(new URL(own).origin);
    } catch {
      /* a malformed Host header names no origin */
    }
  }
  return out;
}

/**
 * <target>?response=<urlencoded JSON> (`&response=` when the target has a query; before its
 * #fragment). The URL serializer percent-encodes what a header cannot carry (U+2028, €, ...).
 */
function redirectLocation(target: URL, body: Record<string, unknown>): string {
  const u = new URL(target.href);
  const fragment = u.hash;
  u.hash = '';
  const base = u.href;
  const sep = u.search ? '&' : base.endsWith('?') ? '' : '?';
  return `${base}${sep}response=${encodeURIComponent(JSON.stringify(body))}${fragment}`;
}

/** The session hash from the parameters or from `Authorization: NVX <hash>`. */
function sessionHash(request: FastifyRequest, raw: Record<string, unknown>): string | undefined {
  if (typeof raw.hash === 'string' && raw.hash) return raw.hash;
  const h = request.headers.authorization;
  if (h) {
    const m = /^NVX\s+(\S+)\s*$/i.exec(h);
    if (m) return m[1];
  }
  return undefined;
}

/** Exported for the routes outside the kernel (file downloads) that take a session too. */
export async function authenticate(call: CallDef, services: Services, request: FastifyRequest, raw: Record<string, unknown>): Promise<Partial<CallContext<unknown>>> {
  if ((call.access ?? 'session') === 'public') return {};
  return authorizeHash(call, services, sessionHash(request, raw));
}

/** The session of `hash` for a call's access and right (the live channel's messages carry their hash too, src/api/live.ts). */
export async function authorizeHash(call: Pick<CallDef, 'access' | 'right' | 'notInDemo'>, services: Services, hash: string | undefined): Promise<Partial<CallContext<unknown>>> {
  const access = call.access ?? 'session';
  if (!hash) throw new DomainError(4, {}, 'Session hash is missing: pass hash or an Authorization: NVX <hash> header');
  const { config, now } = services;
  const data = services.store.data;
  if (access === 'device') return appDevice(data, hash, now());
  const versions = await data.authVersions.read();
  const session = await data.sessions.find(hash, now(), config.auth.sessionTtlDays * 86_400_000, versions.sessions);
  const allowed = access === 'activation' ? session?.type === 'activation' : access === 'delivery' ? session?.type === 'user' || session?.type === 'delivery' : session?.type === 'user';
  if (!session || !allowed) throw new DomainError(4);
  // The versions were read just before (an expired session is deleted, but that touches only the
  // sessions counter). Should an account change land in between, the principal is read from the
  // database as it is now and kept under the older counter, which the next call's newer one drops.
  const principal = await data.users.principal(session.user_id, versions.accounts);
  if (!principal) throw new DomainError(4);
  const { user, owner } = principal;
  if (access !== 'activation' && principal.dealerBlocked) throw new DomainError(11);
  if (call.right && user.parent_id) {
    if (call.right === 'admin') throw new DomainError(13, {}, 'Operation not permitted: available to master users only');
    requireRight(user, call.right);
  }
  if (call.notInDemo && user.demo) throw new DomainError(101);
  return { session, user, owner };
}
