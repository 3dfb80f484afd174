/**
 * Commands reach a device only after the answer to the frame that identified it, in the order
 * they were queued, and a chat message is DELIVERED only once the device confirms it where the
 * protocol has a confirmation (issue 10, item 2). Real TCP sockets; the expected bytes come from
 * the protocols' own decoders and encoders.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc16Ibm } from '../../protocols/binary.ts';
import { protocolByName } from '../../protocols/index.ts';
import type { DecodeContext } from '../../protocols/types.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../../src/config.ts';
import { startGateway, type Gateway } from '../../src/gateway/index.ts';
import { frame as gt06Frame, loginContent } from '../../src/simulator/devices/gt06.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A device socket that collects what the server writes. */
async function device(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((r) => socket.once('connect', r));
  let got = Buffer.alloc(0);
  let closed = false;
  socket.on('data', (d) => (got = Buffer.concat([got, d])));
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  const wait = async (cond: () => boolean, ms = 5000) => {
    for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(10);
    return cond();
  };
  return { socket, got: () => got, closed: () => closed, wait, waitBytes: (n: number) => wait(() => got.length >= n) };
}

/** What a protocol answers to a frame, and the bytes of a chat message, from the protocol module itself. */
function replyTo(protocol: string, frame: Buffer): Buffer {
  const ctx: DecodeContext = { now: Date.now(), transport: 'tcp', config: {}, session: {} };
  return protocolByName(protocol)!.decode!(frame, ctx).reply!;
}
function message(protocol: string, deviceId: string, text: string): Buffer {
  return protocolByName(protocol)!.encode!({ type: 'message', attributes: { message: text } }, { deviceId, now: Date.now(), config: {} });
}

function codec12(type: number, text: string): Buffer {
  const body = Buffer.from(text);
  const data = Buffer.concat([Buffer.from([0x0c, 0x01, type]), Buffer.alloc(4), body, Buffer.from([0x01])]);
  data.writeUInt32BE(body.length, 3);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 4);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc16Ibm(data));
  return Buffer.concat([head, data, crc]);
}
const teltonikaLogin = (imei: string) => Buffer.concat([Buffer.from([0, imei.length]), Buffer.from(imei)]);

/** A JT808 frame from a terminal with a 12-digit BCD phone number (no byte here needs escaping). */
function jt808(type: number, phone: string, serial: number, body: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(body.length, 2);
  Buffer.from(phone, 'hex').copy(head, 4);
  head.writeUInt16BE(serial, 10);
  const content = Buffer.concat([head, body]);
  let x = 0;
  for (const b of content) x ^= b;
  const out = Buffer.concat([Buffer.from([0x7e]), content, Buffer.from([x, 0x7e])]);
  if (out.subarray(1, -1).some((b) => b === 0x7e || b === 0x7d)) throw new Error('test frame would need escaping');
  return out;
}
/** 0x0001 terminal general response: answers the platform message `serial` of type `type`, result 0. */
function jt808Ack(phone: string, serial: number, type: number): Buffer {
  const body = Buffer.alloc(5);
  body.writeUInt16BE(serial, 0);
  body.writeUInt16BE(type, 2);
  return jt808(0x0001, phone, 9, body);
}

let s: TestServer;
let owner: { id: number; hash: string };
const ports: Record<string, number> = {};
beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0', FSM_WIALON_PORT: '0', FSM_GT06_PORT: '0', FSM_JT808_PORT: '0' });
  for (const p of ['teltonika', 'wialon', 'gt06', 'jt808']) ports[p] = s.running.gateway.ports[p].tcp!;
  owner = await s.user('dispatch@example.com');
});
afterAll(() => s?.close());

const status = (id: number) => s.store.chat.get(id)!.status;
async function queue(trackerId: number, text: string): Promise<number> {
  const r = await s.call('tracker/chat/send', { hash: owner.hash, tracker_id: trackerId, message: text });
  expect(r.body.success).toBe(true);
  return r.body.id;
}

