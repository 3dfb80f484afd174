/**
 * Multipart uploads read only once authorised, within limits, and malformed bodies answered as the
 * client's error (issue 23, docs/api.md#uploads): the four upload calls (avatar/upload, place/upload,
 * zone/upload, map_layer/upload) and the file upload URL, over real sockets. Each refusal leaves
 * nothing behind: no file row, no avatar, no place, no zone, no layer; the announced file still waits.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg } from '../files/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const LIMIT = 65_536;
let s: TestServer;
let ann: { id: number; hash: string };
let clerk: { id: number; hash: string };
let tracker: number;
beforeAll(async () => {
  s = await startTestServer({ FSM_BODY_LIMIT: String(LIMIT) });
  ann = await s.user('ann@example.com');
  clerk = await s.user('clerk@example.com', { parent: 'ann@example.com', rights: [] });
  tracker = s.addTracker(ann.id, '350000000000401');
});
afterAll(() => s?.close());

const count = (table: string) => s.sql.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
/** What an upload could leave behind. */
const traces = () => ({ files: count('files'), places: count('places'), zones: count('zones'), layers: count('map_layers'), avatar: s.sql.prepare('SELECT avatar_file_name FROM trackers WHERE id = ?').pluck().get(tracker) });

const B = 'xXbOuNdArYxX';
const field = (name: string, value: string) => `--${B}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const fileHead = (name = 'file', filename = 'me.jpg') => `--${B}\r\ncontent-disposition: form-data; name="${name}"; filename="${filename}"\r\ncontent-type: image/jpeg\r\n\r\n`;
const end = `\r\n--${B}--\r\n`;

/**
 * A raw HTTP/1.1 request: the head (with `length` as Content-Length), then `sent` of the body, then
 * nothing more. Answers the server's whole answer (it must come and the connection close without the
 * rest of the body) and whether the server closed the connection.
 */
async function partialRequest(path: string, length: number, sent: Buffer | string, headers: Record<string, string> = {}): Promise<{ status: number; headers: string; body: any; closed: boolean; answeredMs: number; closedMs: number }> {
  const socket = net.connect(Number(new URL(s.url).port), '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  const t0 = Date.now();
  let got = '';
  let closed = false;
  let answeredMs = -1;
  socket.on('data', (d) => ((got += d), answeredMs < 0 && (answeredMs = Date.now() - t0)));
  socket.on('error', () => undefined);
  const done = new Promise<void>((r) => socket.once('close', () => ((closed = true), r())));
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: multipart/form-data; boundary=${B}\r\ncontent-length: ${length}\r\n${extra}\r\n`);
  socket.write(sent);
  const timer = setTimeout(() => socket.destroy(), 5000);
  await done;
  const closedMs = Date.now() - t0;
  clearTimeout(timer);
  const [head, body] = [got.slice(0, got.indexOf('\r\n\r\n')), got.slice(got.indexOf('\r\n\r\n') + 4)];
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined, closed, answeredMs, closedMs };
}

async function upload(path: string, body: string | Buffer, contentType = `multipart/form-data; boundary=${B}`) {
  const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : new Uint8Array(body) });
  return { status: res.status, body: (await res.json()) as any };
}

const code7 = (parameter: string, error: string) => ({ success: false, status: { code: 7, description: `Invalid parameters: ${parameter}` }, errors: [{ parameter, error }] });
const tooLarge = { success: false, status: { code: 7, description: `Request body is larger than the limit of ${LIMIT} bytes` }, errors: [{ parameter: '(body)', error: `exceeds the limit of ${LIMIT} bytes` }] };
const FIFTY_MB = 50 * 1024 * 1024;

