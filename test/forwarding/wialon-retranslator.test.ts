/**
 * Forwarding in the Wialon Retranslator binary format (issue 13, docs/retranslators.md) over real
 * sockets, against a receiver written in the test (parsing packets and blocks with its own reads,
 * answering 0x11 per packet): every tracker on one connection under its (fake) id, position block,
 * parameter blocks of each type, per-tracker order; a receiver that answers wrong or goes down.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { serverWithWialon, track, Tracker, waitFor } from './helpers.ts';

interface Got {
  /** Which connection of the receiver carried it. */
  connection: number;
  id: string;
  time: number;
  flags: number;
  pos?: { lng: number; lat: number; alt: number; speed: number; course: number; sats: number };
  /** name -> [type, hidden, value] */
  blocks: Record<string, [number, number, unknown]>;
}

/** The receiver: size (LE), id\0, time and flags (BE), blocks 0x0BBB (BE size), doubles LE. */
class Receiver {
  readonly got: Got[] = [];
  connections = 0;
  answer = 0x11;
  port = 0;
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  async start(port = 0) {
    this.server = createServer((s) => this.connection(s));
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
  }
  async stop() {
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server?.close(r));
  }
  of(id: string) {
    return this.got.filter((g) => g.id === id);
  }
  private connection(socket: Socket) {
    const connection = ++this.connections;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32LE(0)) {
        const p = buf.subarray(4, 4 + buf.readUInt32LE(0));
        buf = buf.subarray(4 + p.length);
        this.got.push({ connection, ...parse(p) });
        socket.write(Buffer.from([this.answer]));
      }
    });
  }
}

function parse(p: Buffer): Omit<Got, 'connection'> {
  const z = p.indexOf(0);
  const g: Omit<Got, 'connection'> = { id: p.toString('latin1', 0, z), time: p.readUInt32BE(z + 1) * 1000, flags: p.readUInt32BE(z + 5), blocks: {} };
  let at = z + 9;
  while (at < p.length) {
    expect(p.readUInt16BE(at)).toBe(0x0bbb);
    const size = p.readUInt32BE(at + 2);
    const end = at + 6 + size;
    const hidden = p[at + 6];
    const type = p[at + 7];
    const nz = p.indexOf(0, at + 8);
    const name = p.toString('latin1', at + 8, nz);
    const v = p.subarray(nz + 1, end);
    if (name === 'posinfo') g.pos = { lng: v.readDoubleLE(0), lat: v.readDoubleLE(8), alt: v.readDoubleLE(16), speed: v.readUInt16BE(24), course: v.readUInt16BE(26), sats: v[28] };
    const value = type === 1 ? v.toString('utf8', 0, v.length - 1) : type === 3 ? v.readInt32BE(0) : type === 4 ? v.readDoubleLE(0) : type === 5 ? Number(v.readBigInt64BE(0)) : v.length;
    if (type === 1) expect(v[v.length - 1]).toBe(0);
    g.blocks[name] = [type, hidden, value];
    at = end;
  }
  return g;
}

let s: TestServer & { wialonPort: number };
let ann: { id: number; hash: string };
const cleanups: Array<() => unknown> = [];
beforeAll(async () => {
  s = await serverWithWialon();
  ann = await s.user('ann@example.com');
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await s?.close();
});

let imei = 863000000000000;
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);
async function receiver(port = 0) {
  const r = new Receiver();
  await r.start(port);
  cleanups.push(() => r.stop());
  return r;
}
async function retranslator(port: number) {
  const r = await s.call('retranslator/create', { hash: ann.hash, retranslator: { name: 'WR', protocol_id: 9, address: '127.0.0.1', port, enabled: true } });
  expect(r.body.success, JSON.stringify(r.body)).toBe(true);
  return r.body.id as number;
}
async function boundTracker(rid: number, fake?: string) {
  const deviceId = String(imei++);
  const tid = s.addTracker(ann.id, deviceId, { protocol: 'wialon' });
  expect((await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: fake })).body).toEqual({ success: true });
  const t = await Tracker.login(s.wialonPort, deviceId);
  cleanups.push(() => t.close());
  return { deviceId, tid, t };
}
const status = async (rid: number) => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((r: any) => r.id === rid).status;
const times = (list: Array<{ time: number }>) => list.map((r) => r.time);

