/**
 * Connections that never identify, or trickle a frame, are closed at their deadline; the total
 * connection limit holds over all listeners (issue 10, item 14). Real TCP sockets.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { connectionLimits, parseOpenFileLimit } from '../../src/gateway/limits.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function open(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let closed = false;
  let got = Buffer.alloc(0);
  socket.on('close', () => (closed = true));
  socket.on('data', (d) => (got = Buffer.concat([got, d])));
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  return { socket, closed: () => closed, got: () => got };
}
const until = async (cond: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await sleep(20);
  return cond();
};

/** Writes `bytes` one at a time every `everyMs` until stopped or the socket closes. */
function trickle(socket: net.Socket, bytes: Buffer, everyMs: number) {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= bytes.length) return;
    socket.write(bytes.subarray(i, ++i));
  }, everyMs);
  return () => clearInterval(timer);
}

const imeiPacket = (imei: string) => Buffer.concat([Buffer.from([0, imei.length]), Buffer.from(imei)]);

let s: TestServer;
let port: number;
const stops: Array<() => void> = [];
beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0', FSM_WIALON_PORT: '0', FSM_GATEWAY_IDENTIFY_SECONDS: '3', FSM_GATEWAY_FRAME_SECONDS: '1', FSM_GATEWAY_MAX_CONNECTIONS: '60' });
  port = s.running.gateway.ports.teltonika.tcp!;
});
afterAll(async () => {
  stops.forEach((stop) => stop());
  await s?.close();
});

