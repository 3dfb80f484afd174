/**
 * Subscription to an operator's own MQTT broker (FSM_MQTT_BROKER_URL, FSM_MQTT_TOPICS): for devices
 * that publish there rather than to our built-in broker. Each topic filter's `+` level names the
 * device, which must be registered as on every listener. A persistent session (clean: false) at
 * QoS 1, acknowledged through mqtt.js' `handleMessage` hook only once the message's fixes are committed; when
 * the store cannot take them the connection is dropped unacknowledged and the broker sends the
 * message again after the reconnect. A body that does not decode, and a message of an unknown or
 * blocked device, are counted (and listed) and then acknowledged: the broker would otherwise send
 * them forever and hold back everything behind them.
 */
import mqtt from 'mqtt';
import { protocolByName } from '../../protocols/index.ts';
import type { MqttBrokerConfig } from '../config.ts';
import { DeviceSession, type GatewayCore } from './core.ts';

export interface MqttSubscriber {
  close(): Promise<void>;
}

/** The device id a topic names through a filter's `+` level, or undefined when it does not match. */
export function deviceOfTopic(filter: string, topic: string): string | undefined {
  const f = filter.split('/');
  const t = topic.split('/');
  if (f.length !== t.length) return undefined;
  let id: string | undefined;
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '+') id = t[i];
    else if (f[i] !== t[i]) return undefined;
  }
  return id || undefined;
}

export async function subscribeMqtt(core: GatewayCore, config: MqttBrokerConfig): Promise<MqttSubscriber> {
  const sessions = new Map<string, DeviceSession>();
  const route = (topic: string) => {
    for (const s of config.subscriptions) {
      const deviceId = deviceOfTopic(s.topic, topic);
      if (deviceId) return { protocol: protocolByName(s.protocol)!, deviceId };
    }
    return undefined;
  };
  const client = mqtt.connect(config.url, { clientId: config.clientId, clean: false, reconnectPeriod: 1000 });
  // mqtt.js sends a message's PUBACK when this hook calls back without an error (MQTT 3.1.1 and 5).
  client.handleMessage = (packet, callback) => {
    const done = (e: Error | 0) => callback(e === 0 ? undefined : e);
    const message = packet.payload as Buffer;
    const to = route(packet.topic);
    if (!to) return done(0);
    const { protocol, deviceId } = to;
    const counters = core.counters(protocol.name);
    const key = `${protocol.name}\n${deviceId}`;
    let h;
    try {
      let session = sessions.get(key);
      if (!session) {
        session = new DeviceSession(core, protocol, 'mqtt', 'broker');
        const identified = session.handle(protocol.decodeMqttConnect!(deviceId, session.context()));
        if (identified.refused) return done(0); // listed as unknown (or counted as blocked) by the session
        sessions.set(key, session);
      }
      counters.frames++;
      h = session.handle(protocol.decode!(message, session.context()));
    } catch {
      core.stats.malformed++;
      counters.decodeErrors++;
      return done(0);
    }
    if (h.refused) {
      sessions.delete(key); // blocked or deleted meanwhile: looked up afresh next time
      return done(0);
    }
    const records = h.records;
    h.committed.then(
      () => {
        counters.acknowledged += records;
        done(0);
      },
      () => {
        core.stats.storeFailures++;
        done(new Error('store unavailable'));
        client.stream?.destroy(); // unacknowledged: the broker sends it again after the reconnect
      },
    );
  };
  client.on('error', () => undefined);
  client.on('connect', () => {
    client.subscribe(config.subscriptions.map((s) => s.topic), { qos: 1 });
  });
  return { close: () => client.endAsync().then(() => undefined) };
}
