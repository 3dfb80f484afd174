/**
 * Forwarding over MQTT 3.1.1 and 5 with QoS 1 (issue 13, docs/retranslators.md) through a real
 * broker: Debian's mosquitto where installed (CI installs it), else the aedes broker in-process
 * (3.1.1 only). A subscriber in the test reads each tracker's topic.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { serverWithWialon, track, Tracker, waitFor } from './helpers.ts';

const MOSQUITTO = '/usr/sbin/mosquitto';
let s: TestServer & { wialonPort: number };
let ann: { id: number; hash: string };
let brokerPort = 0;
const cleanups: Array<() => unknown> = [];

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function startBroker(): Promise<{ port: number; v5: boolean }> {
  if (existsSync(MOSQUITTO)) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'fsm-mqtt-'));
    writeFileSync(join(dir, 'm.conf'), `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
    const proc: ChildProcess = spawn(MOSQUITTO, ['-c', join(dir, 'm.conf')], { stdio: 'ignore' });
    cleanups.push(async () => {
      if (proc.exitCode === null) await new Promise((r) => proc.once('exit', r).kill('SIGKILL'));
      rmSync(dir, { recursive: true, force: true });
    });
    await waitFor('mosquitto', () => mqtt.connectAsync({ host: '127.0.0.1', port, reconnectPeriod: 0 }).then((c) => (c.end(true), true)).catch(() => false));
    return { port, v5: true };
  }
  const { Aedes } = await import('aedes');
  const broker = await Aedes.createBroker();
  const server = createServer(broker.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise((r) => broker.close(() => server.close(r))));
  return { port: (server.address() as { port: number }).port, v5: false };
}

let v5 = false;
beforeAll(async () => {
  ({ port: brokerPort, v5 } = await startBroker());
  s = await serverWithWialon();
  ann = await s.user('ann@example.com');
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await s?.close();
});

let imei = 862000000000000;
const T0 = Date.UTC(2026, 10, 20, 8, 0, 0);

describe.each([
  [6, 'MQTT 3.1.1'],
  [7, 'MQTT 5'],
])('protocol %i (%s)', (protocolId) => {
  it('publishes each fix with QoS 1 to the tracker\'s topic, in order', async (ctx) => {
    if (protocolId === 7 && !v5) ctx.skip();
    const sub = await mqtt.connectAsync({ host: '127.0.0.1', port: brokerPort, reconnectPeriod: 0 });
    cleanups.push(() => sub.end(true));
    const got = new Map<string, any[]>();
    sub.on('message', (topic, payload) => {
      const list = got.get(topic) ?? [];
      list.push(JSON.parse(payload.toString()));
      got.set(topic, list);
    });
    await sub.subscribeAsync('trackers/+/fixes', { qos: 1 });
    const r = await s.call('retranslator/create', { hash: ann.hash, retranslator: { name: `mqtt ${protocolId}`, protocol_id: protocolId, address: '127.0.0.1', port: brokerPort, login: `fleet-${protocolId}`, enabled: true } });
    expect(r.body.success).toBe(true);
    const devices: string[] = [];
    const trackers: Tracker[] = [];
    for (let i = 0; i < 2; i++) {
      const deviceId = String(imei++);
      const tid = s.addTracker(ann.id, deviceId, { protocol: 'wialon' });
      await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: r.body.id, fake_device_id: `veh-${protocolId}-${i}` });
      devices.push(`veh-${protocolId}-${i}`);
      const t = await Tracker.login(s.wialonPort, deviceId);
      cleanups.push(() => t.close());
      trackers.push(t);
    }
    const sent = track(T0, 40);
    await Promise.all(trackers.map((t) => t.send(sent)));
    for (const d of devices) {
      const list = await waitFor(`40 on ${d}`, () => ((got.get(`trackers/${d}/fixes`)?.length ?? 0) >= 40 ? got.get(`trackers/${d}/fixes`) : null));
      expect(list.map((f) => f.time)).toEqual(sent.map((f) => new Date(f.time).toISOString()));
      expect(list[7]).toMatchObject({ device_id: d, lat: expect.closeTo(sent[7].lat, 6), speed: 7, valid: true });
    }
    const st = await waitFor('backlog 0', async () => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((x: any) => x.id === r.body.id && x.status.backlog === 0 && x.status.connected)?.status);
    expect(st.last_error).toBeNull();
  });
});

it('a broker that is not there: last_error, not connected, and the fixes wait', async () => {
  const port = await freePort();
  const r = await s.call('retranslator/create', { hash: ann.hash, retranslator: { name: 'nobody', protocol_id: 6, address: '127.0.0.1', port, enabled: true } });
  const deviceId = String(imei++);
  const tid = s.addTracker(ann.id, deviceId, { protocol: 'wialon' });
  await s.call('tracker/retranslator/bind', { hash: ann.hash, tracker_id: tid, retranslator_id: r.body.id });
  const t = await Tracker.login(s.wialonPort, deviceId);
  cleanups.push(() => t.close());
  await t.send(track(T0, 5));
  const st = await waitFor('error', async () => (await s.call('retranslator/list', { hash: ann.hash })).body.list.find((x: any) => x.id === r.body.id && x.status.last_error && x.status.backlog === 5)?.status);
  expect(st.connected).toBe(false);
});
