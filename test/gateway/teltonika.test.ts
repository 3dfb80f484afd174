/**
 * The gateway over real TCP sockets with real Teltonika packets (issue 3): identification,
 * ACK after commit, unknown and blocked devices, malformed frames, trackers added while running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsm } from '../helpers/cli.ts';
import { connect as connectDevice, imeiPacket, TELTONIKA_DATA as DATA, until } from '../helpers/device-socket.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The shared device client, with the sends and waits these tests use (5 s each). */
async function connect(port: number) {
  const c = await connectDevice(port);
  return {
    ...c,
    send: (b: Buffer) => c.socket.write(b),
    waitBytes: (n: number) => until(() => c.received().length >= n, 5000),
    waitClosed: () => until(() => c.closed(), 5000),
  };
}

let s: TestServer;
let port: number;
let owner: { id: number; hash: string };
beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0' });
  port = s.running.gateway.ports.teltonika.tcp!;
  owner = await s.user('fleet@example.com');
});
afterAll(() => s.close());

const fixCount = (deviceId: string) =>
  (s.sql.prepare('SELECT COUNT(*) FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ?').pluck().get(deviceId) as number);

describe('teltonika over TCP', () => {
  it('accepts a registered device: 0x01 to the IMEI, the record count after the records are stored', async () => {
    const tid = s.addTracker(owner.id, '356307042441013');
    const c = await connect(port);
    c.send(imeiPacket('356307042441013'));
    expect(await c.waitBytes(1)).toBe(true);
    expect(c.received().toString('hex')).toBe('01');
    c.send(DATA);
    expect(await c.waitBytes(5)).toBe(true);
    expect(c.received().subarray(1).toString('hex')).toBe('00000002');
    // acknowledged means stored
    expect(fixCount('356307042441013')).toBe(2);
    const src = s.store.trackers.getAny(tid)!.source_id;
    const state = s.sql.prepare('SELECT * FROM device_state WHERE source_id = ?').get(src) as any;
    expect(state.fix_time).toBe(Date.parse('2025-06-13T15:18:07.000Z')); // the newer of the two records
    expect(typeof state.lat).toBe('number');
    expect(s.store.trackers.getAny(tid)!.first_seen).not.toBeNull();
    c.socket.destroy();
  });

  it('the same packet sent again (ACK lost) is stored once', async () => {
    const c = await connect(port);
    c.send(imeiPacket('356307042441013'));
    await c.waitBytes(1);
    c.send(DATA);
    await c.waitBytes(5);
    expect(fixCount('356307042441013')).toBe(2);
    c.socket.destroy();
  });

  it('refuses an unknown device with 0x00, closes, and lists it', async () => {
    const c = await connect(port);
    c.send(imeiPacket('999999999999999'));
    expect(await c.waitClosed()).toBe(true);
    expect(c.received().toString('hex')).toBe('00');
    await new Promise((r) => setTimeout(r, 1300)); // the registry writes unknown devices once a second
    const r = fsm(s.dataDir, 'device', 'unknown', '--json');
    expect(r.json).toEqual([expect.objectContaining({ device_id: '999999999999999', protocol: 'teltonika', address: expect.stringContaining('127.0.0.1'), count: 1 })]);
  });

  it('recognises a tracker added with the admin command within 2 seconds', async () => {
    expect(fsm(s.dataDir, 'tracker', 'add', '--user', 'fleet@example.com', '--device-id', '356307042441099', '--protocol', 'teltonika').code).toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
    const c = await connect(port);
    c.send(imeiPacket('356307042441099'));
    await c.waitBytes(1);
    expect(c.received().toString('hex')).toBe('01');
    c.socket.destroy();
  });

  it('does not accept data of a blocked tracker', async () => {
    const tid = s.addTracker(owner.id, '356307042441020');
    s.store.trackers.setBlocked(s.store.trackers.getAny(tid)!.source_id, true);
    s.running.gateway.core.registry.refresh();
    const c = await connect(port);
    c.send(imeiPacket('356307042441020'));
    expect(await c.waitClosed()).toBe(true);
    expect(c.received().toString('hex')).toBe('00');
    expect(fixCount('356307042441020')).toBe(0);
  });

  it('a malformed frame closes that connection only, and is counted', async () => {
    s.addTracker(owner.id, '356307042441030');
    const good = await connect(port);
    good.send(imeiPacket('356307042441030'));
    await good.waitBytes(1);
    const before = s.running.gateway.core.stats.malformed;
    const bad = await connect(port);
    bad.send(imeiPacket('356307042441030'));
    await bad.waitBytes(1);
    const broken = Buffer.from(DATA);
    broken[8] = 0x99; // no such codec
    bad.send(broken);
    expect(await bad.waitClosed()).toBe(true);
    expect(s.running.gateway.core.stats.malformed).toBe(before + 1);
    good.send(DATA);
    expect(await good.waitBytes(5)).toBe(true);
    expect(good.received().subarray(1).toString('hex')).toBe('00000002');
    good.socket.destroy();
  });

  it('a frame larger than the protocol allows closes the connection', async () => {
    const c = await connect(port);
    c.send(imeiPacket('356307042441013'));
    await c.waitBytes(1);
    const huge = Buffer.alloc(8 + 4);
    huge.writeUInt32BE(0x7fffffff, 4);
    c.send(huge);
    expect(await c.waitClosed()).toBe(true);
  });
});