describe('pending chat messages go out after the login answer, DELIVERED on the device\'s confirmation', () => {
  const cases = [
    {
      protocol: 'wialon',
      deviceId: '865209031234561',
      login: (id: string) => Buffer.from(`#L#${id};NA\r\n`),
      confirm: () => Buffer.from('#AM#1\r\n'),
    },
    {
      protocol: 'teltonika',
      deviceId: '356307042449001',
      login: teltonikaLogin,
      confirm: () => codec12(0x06, 'Received'),
    },
    {
      protocol: 'gt06',
      deviceId: '868120145233604',
      login: (id: string) => gt06Frame(0x01, 1, loginContent(id)),
      // 0x15: text from the device answering the 0x80 command (length, server flag 0, text)
      confirm: () => gt06Frame(0x15, 2, Buffer.concat([Buffer.from([4 + 2, 0, 0, 0, 0]), Buffer.from('OK')])),
    },
    {
      protocol: 'jt808',
      deviceId: '013012345678',
      login: (id: string) => jt808(0x0102, id, 1, Buffer.from('AUTHCODE')),
      confirm: (id: string) => jt808Ack(id, 0, 0x8300),
    },
  ];

  for (const c of cases) {
    it(`${c.protocol}: login answer first, then the messages in queue order; PENDING until confirmed`, async () => {
      const tracker = s.addTracker(owner.id, c.deviceId, { protocol: c.protocol });
      const first = await queue(tracker, 'Hello');
      const second = await queue(tracker, 'Second');
      await sleep(100);
      expect([status(first), status(second)]).toEqual(['PENDING', 'PENDING']);

      const d = await device(ports[c.protocol]);
      const login = c.login(c.deviceId);
      d.socket.write(login);
      const expected = Buffer.concat([replyTo(c.protocol, login), message(c.protocol, c.deviceId, 'Hello'), message(c.protocol, c.deviceId, 'Second')]);
      expect(await d.waitBytes(expected.length)).toBe(true);
      await sleep(100);
      expect(d.got().toString('hex')).toBe(expected.toString('hex'));
      // written, not confirmed
      expect([status(first), status(second)]).toEqual(['PENDING', 'PENDING']);

      d.socket.write(c.confirm(c.deviceId));
      expect(await d.wait(() => status(first) === 'DELIVERED')).toBe(true);
      expect(status(second)).toBe('PENDING'); // one confirmation, the oldest message
      d.socket.write(c.confirm(c.deviceId));
      expect(await d.wait(() => status(second) === 'DELIVERED')).toBe(true);
      expect(d.closed()).toBe(false);
      d.socket.destroy();
    });
  }

  it('a message written but not confirmed before the connection drops is sent again on the next one', async () => {
    const id = '865209031234579';
    const tracker = s.addTracker(owner.id, id, { protocol: 'wialon' });
    const m = await queue(tracker, 'Unconfirmed');
    const login = Buffer.from(`#L#${id};NA\r\n`);
    const expected = Buffer.concat([Buffer.from('#AL#1\r\n'), Buffer.from('#M#Unconfirmed\r\n')]);
    const a = await device(ports.wialon);
    a.socket.write(login);
    expect(await a.waitBytes(expected.length)).toBe(true);
    expect(a.got().toString()).toBe(expected.toString());
    a.socket.destroy();
    await sleep(200);
    expect(status(m)).toBe('PENDING');
    const b = await device(ports.wialon);
    b.socket.write(login);
    expect(await b.waitBytes(expected.length)).toBe(true);
    expect(b.got().toString()).toBe(expected.toString());
    b.socket.write('#AM#1\r\n');
    expect(await b.wait(() => status(m) === 'DELIVERED')).toBe(true);
    b.socket.destroy();
  });

  it('a message sent while the device is connected: written at once, DELIVERED when confirmed', async () => {
    const id = '865209031234587';
    const tracker = s.addTracker(owner.id, id, { protocol: 'wialon' });
    const d = await device(ports.wialon);
    d.socket.write(`#L#${id};NA\r\n`);
    expect(await d.waitBytes(7)).toBe(true);
    const m = await queue(tracker, 'Now');
    expect(await d.wait(() => d.got().toString().endsWith('#M#Now\r\n'))).toBe(true);
    expect(d.got().toString()).toBe('#AL#1\r\n#M#Now\r\n');
    await sleep(100);
    expect(status(m)).toBe('PENDING');
    d.socket.write('#AM#1\r\n');
    expect(await d.wait(() => status(m) === 'DELIVERED')).toBe(true);
    await sleep(100);
    expect(d.closed()).toBe(false); // the confirmation is a frame the gateway understands
    d.socket.destroy();
  });
});

describe('h02 (no login: the first data frame identifies the device)', () => {
  let gateway: Gateway | undefined;
  afterAll(async () => {
    await gateway?.close();
  });

  it('a command queued for the device goes out after the answer to its first frame', async () => {
    const deviceId = '4209900001';
    s.addTracker(owner.id, deviceId, { protocol: 'h02' });
    // H02 carries no chat text: a gateway of its own whose online hook sends a queued command.
    const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
    const config = loadConfig({ FSM_DATA_DIR: s.dataDir, ...off, FSM_H02_PORT: '0', FSM_GATEWAY_HOST: '127.0.0.1' });
    const command = protocolByName('h02')!.encode!({ type: 'custom', attributes: { data: `*HQ,${deviceId},S20,1,1#` } }, { deviceId, now: Date.now(), config: {} });
    const sent: Array<Promise<void>> = [];
    gateway = await startGateway(config, s.store, { online: (_source, channel) => sent.push(channel.send(command)) });
    const d = await device(gateway.ports.h02.tcp!);
    d.socket.write(`*HQ,${deviceId},V1,120000,A,5430.0000,N,02512.0000,E,0.00,0,251126,FFFFFBFF#`);
    expect(await d.wait(() => d.got().includes(command))).toBe(true);
    const text = d.got().toString();
    expect(text).toMatch(new RegExp(`^\\*HQ,${deviceId},V4,V1,\\d{14}#\\*HQ,${deviceId},S20,1,1#$`));
    await Promise.all(sent);
    d.socket.destroy();
  });
});
