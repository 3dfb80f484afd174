/**
 * The gateway's other transports and limits over real sockets (issue 3): Teltonika over UDP,
 * OsmAnd over HTTP, the idle timeout, the connection limit per address, and backpressure.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { avlPacket, loginPacket } from '../../src/simulator/devices/teltonika.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The vendor's Codec 8 over UDP example: IMEI 352093086403655, one record, packet id 0xcafe, AVL packet id 5. */
const UDP = Buffer.from('003dcafe0105000f33353230393330383634303336353508010000016b4f815b30010000000000000000000000000000000103021503010101425dbc000001', 'hex');

let s: TestServer;
let owner: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0', FSM_OSMAND_PORT: '0', FSM_GATEWAY_IDLE_SECONDS: '1', FSM_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '3' });
  owner = await s.user('fleet@example.com');
});
afterAll(() => s.close());

const stored = (deviceId: string) => s.sql.prepare('SELECT COUNT(*) FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ?').pluck().get(deviceId) as number;

describe('teltonika over UDP', () => {
  it('acknowledges a datagram with its packet and AVL ids after storing it', async () => {
    s.addTracker(owner.id, '352093086403655');
    const sock = dgram.createSocket('udp4');
    const reply = new Promise<Buffer>((resolve) => sock.once('message', resolve));
    sock.send(UDP, s.running.gateway.ports.teltonika.udp!, '127.0.0.1');
    expect((await reply).toString('hex')).toBe('0005cafe010501');
    expect(stored('352093086403655')).toBe(1);
    sock.close();
  });
  it('answers an unknown device with nothing stored', async () => {
    const sock = dgram.createSocket('udp4');
    const other = Buffer.from(UDP);
    other.write('352093086403699', 9, 'latin1'); // another IMEI
    sock.send(other, s.running.gateway.ports.teltonika.udp!, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 300));
    expect(stored('352093086403699')).toBe(0);
    sock.close();
  });
});

describe('osmand over HTTP', () => {
  const url = () => `http://127.0.0.1:${s.running.gateway.ports.osmand.http}`;
  it('GET with query parameters: 200 once stored', async () => {
    s.addTracker(owner.id, '48241179', { protocol: 'osmand' });
    const res = await fetch(`${url()}/?id=48241179&lat=52.5&lon=13.4&timestamp=${Math.floor(Date.now() / 1000) - 60}&speed=10&bearing=90`);
    expect(res.status).toBe(200);
    expect(stored('48241179')).toBe(1);
  });
  it('POST with the JSON body phone apps send', async () => {
    const body = { location: { timestamp: new Date(Date.now() - 30_000).toISOString(), coords: { latitude: 52.51, longitude: 13.41, accuracy: 5, speed: 3, heading: 90, altitude: 40 }, is_moving: true, odometer: 0 }, device_id: '48241179' };
    const res = await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(stored('48241179')).toBe(2);
  });
  it('404 for an unknown device, 400 for a malformed request; nothing stored', async () => {
    expect((await fetch(`${url()}/?id=99999&lat=52.5&lon=13.4`)).status).toBe(404);
    expect((await fetch(url(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"location": ' })).status).toBe(400);
    expect(stored('99999')).toBe(0);
  });
});

async function open(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => undefined);
  await new Promise((r) => socket.once('connect', r));
  return { socket, closed: () => closed };
}
const until = async (cond: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; !cond() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
  return cond();
};

describe('limits', () => {
  it('closes a connection that stays silent past the idle timeout', async () => {
    const c = await open(s.running.gateway.ports.teltonika.tcp!);
    expect(await until(c.closed, 4000)).toBe(true);
  });
  it('refuses connections beyond the limit per address, others keep working', async () => {
    const port = s.running.gateway.ports.teltonika.tcp!;
    const before = s.running.gateway.core.stats.refusedConnections;
    const conns = await Promise.all([1, 2, 3, 4].map(() => open(port)));
    expect(await until(() => conns.filter((c) => c.closed()).length === 1, 2000)).toBe(true);
    expect(s.running.gateway.core.stats.refusedConnections).toBe(before + 1);
    conns.forEach((c) => c.socket.destroy());
  });
  it('stops reading a tracker that sends faster than the store takes, and acknowledges everything in order', async () => {
    s.addTracker(owner.id, '356307042440001');
    // the connections of the test before are closed by then (the limit per address counts them)
    expect(await until(() => s.running.gateway.core.stats.connections === 0)).toBe(true);
    const port = s.running.gateway.ports.teltonika.tcp!;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let got = Buffer.alloc(0);
    socket.on('data', (d) => (got = Buffer.concat([got, d])));
    socket.write(loginPacket('356307042440001'));
    const t0 = Date.UTC(2026, 0, 1);
    const fix = (k: number) => ({ time: t0 + k * 1000, lat: 54.6, lng: 25.2, altitude: 100, speed: 30, course: 90, satellites: 9, hdop: 1, ignition: true, motion: true, power: 13.8, battery: 4.1, batteryLevel: 90, fuelLevel: 50, odometer: k, inputs: 1, rssi: 4, cell: { mcc: 1, mnc: 1, lac: 1, cid: 1 }, event: 0 });
    // 200 packets of 25 records in one burst: more than the 64 frames a connection may have awaiting commit.
    const burst = Buffer.concat(Array.from({ length: 200 }, (_, p) => avlPacket(Array.from({ length: 25 }, (_, i) => fix(p * 25 + i)))));
    socket.write(burst);
    expect(await until(() => got.length >= 1 + 200 * 4, 30_000)).toBe(true);
    for (let p = 0; p < 200; p++) expect(got.readUInt32BE(1 + p * 4)).toBe(25);
    expect(stored('356307042440001')).toBe(5000);
    socket.destroy();
  });
});
