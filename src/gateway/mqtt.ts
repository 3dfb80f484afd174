/**
 * Built-in MQTT listener of a protocol whose devices publish to a broker (iotm, pui): an aedes
 * broker per protocol on its port. Identification: the CONNECT client id goes through the
 * protocol's `decodeMqttConnect` (the device's IMEI or serial) and must be a registered device, as
 * on every listener; an unknown one is listed (`fsm unknown`) and refused with CONNACK 2
 * (identifier rejected), a blocked one with 5 (not authorized). User name and password are not
 * used: the registered id is the credential, as with the TCP protocols.
 * Each PUBLISH body is decoded in `authorizePublish`, which aedes completes before it answers, so
 * the PUBACK (QoS 1) or PUBREC (QoS 2) goes out only once the fixes are committed. A body that does
 * not decode, or a store that cannot take data, closes that client only (no acknowledgement: the
 * device keeps its data and sends it again). Devices may not subscribe.
 */
import net from 'node:net';
import { Aedes, type AuthenticateError, type Client } from 'aedes';
import { DecodeError, type Protocol } from '../../protocols/types.ts';
import { DeviceSession, type GatewayCore } from './core.ts';
import { admitConnection } from './tcp.ts';

/** CONNACK return codes of MQTT 3.1.1. */
const IDENTIFIER_REJECTED = 2;
const NOT_AUTHORIZED = 5;

export interface MqttListener {
  server: net.Server;
  close(): Promise<void>;
}

function refusal(message: string, returnCode: number): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

export async function listenMqtt(core: GatewayCore, protocol: Protocol, host: string, port: number, limits: { maxConnectionsPerAddress: number; identifyMs: number }): Promise<MqttListener> {
  const counters = core.counters(protocol.name);
  const sessions = new WeakMap<Client, DeviceSession>();
  const badInput = (client: Client) => {
    core.stats.malformed++;
    counters.decodeErrors++;
    sessions.delete(client);
  };
  const broker = await Aedes.createBroker({
    connectTimeout: limits.identifyMs,
    maxClientsIdLength: 64,
    authenticate(client, _username, _password, done) {
      const address = (client.conn as net.Socket).remoteAddress ?? '?';
      const session = new DeviceSession(core, protocol, 'mqtt', address);
      let result;
      try {
        result = protocol.decodeMqttConnect!(client.id, session.context());
      } catch (e) {
        badInput(client);
        return done(refusal(e instanceof DecodeError ? e.message : 'bad client id', IDENTIFIER_REJECTED), false);
      }
      const h = session.handle(result);
      if (h.refused) return done(refusal(`device ${h.refused.reason}`, h.refused.reason === 'unknown' ? IDENTIFIER_REJECTED : NOT_AUTHORIZED), false);
      if (!session.isIdentified) return done(refusal('device not identified', IDENTIFIER_REJECTED), false);
      sessions.set(client, session);
      done(null, true);
    },
    authorizePublish(client, packet, done) {
      const session = client && sessions.get(client);
      if (!session) return done(new Error('not identified'));
      counters.frames++;
      if (packet.payload.length > protocol.maxFrameSize) {
        badInput(client);
        return done(new Error('body too large'));
      }
      let h;
      try {
        h = session.handle(protocol.decode!(Buffer.from(packet.payload), session.context()));
      } catch {
        badInput(client);
        return done(new Error('bad body'));
      }
      if (h.refused) return done(new Error(`device ${h.refused.reason}`));
      h.committed.then(
        () => {
          counters.acknowledged += h.records;
          done(null);
        },
        () => {
          core.stats.storeFailures++;
          done(new Error('store unavailable'));
        },
      );
    },
    authorizeSubscribe(_client, _subscription, done) {
      done(null, null); // SUBACK failure: nothing is published to devices through this broker
    },
  });
  broker.on('clientError', () => undefined);
  broker.on('connectionError', () => undefined);
  const server = net.createServer((socket) => {
    if (!admitConnection(core, socket, counters, limits)) return;
    broker.handle(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    close: () => new Promise<void>((resolve) => broker.close(() => resolve())),
  };
}
