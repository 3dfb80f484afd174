/**
 * MQTT 3.1.1 and 5 with QoS 1: one connection per retranslator (login and password as MQTT
 * credentials), each fix published as the JSON object of the webhook shape to
 * `trackers/<device id>/fixes`; the broker's PUBACK acknowledges it. One connection publishes in
 * order, so each tracker's topic keeps the fixes' order.
 */
import mqtt from 'mqtt';
import type { ForwardFix, ForwardProtocol, OpenOptions, Session, Target } from '../types.ts';
import { fixJsonText } from './json-webhook.ts';

export const topicOf = (deviceId: string) => `trackers/${deviceId}/fixes`;

function protocol(id: number, version: 4 | 5): ForwardProtocol {
  return {
    id,
    name: `MQTT ${version === 4 ? '3.1.1' : '5'}`,
    hasLogin: true,
    hasPassword: true,
    requiredLogin: false,
    requiredPassword: false,
    // a topic level: no wildcards, no separators
    fakeDeviceIdPattern: '^[^/+#\\s]{1,64}$',
    defaultPort: 1883,
    sessions: 'shared',
    ordered: true,
    batch: 1000,
    async open(target: Target, _deviceId: string | undefined, opts: OpenOptions): Promise<Session> {
      const client = await mqtt.connectAsync({
        host: target.address,
        port: target.port,
        protocolVersion: version,
        username: target.login || undefined,
        password: target.password || undefined,
        connectTimeout: opts.timeoutMs,
        reconnectPeriod: 0, // the engine reconnects (with backoff) and resends what was not acknowledged
        clean: true,
      });
      let broken: Error | null = null;
      const fail = (e: Error) => (broken ??= e);
      client.on('error', fail);
      client.on('close', () => fail(new Error('connection to the broker closed')));
      return {
        async send(fixes: ForwardFix[]) {
          if (broken) throw broken;
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no PUBACK within ${opts.timeoutMs} ms`)), opts.timeoutMs)));
          try {
            await Promise.race([Promise.all(fixes.map((f) => client.publishAsync(topicOf(f.deviceId), fixJsonText(f), { qos: 1 }))), timeout]);
          } finally {
            clearTimeout(timer);
          }
          if (broken) throw broken;
        },
        close() {
          client.end(true);
        },
      };
    },
  };
}

export const mqtt311 = protocol(6, 4);
export const mqtt5 = protocol(7, 5);
