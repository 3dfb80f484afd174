/**
 * Unauthenticated uploads cost the server nothing (issue 23: one request without a session grew the
 * server by 107 MiB, three by 292 MiB). A real server process; three requests at once without a
 * session, each sending ten 9 MB file parts without a length (chunked): each is answered 4 at its
 * first file part and its connection closed, and the server's resident memory barely moves.
 */
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startChildServer, stopChildServers, type ChildServer } from '../helpers/child-server.ts';

let dir: string;
let server: ChildServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fsm-upload-mem-'));
  server = await startChildServer(dir);
}, 90_000);
afterAll(async () => {
  await stopChildServers();
  rmSync(dir, { recursive: true, force: true });
});

const rssMiB = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))![1]) / 1024;

/** Sends ten 9 MB file parts (chunked) until the server answers or closes; answers its status, body and the bytes written. */
function hostileUpload(): Promise<{ status: number; body: any; written: number }> {
  const B = 'hostileBoundary';
  const chunk = Buffer.alloc(1024 * 1024, 0x41);
  return new Promise((resolve, reject) => {
    let written = 0;
    let stop = false;
    const req = http.request(`${server.apiUrl}/v2/fsm/avatar/upload`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${B}`, 'transfer-encoding': 'chunked' } });
    req.on('response', (res) => {
      stop = true;
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text), written }));
    });
    req.on('error', (e) => (stop ? undefined : reject(e)));
    const write = (b: Buffer | string) => new Promise<void>((r) => (req.write(b) ? r() : req.once('drain', r)));
    void (async () => {
      await write(`--${B}\r\ncontent-disposition: form-data; name="entity_type"\r\n\r\ntracker\r\n`);
      for (let part = 0; part < 10 && !stop; part++) {
        await write(`--${B}\r\ncontent-disposition: form-data; name="file${part}"; filename="a.jpg"\r\ncontent-type: image/jpeg\r\n\r\n`);
        for (let i = 0; i < 9 && !stop && !req.destroyed; i++) {
          await write(chunk);
          written += chunk.length;
        }
        await write('\r\n');
      }
      if (!stop && !req.destroyed) req.end(`--${B}--\r\n`);
    })().catch(() => undefined);
  });
}

it('three at once: each answered 4 at its first file part, the connection closed; the server grows by less than 32 MiB', async () => {
  const before = rssMiB();
  const answers = await Promise.all([hostileUpload(), hostileUpload(), hostileUpload()]);
  for (const a of answers) {
    expect(a.status).toBe(403);
    expect(a.body).toEqual({ success: false, status: { code: 4, description: 'Session hash is missing: pass hash or an Authorization: NVX <hash> header' } });
    // Answered long before the 90 MB were sent (what was written is mostly in the sockets' buffers).
    expect(a.written).toBeLessThan(30 * 1024 * 1024);
  }
  await new Promise((r) => setTimeout(r, 500));
  const grown = rssMiB() - before;
  console.log(`server RSS before ${before.toFixed(0)} MiB, after ${rssMiB().toFixed(0)} MiB (+${grown.toFixed(1)})`);
  expect(grown).toBeLessThan(32);
  // And the server still serves.
  expect((await fetch(`${server.apiUrl}/health`)).status).toBe(200);
}, 120_000);
