/**
 * The built-in MQTT listener over real sockets (issue 29): a device (the `mqtt` client) connects with
 * its IMEI as client id, publishes captured bodies at QoS 1 and gets each PUBACK once the fixes are
 * stored; an unregistered device gets CONNACK 2 and is listed as unknown; a bad body closes only
 * that client; a QoS 1 body sent again after a lost PUBACK stores its fix once.
 */
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
const clients: mqtt.MqttClient[] = [];
beforeAll(async () => {
  s = await startTestServer({ FSM_PUI_PORT: '0', FSM_IOTM_PORT: '0' });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.endAsync(true)));
  await s?.close();
});

const url = (p: 'pui' | 'iotm') => `mqtt://127.0.0.1:${s.running.gateway.ports[p].mqtt}`;
const connect = async (p: 'pui' | 'iotm', clientId: string) => {
  const c = await mqtt.connectAsync(url(p), { clientId, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(c);
  return c;
};
const stored = (deviceId: string) => s.sql.prepare('SELECT COUNT(*) FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ?').pluck().get(deviceId) as number;
const pui = (ts: string) => JSON.stringify({ id: '015262001044848', ts, rpt: 'hf', location: { lat: 33.91233, lon: -84.20784 }, bear: 70, spd: 2482, ign: 'on' });
/** A captured iotm body (one record: GNSS fix, power, ignition). */
const IOTM = '020208009188752de7120300013a002000ad59050030b135030340030c300301a00302a00e00d0b9ab5b420334c04100001f060000320004072064008c000162002000c004476f6f440109002100ad59050030ba359b';

describe('MQTT listener', () => {
  it('a registered pui device publishes at QoS 1: PUBACK after the fix is stored, read back through the API', async () => {
    const owner = await s.user('mqtt@example.com');
    const trackerId = s.addTracker(owner.id, '123456789012345', { protocol: 'pui' });
    const c = await connect('pui', '123456789012345');
    // publishAsync resolves when the PUBACK arrives.
    await c.publishAsync('pui/123456789012345', pui('2023-06-01T03:09:51.362Z'), { qos: 1 });
    expect(stored('123456789012345')).toBe(1); // committed before the PUBACK was sent
    const point = await s.call('tracker/get_last_gps_point', { hash: owner.hash, tracker_id: trackerId });
    expect(point.status).toBe(200);
    expect(point.body.value.lat).toBeCloseTo(33.91233, 5);
    expect(point.body.value.lng).toBeCloseTo(-84.20784, 5);
  });

  it('iotm: a captured binary body is stored under the client id', async () => {
    const owner = await s.user('iotm@example.com');
    s.addTracker(owner.id, '865959506137419', { protocol: 'iotm' });
    const c = await connect('iotm', '865959506137419');
    await c.publishAsync('865959506137419/DATA', Buffer.from(IOTM, 'hex'), { qos: 1 });
    expect(stored('865959506137419')).toBeGreaterThan(0);
  });

  it('refuses an unregistered client id with CONNACK 2 and lists it as unknown', async () => {
    const err = await mqtt.connectAsync(url('pui'), { clientId: '990000000000001', reconnectPeriod: 0 }).then(
      (c) => (clients.push(c), undefined),
      (e: { code?: number }) => e,
    );
    expect(err?.code).toBe(2);
    await new Promise((r) => setTimeout(r, 1500)); // the unknown-device list is written once a second
    expect(s.sql.prepare("SELECT protocol FROM unknown_devices WHERE device_id = '990000000000001'").pluck().all()).toEqual(['pui']);
  });

  it('a body that does not decode closes that client only, counted; the listener keeps serving', async () => {
    const owner = await s.user('bad@example.com');
    s.addTracker(owner.id, '555000000000001', { protocol: 'pui' });
    s.addTracker(owner.id, '555000000000002', { protocol: 'pui' });
    const bad = await connect('pui', '555000000000001');
    const good = await connect('pui', '555000000000002');
    const before = s.running.gateway.core.counters('pui').decodeErrors;
    const closed = new Promise<void>((r) => bad.once('close', () => r()));
    bad.publish('pui/x', 'not json', { qos: 1 });
    await closed;
    expect(s.running.gateway.core.counters('pui').decodeErrors).toBe(before + 1);
    expect(stored('555000000000001')).toBe(0);
    await good.publishAsync('pui/y', pui('2023-06-01T04:00:00Z'), { qos: 1 });
    expect(stored('555000000000002')).toBe(1);
  });

  it('a QoS 1 body sent again (its PUBACK lost with the connection) stores its fix once', async () => {
    const owner = await s.user('dup@example.com');
    s.addTracker(owner.id, '777000000000001', { protocol: 'pui' });
    const body = pui('2023-06-01T05:00:00Z');
    const first = await connect('pui', '777000000000001');
    await first.publishAsync('pui/z', body, { qos: 1 });
    await first.endAsync(true);
    const again = await connect('pui', '777000000000001');
    await again.publishAsync('pui/z', body, { qos: 1, dup: true });
    expect(stored('777000000000001')).toBe(1);
  });
});
