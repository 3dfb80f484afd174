/**
 * The unknown-device list stays bounded (issue 10, item 15): a flood of UDP datagrams with distinct
 * unknown IMEIs leaves the newest 1000 devices in the list, repeats are counted on their row, and
 * the API keeps answering meanwhile. Real UDP socket, real server.
 */
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fsm } from '../helpers/cli.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** The vendor's Codec 8 over UDP example; the IMEI sits at bytes 8..22. */
const UDP = Buffer.from('003dcafe0105000f33353230393330383634303336353508010000016b4f815b30010000000000000000000000000000000103021503010101425dbc000001', 'hex');
const datagram = (imei: string) => {
  const b = Buffer.from(UDP);
  b.write(imei, 8, 'latin1');
  return b;
};
const imei = (n: number) => `35${String(n).padStart(13, '0')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let s: TestServer;
let sock: dgram.Socket;
beforeAll(async () => {
  s = await startTestServer({ FSM_TELTONIKA_PORT: '0' });
  sock = dgram.createSocket('udp4');
});
afterAll(async () => {
  sock?.close();
  await s?.close();
});

const rows = () => s.sql.prepare('SELECT COUNT(*) FROM unknown_devices').pluck().get() as number;

describe('unknown devices', () => {
  it('6000 distinct unknown IMEIs: the list keeps the newest 1000, repeats count on one row', async () => {
    const port = s.running.gateway.ports.teltonika.udp!;
    const owner = await s.user('ops@example.com');
    const send = (b: Buffer) => new Promise<void>((r) => sock.send(b, port, '127.0.0.1', () => r()));
    const apiTimes: number[] = [];
    let flooding = true;
    const api = (async () => {
      while (flooding) {
        const t = Date.now();
        expect((await s.call('tracker/list', { hash: owner.hash })).body.success).toBe(true);
        apiTimes.push(Date.now() - t);
        await sleep(20);
      }
    })();
    for (let n = 0; n < 6000; n += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => send(datagram(imei(n + i)))));
      await sleep(5); // paced: the server runs in this process, and the kernel drops what its buffer cannot hold
    }
    for (let i = 0; i < 30; i++) {
      await send(datagram(imei(99_999)));
      await sleep(5);
    }
    await sleep(1500); // written once a second
    flooding = false;
    await api;

    expect(s.running.gateway.core.stats.unknown).toBeGreaterThan(3000);
    expect(rows()).toBe(1000);
    const list = fsm(s.dataDir, 'device', 'unknown', '--json').json as Array<{ device_id: string; count: number }>;
    expect(list).toHaveLength(1000);
    expect(list[0]).toMatchObject({ device_id: imei(99_999), protocol: 'teltonika', count: 30 });
    // the newest are kept (a datagram or two may be dropped by the kernel under a flood)
    const kept = list.slice(1).map((d) => Number(d.device_id.slice(2)));
    expect(Math.min(...kept)).toBeGreaterThan(4000);
    expect(Math.max(...kept)).toBeGreaterThan(5900);
    console.log(`unknown-device flood: API answered ${apiTimes.length} calls meanwhile, slowest ${Math.max(...apiTimes)} ms`);

    // another flood later: still 1000 rows
    for (let n = 10_000; n < 11_500; n += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => send(datagram(imei(n + i)))));
      await sleep(5);
    }
    await sleep(1500);
    expect(rows()).toBe(1000);
  });
});
