/**
 * Refused frames at debug level (issue 23): a real server process with FSM_LOG_LEVEL=debug logs each
 * refusal (unknown device, unknown codec, bad CRC, garbage datagrams) once per connection, with the
 * connection, the device id when known, the protocol and the reason; a flood is rate-limited; the
 * registered tracker's data still goes in (docs/gateway.md#refused-frames-in-the-log).
 */
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, imeiPacket, TELTONIKA_DATA, until } from '../helpers/device-socket.ts';
import { crc16Modbus } from '../../protocols/binary.ts';
import { RefusalLog, type Refusal } from '../../src/gateway/core.ts';
import { seedFleet, startChildServer, stopChildServers, type ChildServer } from '../helpers/child-server.ts';


let dir: string;
let server: ChildServer;
let imei: string;
let galileoPort: number;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fsm-refusal-'));
  imei = (await seedFleet(dir, 'ops@example.com', 1)).deviceIds[0];
  server = await startChildServer(dir, { FSM_LOG_LEVEL: 'debug', FSM_GALILEO_PORT: '0' });
  galileoPort = Number(/galileo tcp:(\d+)/.exec(server.output())![1]);
}, 90_000);
afterAll(async () => {
  await stopChildServers();
  rmSync(dir, { recursive: true, force: true });
});

/** The debug lines about refused frames, as the operator reads them (pino JSON on stdout). */
function refusals(): Array<Refusal & { suppressed?: number }> {
  return server
    .output()
    .split('\n')
    .filter((l) => l.includes('"device frame refused"'))
    .map((l) => {
      const { protocol, transport, connection, device, reason, suppressed } = JSON.parse(l) as Refusal & { suppressed?: number };
      return { protocol, transport, connection, device, reason, ...(suppressed ? { suppressed } : {}) };
    });
}



const linesOf = (connection: string) => refusals().filter((r) => r.connection === connection);

describe('refused frames in the debug log', () => {
  it('an unknown device: one line with the connection, the device id, the protocol and the reason', async () => {
    const c = await connect(server.port);
    c.socket.write(imeiPacket('359999999999999'));
    expect(await until(() => c.closed())).toBe(true);
    expect(c.received().toString('hex')).toBe('00');
    expect(await until(() => linesOf(c.name).length > 0)).toBe(true);
    expect(linesOf(c.name)).toEqual([{ protocol: 'teltonika', transport: 'tcp', connection: c.name, device: '359999999999999', reason: 'unknown device (not registered)' }]);
  });

  it('an unknown codec from a registered device: one line naming it; the device\'s next connection is acknowledged and stored', async () => {
    const c = await connect(server.port);
    c.socket.write(imeiPacket(imei));
    expect(await until(() => c.received().length >= 1)).toBe(true);
    const broken = Buffer.from(TELTONIKA_DATA);
    broken[8] = 0x99;
    c.socket.write(Buffer.concat([broken, broken]));
    expect(await until(() => c.closed())).toBe(true);
    expect(await until(() => linesOf(c.name).length > 0)).toBe(true);
    expect(linesOf(c.name)).toEqual([{ protocol: 'teltonika', transport: 'tcp', connection: c.name, device: imei, reason: 'unknown codec 0x99' }]);
    // Nothing lost: the same device's good data is acknowledged after its commit.
    const ok = await connect(server.port);
    ok.socket.write(imeiPacket(imei));
    expect(await until(() => ok.received().length >= 1)).toBe(true);
    ok.socket.write(TELTONIKA_DATA);
    expect(await until(() => ok.received().length >= 5)).toBe(true);
    expect(ok.received().toString('hex')).toBe('0100000002');
    ok.socket.destroy();
    expect(linesOf(ok.name)).toEqual([]);
  });

  it('a bad CRC before any identification (Galileo): one line, device null', async () => {
    const body = Buffer.from('03' + Buffer.from('868204001549087').toString('hex'), 'hex');
    const packet = Buffer.concat([Buffer.from([0x01, body.length, 0]), body, Buffer.alloc(2)]);
    packet.writeUInt16LE(crc16Modbus(packet, 0, packet.length - 2) ^ 0xffff, packet.length - 2);
    const c = await connect(galileoPort);
    c.socket.write(packet);
    expect(await until(() => c.closed())).toBe(true);
    expect(await until(() => linesOf(c.name).length > 0)).toBe(true);
    expect(linesOf(c.name)).toEqual([{ protocol: 'galileo', transport: 'tcp', connection: c.name, device: null, reason: 'bad CRC' }]);
  });

  it('five garbage datagrams from one UDP peer: one line', async () => {
    const sock = dgram.createSocket('udp4');
    try {
      await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
      const udpPort = Number(/teltonika tcp:\d+\/udp:(\d+)/.exec(server.output())![1]);
      for (let i = 0; i < 5; i++) await new Promise((r) => sock.send(Buffer.from('00ff', 'hex'), udpPort, '127.0.0.1', r));
      const name = `127.0.0.1:${sock.address().port}`;
      expect(await until(() => linesOf(name).length > 0)).toBe(true);
      await new Promise((r) => setTimeout(r, 300));
      expect(linesOf(name)).toEqual([{ protocol: 'teltonika', transport: 'udp', connection: name, device: null, reason: 'truncated: need 2 bytes at 2, have 0' }]);
    } finally {
      sock.close();
    }
  });

  it('a flood of 60 bad connections is rate-limited: at most 20 lines in 10 seconds', async () => {
    const before = refusals().length;
    const conns = await Promise.all(Array.from({ length: 60 }, () => connect(server.port)));
    for (const c of conns) c.socket.write(Buffer.from('0100', 'hex')); // an IMEI length of 256: framing fails
    expect(await until(() => conns.every((c) => c.closed()))).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    // The earlier tests logged 4 lines, all within this window (the tests take well under 10 s).
    expect(refusals().length - before).toBeLessThanOrEqual(20 - before);
    expect(refusals().length).toBeLessThanOrEqual(20);
  });
});

describe('RefusalLog', () => {
  it('at most perWindow lines per window; the next window\'s first line counts those left out', () => {
    let t = 0;
    const lines: Array<Record<string, unknown>> = [];
    const log = new RefusalLog((_level, _msg, data) => lines.push(data!), () => t, 3, 1000);
    const r = (n: number): Refusal => ({ protocol: 'p', transport: 'tcp', connection: `c${n}`, device: null, reason: 'x' });
    for (let i = 0; i < 10; i++) log.note(r(i));
    expect(lines.map((l) => l.connection)).toEqual(['c0', 'c1', 'c2']);
    t = 1000;
    log.note(r(10));
    log.note(r(11));
    expect(lines.slice(3)).toEqual([{ ...r(10), suppressed: 7 }, r(11)]);
  });
});