describe('uploads are authorised before their body is read', () => {
  it('no session anywhere: 4 as soon as the file part begins; 8 KB of a declared 64 KB were sent, the connection is cut when the rest does not come', async () => {
    const before = traces();
    const sent = field('entity_type', 'tracker') + field('entity_id', String(tracker)) + fileHead() + 'x'.repeat(8 * 1024);
    const r = await partialRequest('/v2/fsm/avatar/upload', LIMIT, sent);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, status: { code: 4, description: 'Session hash is missing: pass hash or an Authorization: NVX <hash> header' } });
    // Answered at once; the server waits DISCARD_MS (3 s) for the rest, then closes (the client would at 5 s).
    expect(r.answeredMs).toBeLessThan(1500);
    expect(r.closed).toBe(true);
    expect(r.closedMs).toBeGreaterThanOrEqual(2900);
    expect(r.closedMs).toBeLessThan(4900);
    expect(traces()).toEqual(before);
  });

  it('a refused body sent whole: the answer, and the connection serves the next request (no broken pipe for the client)', async () => {
    const before = traces();
    const img = await jpeg(64, 64);
    const body = Buffer.concat([Buffer.from(field('entity_type', 'tracker') + field('entity_id', String(tracker)) + fileHead()), img, Buffer.from(end)]);
    const socket = net.connect(Number(new URL(s.url).port), '127.0.0.1');
    try {
      await new Promise((r) => socket.once('connect', r));
      let got = '';
      socket.on('data', (d) => (got += d));
      const answers = (n: number) => new Promise<void>((r) => {
        const check = () => ((got.match(/HTTP\/1\.1 /g)?.length ?? 0) >= n && /\}$/.test(got) ? r() : setTimeout(check, 10));
        check();
      });
      socket.write(Buffer.concat([Buffer.from(`POST /v2/fsm/avatar/upload HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: multipart/form-data; boundary=${B}\r\ncontent-length: ${body.length}\r\n\r\n`), body]));
      await answers(1);
      expect(got).toMatch(/^HTTP\/1\.1 403 /);
      expect(got.toLowerCase()).not.toContain('connection: close');
      const ping = JSON.stringify({ hash: ann.hash });
      socket.write(`POST /v2/fsm/tracker/list HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${ping.length}\r\n\r\n${ping}`);
      await answers(2);
      expect(got.slice(got.lastIndexOf('HTTP/1.1 '))).toMatch(/^HTTP\/1\.1 200 [^]*"success":true/);
    } finally {
      socket.destroy();
    }
    expect(traces()).toEqual(before);
  });

  it('a wrong hash in the Authorization header or the query: 4 before a byte of the body is sent', async () => {
    const a = await partialRequest('/v2/fsm/place/upload', FIFTY_MB, '', { authorization: 'NVX 0123456789abcdef0123456789abcdef' });
    expect([a.status, a.body.status.code, a.closed]).toEqual([403, 4, true]);
    const b = await partialRequest('/v2/fsm/zone/upload?hash=0123456789abcdef0123456789abcdef', FIFTY_MB, '');
    expect([b.status, b.body.status.code, b.closed]).toEqual([403, 4, true]);
  });

  it('a sub-user without the call\'s right: 13 before the file\'s bytes', async () => {
    const before = traces();
    const r = await partialRequest(`/v2/fsm/place/upload?hash=${clerk.hash}`, FIFTY_MB, field('error_policy', 'fail') + fileHead('file', 'p.csv') + 'label;address');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ success: false, status: { code: 13, description: 'Operation not permitted: the right place_update is required' } });
    expect(traces()).toEqual(before);
  });

  it('a session in a field before the file part is honoured (the documented hash parameter)', async () => {
    const img = await jpeg(64, 64);
    const body = Buffer.concat([Buffer.from(field('hash', ann.hash) + field('entity_type', 'tracker') + field('entity_id', String(tracker)) + fileHead()), img, Buffer.from(end)]);
    const r = await upload('/v2/fsm/avatar/upload', body);
    expect(r.body).toEqual({ success: true, value: expect.stringMatching(/^[0-9a-f]{24}\.jpg$/) });
    expect(traces().avatar).toBe(r.body.value);
  });
});

