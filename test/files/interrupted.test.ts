/**
 * An upload cut at any byte (docs/files.md): the client's socket closes mid-body; no blob and no
 * temporary file stays, the file is back to `created`, and the same token then uploads it whole.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addForm, blobsOnDisk, tempsOnDisk, upload } from './fixtures.ts';

let s: TestServer;
let ann: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
});
afterAll(() => s.close());

function multipart(token: string, data: Buffer): { head: string; body: Buffer } {
  const b = 'XbOuNdArY';
  const body = Buffer.concat([
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="token"\r\n\r\n${token}\r\n`),
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    data,
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
  return { head: `multipart/form-data; boundary=${b}`, body };
}

/** Sends the request with its full Content-Length but only `cut` bytes of the body, then closes the socket. */
function sendCut(url: URL, contentType: string, body: Buffer, cut: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const sock = connect(Number(url.port), url.hostname, () => {
      sock.write(`POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n`);
      sock.write(body.subarray(0, cut), () => setTimeout(() => sock.destroy(), 20));
    });
    sock.on('close', () => resolve());
    sock.on('error', reject);
  });
}

const state = (id: number) => s.sql.prepare('SELECT state FROM files WHERE id = ?').pluck().get(id);

async function settled(id: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (state(id) === 'created' && tempsOnDisk(s.dataDir).length === 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`file ${id} did not settle: ${state(id)}, temps ${tempsOnDisk(s.dataDir).join(',')}`);
}

describe('an interrupted upload', () => {
  it('leaves nothing visible, wherever the body is cut, and can be sent again', async () => {
    const data = Buffer.alloc(4000, 7);
    const form = addForm(s, ann.id);
    const r = await s.call('form/file/create', { hash: ann.hash, form_id: form, field_id: 'any', size: data.length, filename: 'a.bin' });
    const url = new URL(r.body.url);
    const { head, body } = multipart(r.body.fields.token, data);
    // Every byte of the parts' heads, a sample of the data, and each of the last bytes.
    const cuts = new Set<number>();
    for (let i = 0; i < body.length; i += i < 260 || i > body.length - 40 ? 1 : 97) cuts.add(i);
    for (const cut of cuts) {
      await sendCut(url, head, body, cut);
      await settled(r.body.file_id);
      expect(blobsOnDisk(s.dataDir)).toEqual([]);
    }
    expect(cuts.size).toBeGreaterThan(300);
    const ok = await upload(r.body.url, r.body.fields, data);
    expect(ok.body.value).toMatchObject({ state: 'uploaded', size: 4000 });
    expect(blobsOnDisk(s.dataDir)).toHaveLength(1);
  });
});
