/**
 * The simulator's socket driver (issue 3) against fake servers on 127.0.0.1: what the server
 * answered is exactly what the simulator reports acknowledged; held-back answers, refusals, silence
 * and dropped connections lead to reconnects and resends, never to a lost or double-counted record.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { protocol as gt06 } from '../../protocols/gt06/index.ts';
import { protocol as osmand } from '../../protocols/osmand.ts';
import { protocol as teltonika } from '../../protocols/teltonika/index.ts';
import { protocol as wialon } from '../../protocols/wialon.ts';
import { runSimulation, SimulationOptionError, type SimulationOptions } from '../../src/simulator/index.ts';
import { startFakeHttpServer, startFakeServer, type FakeServer } from './fake-server.ts';

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs the simulator against `server`, collecting what it reports acknowledged per device. */
async function run(opts: Partial<SimulationOptions> & Pick<SimulationOptions, 'protocol'>) {
  const acked = new Map<string, number[]>();
  const stats = await runSimulation({
    trackers: 3,
    interval: 0.1,
    duration: 1,
    port: server!.port,
    backoff: [0.05, 0.2],
    drainTimeout: 3,
    onAck: (id, recs) => acked.set(id, [...(acked.get(id) ?? []), ...recs.map((r) => r.time)]),
    ...opts,
  });
  return { stats, acked };
}

const unique = (times: number[]) => [...new Set(times)].sort((a, b) => a - b);
const seconds = (times: number[]) => times.map((t) => Math.floor(t / 1000) * 1000);

/** Every record the server saw was acknowledged once, in order, and the simulator knows exactly those. */
function expectAllAcked(acked: Map<string, number[]>, s: FakeServer, toServerTime: (t: number[]) => number[] = (t) => t) {
  expect([...acked.keys()].sort()).toEqual([...s.received.keys()].sort());
  for (const [id, times] of acked) {
    expect(times).toEqual(unique(times)); // increasing, no double counting
    expect(toServerTime(times)).toEqual(unique(s.received.get(id)!)); // nothing the server saw is left unacked
    expect(new Set(s.acked.get(id))).toEqual(new Set(toServerTime(times))); // acked = answered by the server
  }
}

describe('runSimulation over TCP (teltonika)', () => {
  it('connects, sends a record per interval, counts every ACK once', async () => {
    server = await startFakeServer(teltonika);
    const { stats, acked } = await run({ protocol: 'teltonika', trackers: 5, interval: 0.2, duration: 1.5 });
    expect(stats).toMatchObject({ trackers: 5, connects: 5, connected: 0, errors: 0, resent: 0, pending: 0 });
    expect(stats.acked).toBe(stats.sent);
    expect(stats.acked).toBeGreaterThanOrEqual(5 * 7);
    expectAllAcked(acked, server);
    expect([...acked.keys()].sort()).toEqual(['350000000000001', '350000000000002', '350000000000003', '350000000000004', '350000000000005']);
  });

  it('ACKs held back and connections dropped mid-stream: reconnect, resend, nothing lost or counted twice', async () => {
    server = await startFakeServer(teltonika, { policy: ({ frameNo }) => (frameNo === 3 ? 'hold' : frameNo === 6 ? 'drop' : 'ack'), holdMs: 300 });
    const { stats, acked } = await run({ protocol: 'teltonika', trackers: 4, interval: 0.1, duration: 2 });
    expect(stats.connects).toBeGreaterThan(4);
    expect(stats.disconnects).toBeGreaterThan(0);
    expect(stats.resent).toBeGreaterThan(0);
    expect(stats.pending).toBe(0);
    expect(stats.acked).toBe([...acked.values()].reduce((n, t) => n + t.length, 0));
    expect(stats.sent).toBe(stats.acked + stats.resent);
    // the server saw resends (a record twice) but every record is acknowledged exactly once
    const seen = [...server.received.values()].reduce((n, t) => n + t.length, 0);
    expect(seen).toBeGreaterThan(stats.acked);
    expectAllAcked(acked, server);
  });

  it('held-back ACKs make the tracker buffer: later records wait and follow in order after the answer', async () => {
    server = await startFakeServer(teltonika, { policy: ({ frameNo }) => (frameNo === 2 ? 'hold' : 'ack'), holdMs: 500 });
    const { stats, acked } = await run({ protocol: 'teltonika', trackers: 1, interval: 0.05, duration: 1.5, recordsPerPacket: 1 });
    expect(stats).toMatchObject({ errors: 0, pending: 0, connects: 1 });
    expectAllAcked(acked, server);
    // while frame 2 waited ~10 records queued up; with one record per packet they follow one by one
    expect(server.frames.every((n) => n === 1)).toBe(true);
  });

  it('a missing ACK times out: the link is dropped and the packet resent', async () => {
    server = await startFakeServer(teltonika, { policy: ({ total }) => (total === 2 ? 'silent' : 'ack') });
    const { stats, acked } = await run({ protocol: 'teltonika', trackers: 1, interval: 0.1, duration: 1.5, ackTimeout: 0.3 });
    expect(stats.timeouts).toBe(1);
    expect(stats.connects).toBe(2);
    expect(stats.resent).toBeGreaterThanOrEqual(1);
    expect(stats.pending).toBe(0);
    expectAllAcked(acked, server);
  });

  it('a refused packet (count 0) stays buffered and is sent again after a pause', async () => {
    server = await startFakeServer(teltonika, { policy: ({ total }) => (total <= 2 ? 'refuse' : 'ack') });
    const { stats, acked } = await run({ protocol: 'teltonika', trackers: 1, interval: 0.1, duration: 1 });
    expect(stats.refused).toBe(2);
    expect(stats.connects).toBe(1);
    expect(stats.pending).toBe(0);
    expectAllAcked(acked, server);
  });

  it('flood mode: packets of recordsPerPacket records, back to back, times 1 s apart from startTime', async () => {
    server = await startFakeServer(teltonika);
    const startTime = Date.UTC(2025, 0, 1);
    const { stats, acked } = await run({ protocol: 'teltonika', trackers: 3, interval: 0, duration: 1, recordsPerPacket: 50, startTime });
    expect(stats.errors).toBe(0);
    expect(stats.acked).toBe(stats.sent);
    expect(stats.acked).toBeGreaterThanOrEqual(3 * 50 * 5);
    expect(new Set(server.frames)).toEqual(new Set([50]));
    for (const times of acked.values()) expect(times).toEqual(times.map((_, i) => startTime + i * 1000));
    expectAllAcked(acked, server);
  });

  it('a refused login: no record is acknowledged, the tracker keeps retrying with backoff', async () => {
    server = await startFakeServer(teltonika, { acceptLogin: false });
    const { stats, acked } = await run({ protocol: 'teltonika', trackers: 2, interval: 0.1, duration: 1, drainTimeout: 0.2 });
    expect(stats.acked).toBe(0);
    expect(acked.size).toBe(0);
    expect(stats.connects).toBeGreaterThan(2);
    expect(stats.errors).toBeGreaterThan(0);
    expect(stats.pending).toBeGreaterThan(0);
  });

  it('stops at once on abort and when nobody listens', async () => {
    server = await startFakeServer(teltonika);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const t0 = Date.now();
    const { stats } = await run({ protocol: 'teltonika', trackers: 2, duration: 30, signal: controller.signal });
    expect(Date.now() - t0).toBeLessThan(1500);
    expect(stats.connected).toBe(0);
    const port = server.port;
    await server.close();
    server = undefined;
    const down = await runSimulation({ protocol: 'teltonika', trackers: 2, interval: 0.1, duration: 0.5, port, backoff: [0.05, 0.1], drainTimeout: 0.2 });
    expect(down).toMatchObject({ connects: 0, acked: 0 });
    expect(down.errors).toBeGreaterThan(2);
  });
});