describe('deadlines', () => {
  it('50 connections trickling an incomplete frame at a byte every 200 ms are all closed at the frame deadline (1 s)', async () => {
    const conns = await Promise.all(Array.from({ length: 50 }, () => open(port)));
    const started = Date.now();
    // an IMEI packet would take 17 bytes x 200 ms = 3.4 s: longer than the frame may take
    for (const c of conns) stops.push(trickle(c.socket, imeiPacket('356307042441013'), 200));
    expect(await until(() => conns.every((c) => c.closed()), 4000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2500);
    expect(conns.every((c) => c.got().length === 0)).toBe(true); // nothing was acknowledged
    await until(() => s.running.gateway.core.stats.connections === 0);
  });

  it('a connection sending whole frames that never name a device is closed at the identify deadline (3 s)', async () => {
    const c = await open(port);
    stops.push(trickle(c.socket, Buffer.alloc(100, 0xff), 200)); // Teltonika keep-alive bytes: whole frames
    await sleep(2000);
    expect(c.closed()).toBe(false); // each frame was complete in time
    expect(await until(c.closed, 3000)).toBe(true);
  });

  it('an identified device sending slowly but completing each frame in time stays connected past both deadlines', async () => {
    s.addTracker((await s.user('slow@example.com')).id, '356307042441014');
    const c = await open(port);
    // the IMEI packet in two halves 600 ms apart: within the 1 s frame deadline
    const login = imeiPacket('356307042441014');
    c.socket.write(login.subarray(0, 8));
    await sleep(600);
    c.socket.write(login.subarray(8));
    expect(await until(() => c.got().length === 1)).toBe(true);
    expect(c.got().toString('hex')).toBe('01');
    for (let i = 0; i < 8; i++) {
      await sleep(500);
      c.socket.write(Buffer.from([0xff]));
    }
    expect(c.closed()).toBe(false); // 4.6 s: past the identify deadline, and frames kept completing
    // then one frame that takes too long: closed
    stops.push(trickle(c.socket, Buffer.from('000000000000010e8e02', 'hex'), 300));
    expect(await until(c.closed, 3000)).toBe(true);
  });

  it('the total limit holds over all listeners: 60 connections, the next ones refused', async () => {
    await until(() => s.running.gateway.core.stats.connections === 0);
    const wialon = s.running.gateway.ports.wialon.tcp!;
    const before = s.running.gateway.core.stats.refusedConnections;
    const conns = await Promise.all(Array.from({ length: 70 }, (_, i) => open(i % 2 ? port : wialon)));
    expect(await until(() => conns.filter((c) => c.closed()).length === 10, 2000)).toBe(true);
    expect(s.running.gateway.core.stats.refusedConnections).toBe(before + 10);
    expect(s.running.gateway.core.stats.connections).toBe(60);
    conns.forEach((c) => c.socket.destroy());
  });
});

describe('settings', () => {
  it('are validated', () => {
    expect(() => loadConfig({ FSM_GATEWAY_IDENTIFY_SECONDS: '0' })).toThrow(new ConfigError('FSM_GATEWAY_IDENTIFY_SECONDS must be from 1 to 3600, got 0'));
    expect(() => loadConfig({ FSM_GATEWAY_FRAME_SECONDS: 'soon' })).toThrow(new ConfigError('FSM_GATEWAY_FRAME_SECONDS must be a whole number from 1 to 3600, got "soon"'));
    expect(() => loadConfig({ FSM_GATEWAY_MAX_CONNECTIONS: '2000000' })).toThrow(new ConfigError('FSM_GATEWAY_MAX_CONNECTIONS must be from 1 to 1000000, got 2000000'));
    expect(loadConfig({}).gateway).toMatchObject({ identifySeconds: 30, frameSeconds: 15, maxConnections: null, maxConnectionsPerAddress: 1000 });
  });

  it('connection limits are lowered to fit the open-file limit, and say so', () => {
    const settings = { identifySeconds: 30, frameSeconds: 15, maxConnections: 100_000, maxConnectionsPerAddress: 1000 };
    const low = connectionLimits(settings, 1024);
    expect(low.limits).toEqual({ identifyMs: 30_000, frameMs: 15_000, maxConnections: 768, maxConnectionsPerAddress: 768 });
    expect(low.notes).toEqual([
      'FSM_GATEWAY_MAX_CONNECTIONS=100000 exceeds what fits: the open-file limit is 1024 (ulimit -n) and 256 are kept for the API, the database and worker threads; using 768',
      'FSM_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS=1000 exceeds the total of 768; using 768',
      'Device connections: at most 768 in total, 768 per address (open-file limit 1024)',
    ]);
    expect(connectionLimits(settings, 1_048_576).limits).toMatchObject({ maxConnections: 100_000, maxConnectionsPerAddress: 1000 });
    expect(connectionLimits(settings, undefined).notes).toEqual(['Device connections: at most 100000 in total, 1000 per address (open-file limit unknown)']);
    // Not set: fits itself to the limit without a warning.
    const auto = connectionLimits({ ...settings, maxConnections: null }, 1024);
    expect(auto.limits.maxConnections).toBe(768);
    expect(auto.notes).toEqual(['FSM_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS=1000 exceeds the total of 768; using 768', 'Device connections: at most 768 in total, 768 per address (open-file limit 1024)']);
    expect(connectionLimits({ ...settings, maxConnections: null }, undefined).limits.maxConnections).toBe(100_000);
    // What the started server holds counts too.
    expect(connectionLimits({ ...settings, maxConnections: 1000 }, 1024, 150).notes[0]).toBe(
      'FSM_GATEWAY_MAX_CONNECTIONS=1000 exceeds what fits: the open-file limit is 1024 (ulimit -n), 150 are held by the started server and 256 are kept for the API, the database and worker threads; using 618',
    );
    expect(connectionLimits({ ...settings, maxConnections: null }, 256, 200).notes).toEqual([
      'No device connection fits: the open-file limit is 256 (ulimit -n), 200 are held by the started server and 128 are kept for the API, the database and worker threads; raise the open-file limit (ulimit -n, LimitNOFILE= in the systemd unit)',
      'FSM_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS=1000 exceeds the total of 0; using 0',
      'Device connections: at most 0 in total, 0 per address (open-file limit 256)',
    ]);
    expect(parseOpenFileLimit('Limit                     Soft Limit           Hard Limit           Units     \nMax open files            1024                 4096                 files     \n')).toBe(1024);
    expect(parseOpenFileLimit('Max open files            unlimited            unlimited            files\n')).toBe(Infinity);
    expect(parseOpenFileLimit('')).toBeUndefined();
  });
});
