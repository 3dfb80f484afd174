/**
 * Media a device sends (issue 9): the decoder returns it as data; the gateway names the file into
 * the record, and writes it asynchronously only after the record is committed. Over a real socket
 * with the watch protocol's voice note and photo frames; a failed write keeps the record.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { protocol as watch } from '../../protocols/watch.ts';
import { DeviceSession, GatewayCore } from '../../src/gateway/core.ts';
import { fileMediaStore } from '../../src/gateway/media.ts';
import type { DeviceRegistry } from '../../src/gateway/registry.ts';
import type { FixWriter } from '../../src/gateway/writer.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const AMR = Buffer.from('#!AMR\n\x3c\x91\x17\x16\xbe\x66\x78\x00', 'latin1');
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]);
/** A watch frame `[3G*id*len*content]` with the binary content escaped as the watch does (`}` 01..05). */
function frame(id: string, content: Buffer): Buffer {
  const escaped: number[] = [];
  for (const b of content) {
    const i = [0x7d, 0x5b, 0x5d, 0x2c, 0x2a].indexOf(b);
    if (i >= 0) escaped.push(0x7d, i + 1);
    else escaped.push(b);
  }
  return Buffer.concat([Buffer.from(`[3G*${id}*${content.length.toString(16).padStart(4, '0')}*`), Buffer.from(escaped), Buffer.from(']')]);
}
const voiceNote = (id: string) => frame(id, Buffer.concat([Buffer.from('TK,'), AMR]));
const photo = (id: string) => frame(id, Buffer.concat([Buffer.from('img,1,240101120000,'), JPEG]));

async function connect(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let received = '';
  socket.on('data', (d) => (received += d.toString('latin1')));
  socket.on('error', () => undefined);
  return { socket, received: () => received };
}
const until = async (cond: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
  return cond();
};

let s: TestServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await s?.close();
  s = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function server() {
  s = await startTestServer({ FSM_WATCH_PORT: '0' });
  dirs.push(s.dataDir);
  const owner = await s.user('fleet@example.com');
  return { s, owner, port: s.running.gateway.ports.watch.tcp! };
}
const storedAttrs = (t: TestServer, deviceId: string) =>
  (t.sql.prepare('SELECT f.attrs FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ? ORDER BY f.time').pluck().all(deviceId) as string[]).map((a) => JSON.parse(a));

describe('media over a real socket', () => {
  it('stores a voice note after the commit its ACK confirms; the record names the file', async () => {
    const { s, owner, port } = await server();
    s.addTracker(owner.id, '8800000015', { protocol: 'watch' });
    const c = await connect(port);
    try {
      c.socket.write(voiceNote('8800000015'));
      expect(await until(() => c.received().includes('TK,1]'))).toBe(true);
      expect(c.received()).toBe('[3G*8800000015*0004*TK,1]');
      const [attrs] = storedAttrs(s, '8800000015');
      expect(attrs.audio).toMatch(/^8800000015\/\d{8}T\d{6}-[0-9a-f]{8}\.amr$/);
      const file = join(s.dataDir, 'media', attrs.audio);
      expect(await until(() => existsSync(file) && readFileSync(file).length === AMR.length)).toBe(true);
      expect(readFileSync(file)).toEqual(AMR);

      c.socket.write(photo('8800000015'));
      expect(await until(() => storedAttrs(s, '8800000015').some((a) => a.image))).toBe(true);
      const image = storedAttrs(s, '8800000015').find((a) => a.image)!.image as string;
      expect(image).toMatch(/^8800000015\/.*\.jpg$/);
      expect(await until(() => existsSync(join(s.dataDir, 'media', image)))).toBe(true);
      expect(readFileSync(join(s.dataDir, 'media', image))).toEqual(JPEG);
      expect(s.running.gateway.core.media?.failures).toBe(0);
    } finally {
      c.socket.destroy();
    }
  });

  it('keeps the record and acknowledges when the file cannot be written (the failure is counted)', async () => {
    const { s, owner, port } = await server();
    writeFileSync(join(s.dataDir, 'media'), 'not a directory'); // every media write now fails
    s.addTracker(owner.id, '8800000016', { protocol: 'watch' });
    const c = await connect(port);
    try {
      c.socket.write(voiceNote('8800000016'));
      expect(await until(() => c.received().includes('TK,1]'))).toBe(true);
      expect(storedAttrs(s, '8800000016')).toEqual([{ audio: expect.stringMatching(/^8800000016\/.*\.amr$/) }]);
      expect(await until(() => s.running.gateway.core.media?.failures === 1)).toBe(true);
    } finally {
      c.socket.destroy();
    }
  });
});

describe('media and the commit', () => {
  it('writes the file only once the records are committed, never before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsm-'));
    dirs.push(dir);
    let commit!: () => void;
    const submitted: unknown[] = [];
    const writer = { submit: (_id: number, records: unknown[]) => (submitted.push(structuredClone(records)), new Promise<void>((r) => (commit = r))) } as unknown as FixWriter;
    const registry = { lookup: () => ({ id: 1, deviceId: '7', protocol: 'watch', blocked: false, trackerIds: [1] }), noteUnknown: () => undefined } as unknown as DeviceRegistry;
    const now = () => Date.UTC(2025, 0, 2, 3, 4, 5);
    const core = new GatewayCore(registry, writer, {}, now, fileMediaStore(dir, now));
    const session = new DeviceSession(core, watch, 'tcp', '127.0.0.1:1');
    const h = session.handle(watch.decode!(Buffer.concat([Buffer.from('[3G*7*000d*TK,'), AMR, Buffer.from(']')]), session.context()));
    const name = (submitted[0] as Array<{ attributes: { audio: string } }>)[0].attributes.audio;
    expect(name).toMatch(/^7\/20250102T030405-[0-9a-f]{8}\.amr$/);
    await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(dir, name))).toBe(false);
    commit();
    await h.committed;
    expect(await until(() => existsSync(join(dir, name)))).toBe(true);
    expect(readFileSync(join(dir, name))).toEqual(AMR);
  });
});

describe('media and a failed commit', () => {
  it('writes no file when the records could not be stored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fsm-'));
    dirs.push(dir);
    const submitted: Array<Array<{ attributes: { audio: string } }>> = [];
    const writer = { submit: (_id: number, records: Array<{ attributes: { audio: string } }>) => (submitted.push(records), Promise.reject(new Error('disk full'))) } as unknown as FixWriter;
    const registry = { lookup: () => ({ id: 1, deviceId: '7', protocol: 'watch', blocked: false, trackerIds: [1] }), noteUnknown: () => undefined } as unknown as DeviceRegistry;
    const media = fileMediaStore(dir, Date.now);
    const session = new DeviceSession(new GatewayCore(registry, writer, {}, Date.now, media), watch, 'tcp', '127.0.0.1:1');
    const h = session.handle(watch.decode!(Buffer.concat([Buffer.from('[3G*7*000d*TK,'), AMR, Buffer.from(']')]), session.context()));
    await expect(h.committed).rejects.toThrow('disk full');
    await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(join(dir, submitted[0][0].attributes.audio))).toBe(false);
    expect(existsSync(join(dir, '7'))).toBe(false);
    expect(media.failures).toBe(0);
  });
});
