/**
 * Subscribing to an operator's MQTT broker (FSM_MQTT_BROKER_URL / FSM_MQTT_TOPICS, issue 29), against
 * an in-process aedes broker: a device's QoS 1 message on `pui/<imei>/report` is stored under that
 * device, and the broker sees our PUBACK only after the commit; an unknown device's message is
 * listed and acknowledged (never redelivered forever). Also the settings' validation.
 */
import net from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { deviceOfTopic } from '../../src/gateway/mqtt-subscribe.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let broker: Aedes;
let server: net.Server;
let s: TestServer;
let device: mqtt.MqttClient;
/** Message ids our gateway acknowledged to the broker, as the broker saw them. */
const acked: Array<{ messageId: number; storedThen: number }> = [];
const stored = (deviceId: string) => s.sql.prepare('SELECT COUNT(*) FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ?').pluck().get(deviceId) as number;

beforeAll(async () => {
  broker = await Aedes.createBroker();
  server = net.createServer(broker.handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `mqtt://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  s = await startTestServer({ FSM_MQTT_BROKER_URL: url, FSM_MQTT_TOPICS: 'pui=pui/+/report', FSM_MQTT_CLIENT_ID: 'fsm-test' });
  broker.on('ack', (packet, client) => {
    if (client?.id === 'fsm-test' && packet && 'messageId' in packet) acked.push({ messageId: packet.messageId!, storedThen: stored('123456789012345') });
  });
  device = await mqtt.connectAsync(url, { clientId: 'device-1', reconnectPeriod: 0 });
  // The gateway's subscription is in place once the broker lists it.
  for (let i = 0; i < 100 && !(await hasSubscriber()); i++) await new Promise((r) => setTimeout(r, 50));
});
afterAll(async () => {
  await device?.endAsync(true);
  await s?.close();
  await new Promise<void>((r) => broker?.close(() => r()));
  server?.close();
});

async function hasSubscriber(): Promise<boolean> {
  return [...Object.values((broker as unknown as { clients: Record<string, { subscriptions: Record<string, unknown> }> }).clients)].some((c) => 'pui/+/report' in (c.subscriptions ?? {}));
}
const body = (ts: string) => JSON.stringify({ ts, rpt: 'loc', location: { lat: 33.91233, lon: -84.20784 }, bear: 70, spd: 100, ign: 'off' });
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
};

describe('operator broker', () => {
  it('stores a registered device\'s QoS 1 message and acknowledges it only after the commit', async () => {
    const owner = await s.user('op@example.com');
    s.addTracker(owner.id, '123456789012345', { protocol: 'pui' });
    await device.publishAsync('pui/123456789012345/report', body('2023-06-01T03:09:51Z'), { qos: 1 });
    await until(() => acked.length > 0);
    expect(stored('123456789012345')).toBe(1);
    expect(acked.map((a) => a.storedThen)).toEqual([1]); // the fix was already stored when the PUBACK reached the broker
  });

  it('lists an unknown device and acknowledges its message', async () => {
    await device.publishAsync('pui/990000000000002/report', body('2023-06-01T03:10:00Z'), { qos: 1 });
    await until(() => acked.length > 1);
    expect(acked.length).toBe(2);
    await new Promise((r) => setTimeout(r, 1500)); // the unknown-device list is written once a second
    expect(s.sql.prepare("SELECT protocol FROM unknown_devices WHERE device_id = '990000000000002'").pluck().all()).toEqual(['pui']);
  });
});

describe('settings', () => {
  it('reads the device id from the one + level', () => {
    expect(deviceOfTopic('pui/+/report', 'pui/861/report')).toBe('861');
    expect(deviceOfTopic('pui/+/report', 'pui/861/other')).toBeUndefined();
  });
  it('validates FSM_MQTT_BROKER_URL and FSM_MQTT_TOPICS', () => {
    expect(loadConfig({ FSM_MQTT_BROKER_URL: 'mqtt://b:1883', FSM_MQTT_TOPICS: 'iotm=+/DATA' }).gateway.mqttBroker).toEqual({ url: 'mqtt://b:1883', clientId: 'fsm-gateway', subscriptions: [{ protocol: 'iotm', topic: '+/DATA' }] });
    expect(loadConfig({}).gateway.mqttBroker).toBeNull();
    expect(() => loadConfig({ FSM_MQTT_BROKER_URL: 'http://b' , FSM_MQTT_TOPICS: 'pui=+' })).toThrow(new ConfigError('FSM_MQTT_BROKER_URL must be an mqtt(s) or ws(s) URL, got "http://b"'));
    expect(() => loadConfig({ FSM_MQTT_BROKER_URL: 'mqtt://b' })).toThrow(new ConfigError('FSM_MQTT_BROKER_URL needs FSM_MQTT_TOPICS, e.g. pui=pui/+/report'));
    expect(() => loadConfig({ FSM_MQTT_BROKER_URL: 'mqtt://b', FSM_MQTT_TOPICS: 'pui=a/#' })).toThrow(new ConfigError('FSM_MQTT_TOPICS: topic "a/#" must have exactly one + level (the device id) and no #'));
    expect(() => loadConfig({ FSM_MQTT_BROKER_URL: 'mqtt://b', FSM_MQTT_TOPICS: 'gt06=+' })).toThrow(/FSM_MQTT_TOPICS: "gt06=\+" must be <mqtt protocol>=<topic filter>/);
    expect(() => loadConfig({ FSM_MQTT_TOPICS: 'pui=+' })).toThrow(new ConfigError('FSM_MQTT_TOPICS is set but FSM_MQTT_BROKER_URL is not'));
  });
});