describe('runSimulation, other protocols', () => {
  it('gt06: one ACK per frame; a drop in the middle of a burst keeps the frames already answered', async () => {
    server = await startFakeServer(gt06, { policy: ({ frameNo }) => (frameNo === 7 ? 'drop' : 'ack') });
    // flood mode: records 1 s apart, as GT06 times have whole seconds
    const { stats, acked } = await run({ protocol: 'gt06', interval: 0, duration: 0.5, recordsPerPacket: 4 });
    expect(stats.disconnects).toBeGreaterThan(0);
    expect(stats.pending).toBe(0);
    expectAllAcked(acked, server, seconds);
  });

  it('wialon IPS 2.0: #D# one by one, #B# batches', async () => {
    server = await startFakeServer(wialon, { policy: ({ frameNo }) => (frameNo === 4 ? 'drop' : 'ack') });
    // flood mode: records 1 s apart, as Wialon times have whole seconds
    const one = await run({ protocol: 'wialon', interval: 0, duration: 0.5 });
    expect(one.stats.pending).toBe(0);
    expectAllAcked(one.acked, server, seconds);
    await server.close();
    server = await startFakeServer(wialon);
    const batch = await run({ protocol: 'wialon', interval: 0, duration: 0.5, recordsPerPacket: 20 });
    expect(batch.stats).toMatchObject({ errors: 0, pending: 0 });
    expect(new Set(server.frames)).toEqual(new Set([20]));
    expectAllAcked(batch.acked, server, seconds);
  });

  it('osmand over HTTP: GET per record, JSON POST batches; a 503 or a dropped request is resent', async () => {
    server = await startFakeHttpServer(osmand, { policy: ({ total }) => (total === 3 ? 'refuse' : total === 6 ? 'drop' : 'ack') });
    const single = await run({ protocol: 'osmand', interval: 0.1, duration: 1.5 });
    expect(single.stats.refused).toBe(1);
    expect(single.stats.disconnects).toBeGreaterThan(0);
    expect(single.stats.pending).toBe(0);
    expectAllAcked(single.acked, server);
    await server.close();
    server = await startFakeHttpServer(osmand);
    const batch = await run({ protocol: 'osmand', interval: 0.05, duration: 1, recordsPerPacket: 5 });
    expect(batch.stats).toMatchObject({ errors: 0, pending: 0 });
    expect(server.frames.filter((n) => n === 5).length).toBeGreaterThan(3);
    expectAllAcked(batch.acked, server);
  });

  it('refuses bad options with a precise message', async () => {
    const base = { trackers: 1, interval: 1, duration: 1, port: 1 };
    await expect(runSimulation({ ...base, protocol: 'pigeon' })).rejects.toThrow(/unknown protocol pigeon/);
    await expect(runSimulation({ ...base, protocol: 'gt06', deviceIds: ['123'] })).rejects.toThrow(SimulationOptionError);
    await expect(runSimulation({ ...base, protocol: 'teltonika', recordsPerPacket: 300 })).rejects.toThrow(/recordsPerPacket: 1 to 255/);
    await expect(runSimulation({ ...base, protocol: 'teltonika', trackers: 2, deviceIds: ['1', '1'] })).rejects.toThrow(/repeat/);
  });
});