describe('limits of a multipart body', () => {
  it(`a Content-Length over FSM_BODY_LIMIT (${LIMIT}): 413, code 7, refused unread`, async () => {
    const before = traces();
    const r = await partialRequest(`/v2/fsm/avatar/upload?hash=${ann.hash}`, LIMIT + 1, '');
    expect(r.status).toBe(413);
    expect(r.body).toEqual(tooLarge);
    expect(r.closed).toBe(true);
    expect(traces()).toEqual(before);
  });

  it('a file part over the limit sent without a length (chunked): 413, code 7, nothing stored', async () => {
    const before = traces();
    const big = Buffer.concat([Buffer.from(field('entity_type', 'tracker') + field('entity_id', String(tracker)) + fileHead()), Buffer.alloc(LIMIT + 10, 1), Buffer.from(end)]);
    const res = await fetch(`${s.url}/v2/fsm/avatar/upload?hash=${ann.hash}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${B}` },
      body: new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(big)), c.close()) }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual(tooLarge);
    expect(traces()).toEqual(before);
  });

  it('one file part, at most 16 fields of 16 KB: 7 naming the body or the field', async () => {
    const before = traces();
    const q = `/v2/fsm/avatar/upload?hash=${ann.hash}`;
    const two = await upload(q, field('entity_type', 'tracker') + field('entity_id', String(tracker)) + fileHead() + 'a\r\n' + fileHead('file2') + 'b' + end);
    expect(two).toEqual({ status: 400, body: code7('(body)', 'one file part is accepted') });
    const many = await upload(q, Array.from({ length: 17 }, (_, i) => field(`f${i}`, 'x')).join('') + `--${B}--\r\n`);
    expect(many).toEqual({ status: 400, body: code7('(body)', 'at most 16 fields and one file part are accepted') });
    const long = await upload(q, field('entity_type', 'x'.repeat(16 * 1024 + 1)) + `--${B}--\r\n`);
    expect(long).toEqual({ status: 400, body: code7('entity_type', 'a field takes at most 16384 bytes') });
    expect(traces()).toEqual(before);
  });
});

describe('malformed multipart bodies: code 7 naming the body, never 500', () => {
  const CALLS = ['avatar/upload', 'place/upload', 'zone/upload', 'map_layer/upload'];
  it.each(CALLS)('%s: no boundary, an unterminated body', async (call) => {
    const before = traces();
    const noBoundary = await upload(`/v2/fsm/${call}?hash=${ann.hash}`, 'abc', 'multipart/form-data');
    expect(noBoundary).toEqual({ status: 400, body: code7('(body)', 'malformed multipart body: Multipart: Boundary not found') });
    const cut = await upload(`/v2/fsm/${call}?hash=${ann.hash}`, field('label', 'L') + fileHead('file', 'a.kml') + '<kml>');
    expect(cut).toEqual({ status: 400, body: code7('(body)', 'malformed multipart body: it ends before its closing boundary') });
    expect(traces()).toEqual(before);
  });

  it('the file upload URL: the same; the announced file still waits and then takes its upload', async () => {
    const img = await jpeg(32, 32);
    const a = (await s.call('checkin/file/create', { hash: ann.hash, size: img.length, filename: 'a.jpg', type: 'image' })).body;
    const path = new URL(a.url).pathname;
    expect(await upload(path, 'abc', 'multipart/form-data')).toEqual({ status: 400, body: code7('(body)', 'malformed multipart body: Multipart: Boundary not found') });
    expect(await upload(path, field('token', a.fields.token) + fileHead() + 'abc')).toEqual({ status: 400, body: code7('(body)', 'malformed multipart body: it ends before its closing boundary') });
    expect(s.sql.prepare('SELECT state FROM files WHERE id = ?').pluck().get(a.file_id)).toBe('created');
    const ok = await upload(path, Buffer.concat([Buffer.from(field('token', a.fields.token) + fileHead()), img, Buffer.from(end)]));
    expect([ok.status, ok.body.value.state]).toEqual([200, 'uploaded']);
  });

  it('a 5,000-character id in a file URL: our envelope, code 7 naming the path', async () => {
    const long = '1'.repeat(5000);
    const expected = code7('(path)', 'a path segment is longer than 100 characters');
    for (const [method, path] of [['GET', `/v2/file/download/${long}`], ['GET', `/v2/file/preview/${long}`], ['POST', `/v2/file/upload/${long}`], ['GET', `/v2/fsm/file/avatar/${long}`]]) {
      const res = await fetch(`${s.url}${path}?hash=${ann.hash}`, { method });
      expect([path.slice(0, 20), res.status, await res.json()]).toEqual([path.slice(0, 20), 400, expected]);
    }
  });
});