describe('Wialon Retranslator', () => {
  it('one connection carries every tracker: a packet per fix with the position block and typed parameter blocks, in order', async () => {
    const rx = await receiver();
    const rid = await retranslator(rx.port);
    const a = await boundTracker(rid, 'CAR-1');
    const b = await boundTracker(rid);
    const fa = track(T0, 30).map((f, i) => ({ ...f, params: `fuel:2:${i}.5,driver:3:ann,count:1:${i},big:1:5000000000,door:3:true,accuracy:2:4.5` }));
    const fb = track(T0, 20, 100);
    await Promise.all([a.t.send(fa), b.t.send(fb)]);
    await waitFor('50 packets', () => rx.of('CAR-1').length >= 30 && rx.of(b.deviceId).length >= 20);
    expect(new Set(rx.got.map((g) => g.connection)).size).toBe(1);
    expect(times(rx.of('CAR-1'))).toEqual(times(fa));
    expect(times(rx.of(b.deviceId))).toEqual(times(fb));
    const g = rx.of('CAR-1')[7];
    expect(g.flags).toBe(0x01 | 0x02 | 0x04);
    expect(g.pos!.lat).toBeCloseTo(fa[7].lat, 9);
    expect(g.pos!.lng).toBeCloseTo(fa[7].lng, 9);
    expect(g.pos).toMatchObject({ alt: 120, speed: fa[7].speed, course: 90, sats: 9 });
    expect(g.blocks).toMatchObject({
      posinfo: [2, 1, 29],
      avl_inputs: [3, 1, 3],
      avl_outputs: [3, 1, 0],
      hdop: [4, 0, 0.9],
      accuracy: [4, 0, 4.5],
      fuel: [4, 0, 7.5],
      driver: [1, 0, 'ann'],
      count: [3, 0, 7],
      big: [5, 0, 5_000_000_000],
      door: [3, 0, 1],
    });
    await waitFor('backlog 0', async () => (await status(rid)).backlog === 0);
  });

  it('an answer other than 0x11 acknowledges nothing; a receiver down for a while gets the backlog when it returns', async () => {
    const rx = await receiver();
    rx.answer = 0x00;
    const rid = await retranslator(rx.port);
    const { deviceId, t } = await boundTracker(rid);
    await t.send(track(T0, 5));
    await waitFor('error', async () => /answered 0x00 instead of 0x11/.test((await status(rid)).last_error ?? ''));
    await waitFor('backlog 5', async () => (await status(rid)).backlog === 5);
    await rx.stop();
    await t.send(track(T0, 15, 5));
    const back = await receiver(rx.port);
    await waitFor('backlog delivered', () => back.of(deviceId).length >= 20);
    expect(times(back.of(deviceId))).toEqual(times(track(T0, 20)));
    await waitFor('backlog 0', async () => (await status(rid)).backlog === 0);
  });

  it('242 for a fake id that is not zero-terminated text without spaces', async () => {
    const rid = await retranslator(1);
    const tid = s.addTracker(ann.id, String(imei++), { protocol: 'wialon' });
    const r = await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: rid, fake_device_id: 'has space' });
    expect(r.body.status.code).toBe(242);
    expect(r.body.pattern).toBe('^[!-~]{1,64}$');
    expect((await s.call('tracker/retranslator/list', { hash: ann.hash, tracker_id: tid })).body.list).toEqual([]);
  });
});

describe('round trip into a second server through its Wialon Retranslator listener', () => {
  it('the second server stores each forwarded tracker under its (fake) id, in order, with its parameters', async () => {
    const b = await serverWithWialon({ FSM_RETRANSLATOR_PORT: '0' });
    cleanups.push(() => b.close());
    const bob = await b.user('bob@example.com');
    const rid = await retranslator(b.running.gateway.ports.retranslator.tcp!);
    const one = await boundTracker(rid, 'CAR-7');
    const two = await boundTracker(rid);
    b.addTracker(bob.id, 'CAR-7', { protocol: 'retranslator' });
    b.addTracker(bob.id, two.deviceId, { protocol: 'retranslator' });
    const f1 = track(T0, 25).map((f, i) => ({ ...f, params: `fuel:2:${i}.5,count:1:${i}` }));
    const f2 = track(T0, 15, 200);
    await Promise.all([one.t.send(f1), two.t.send(f2)]);
    const rowsOf = (id: string, n: number) =>
      waitFor(`${n} fixes of ${id} in B`, () => {
        const r = b.sql.prepare('SELECT f.time, f.lat, f.lng, f.speed, f.attrs FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ? ORDER BY f.time').all(id) as any[];
        return r.length === n ? r : null;
      });
    const r1 = await rowsOf('CAR-7', 25);
    const r2 = await rowsOf(two.deviceId, 15);
    expect(times(r1)).toEqual(times(f1));
    expect(times(r2)).toEqual(times(f2));
    r1.forEach((r, i) => {
      expect(r.lat).toBeCloseTo(f1[i].lat, 6);
      expect(r.lng).toBeCloseTo(f1[i].lng, 6);
      expect(r.speed).toBeCloseTo(f1[i].speed!, 1);
      expect(JSON.parse(r.attrs)).toMatchObject({ fuel: i + 0.5, count: i });
    });
  });
});
