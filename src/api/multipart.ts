/**
 * Multipart bodies read with care (issue 23, docs/api.md#uploads): parts are streamed one at a time
 * (never buffered by the plugin), one file part and a few small fields are taken, and anything wrong
 * with the body itself (no boundary, cut short, over a limit) is code 7 naming `(body)`, never an
 * internal error. The callers check the session or token before a file's bytes are read.
 */
import type { FastifyRequest } from 'fastify';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import { DomainError, invalidParams } from '../core/errors.ts';
import { bodyTooLarge } from './errors.ts';

/** Fields a multipart call takes besides its file (its parameters, hash, redirect_target). */
export const MULTIPART_FIELDS = 16;
/** Bytes of one such field. */
export const MULTIPART_FIELD_BYTES = 16 * 1024;
/** What is read and thrown away of a refused body before its answer, so the client sees the answer. */
export const DISCARD_BYTES = 4 * 1024 * 1024;
/** How long that may take before the connection is closed instead. */
export const DISCARD_MS = 3000;

const malformed = (error: string) => invalidParams([{ parameter: '(body)', error }]);

/**
 * One request's multipart body. `fileBytes` bounds the file part (one byte more is read, so an
 * oversized file shows as such); `parts()` yields fields and the file in body order, and a file's
 * stream must be read (readFile) before the next part comes.
 */
export class MultipartBody {
  /** Errors raised by the body's parsing (busboy, the plugin), as opposed to the caller's own. */
  private readonly fromBody = new WeakSet<object>();
  constructor(
    private readonly request: FastifyRequest,
    private readonly fileBytes: number,
  ) {}

  async *parts(): AsyncGenerator<Multipart> {
    const limits = { fileSize: this.fileBytes + 1, files: 1, fields: MULTIPART_FIELDS, fieldSize: MULTIPART_FIELD_BYTES, parts: MULTIPART_FIELDS + 1 };
    // throwFileSizeLimit off (typed only on the plugin's options): readFile counts the bytes itself.
    const it = this.request.parts({ limits, throwFileSizeLimit: false } as Parameters<FastifyRequest['parts']>[0]);
    for (;;) {
      let r: IteratorResult<Multipart>;
      try {
        r = await it.next();
      } catch (e) {
        throw this.tag(e);
      }
      if (r.done) return;
      const part = r.value;
      if (part.type === 'file') part.file.on('error', (e) => this.tag(e));
      else if (part.valueTruncated || part.fieldnameTruncated) throw invalidParams([{ parameter: part.fieldname, error: `a field takes at most ${MULTIPART_FIELD_BYTES} bytes` }]);
      yield part;
    }
  }

  /** The file part's bytes, at most `fileBytes` (more: `tooLarge`). */
  async readFile(part: MultipartFile, tooLarge: () => Error): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > this.fileBytes) throw tooLarge();
      chunks.push(chunk);
    }
    if (part.file.truncated) throw tooLarge();
    return Buffer.concat(chunks);
  }

  /** What a failure while reading answers: the body's own faults are code 7 naming it; anything else unchanged. */
  error(e: unknown): unknown {
    if (e instanceof DomainError) return e;
    const code = (e as { code?: string })?.code;
    if (code === 'FST_FILES_LIMIT') return malformed('one file part is accepted');
    if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return malformed(`at most ${MULTIPART_FIELDS} fields and one file part are accepted`);
    if (code === 'FST_PROTO_VIOLATION' || code === 'FST_INVALID_JSON_FIELD_ERROR') return malformed((e as Error).message);
    if (e && typeof e === 'object' && this.fromBody.has(e)) {
      const message = String((e as Error).message ?? e);
      // busboy says it as "Unexpected end of multipart data" or "Part terminated early due to ...".
      return malformed(`malformed multipart body: ${/unexpected end/i.test(message) ? 'it ends before its closing boundary' : message}`);
    }
    return e;
  }

  /** Whether the whole body has been read (else the answer closes the connection: the rest is never read). */
  get complete(): boolean {
    return this.request.raw.complete;
  }

  /**
   * Reads and throws away, after the answer, what is left of a body refused part-way (a wrong token,
   * a part too large), so the connection stays usable: a client still sending when the connection
   * closes sees a broken pipe instead of our answer (fetch in Node 24 does). At most `DISCARD_BYTES`
   * within `DISCARD_MS`, else the connection is cut. False when the rest is not worth reading (a
   * declared length over that, a connection already gone): the answer then closes the connection.
   */
  discardRest(maxBytes = DISCARD_BYTES, maxMs = DISCARD_MS): boolean {
    const raw = this.request.raw;
    if (raw.complete) return true;
    const declared = Number(raw.headers['content-length']);
    if (raw.destroyed || raw.readableEnded || !(declared <= maxBytes)) return false;
    let seen = 0;
    const cut = () => {
      stop();
      raw.socket.end(); // the answer, already written, still goes out
      setTimeout(() => raw.socket.destroy(), 1000).unref();
    };
    const stop = () => {
      clearTimeout(timer);
      raw.off('data', onData).off('end', stop).off('close', stop).off('error', stop);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > maxBytes) cut();
    };
    const timer = setTimeout(cut, maxMs);
    timer.unref();
    raw.unpipe(); // the parser stops; what follows is only counted
    raw.on('data', onData).on('end', stop).on('close', stop).on('error', stop);
    raw.resume();
    return true;
  }

  private tag(e: unknown): unknown {
    if (e && typeof e === 'object') this.fromBody.add(e);
    return e;
  }
}

/** A Content-Length over `limit` is refused before a byte of the body is read (413, code 7). */
export function checkDeclaredLength(request: FastifyRequest, limit: number): void {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit);
}
