/**
 * The device gateway: every protocol's listeners (TCP, UDP, HTTP as the protocol uses them), the
 * registry of known devices and the writer thread. Owns all device I/O.
 */
import type { Server as HttpServer } from 'node:http';
import type { Server as NetServer } from 'node:net';
import type { Socket as UdpSocket } from 'node:dgram';
import { PROTOCOLS, portVariable } from '../../protocols/index.ts';
import type { Config } from '../config.ts';
import type { Store } from '../store/index.ts';
import { GatewayCore, type ConnectionLimits, type GatewayHooks } from './core.ts';
import { listenHttp } from './http.ts';
import { fileMediaStore } from './media.ts';
import { join } from 'node:path';
import { DeviceRegistry } from './registry.ts';
import { listenTcp } from './tcp.ts';
import { listenMqtt, type MqttListener } from './mqtt.ts';
import { subscribeMqtt } from './mqtt-subscribe.ts';
import { listenUdp } from './udp.ts';
import { FixWriter } from './writer.ts';

export interface Gateway {
  core: GatewayCore;
  /** Bound ports per protocol and transport (ephemeral ports resolved). */
  ports: Record<string, { tcp?: number; udp?: number; http?: number; mqtt?: number }>;
  /** Listeners not (or no longer) taking devices, as `protocol/transport`, and `writer` when it cannot commit (/ready). */
  down(): string[];
  close(): Promise<void>;
}

/**
 * A port the server cannot listen on (already in use, or privileged): the server refuses to start
 * with this one line instead of running without a listener its trackers expect (docs/gateway.md).
 */
export class PortUnavailable extends Error {}

/** The operator's line for a listener that could not open its port; other errors pass unchanged. */
export function portError(e: unknown, what: string, host: string, port: number, variable: string, off?: string): unknown {
  const code = (e as { code?: string })?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return e;
  const why = code === 'EADDRINUSE' ? 'is already in use' : 'may not be opened by this user';
  return new PortUnavailable(`cannot start: ${what} port ${port} on ${host} ${why}; set ${variable} to a free port${off ? `, or to off to run without ${off}` : ''}`);
}

export interface GatewayOptions {
  /** Connection limits (src/gateway/limits.ts derives them from the settings and the open-file limit). */
  limits?: Partial<ConnectionLimits>;
  /** The clock (ms UTC). */
  now?: () => number;
}

export async function startGateway(config: Readonly<Config>, store: Store, hooks: GatewayHooks = {}, opts: GatewayOptions = {}): Promise<Gateway> {
  const now = opts.now ?? Date.now;
  const writer = new FixWriter(config.dbFile, { synchronous: config.gateway.synchronous });
  await writer.ready;
  const registry = new DeviceRegistry(store.devices);
  const core = new GatewayCore(registry, writer, hooks, now, fileMediaStore(join(config.dataDir, 'media'), now, hooks.log), opts.limits);
  const host = config.gateway.host;
  const limits = { idleMs: config.gateway.idleSeconds * 1000, maxConnectionsPerAddress: config.gateway.maxConnectionsPerAddress, maxInflight: 64 };
  const servers: Array<NetServer | HttpServer> = [];
  const open = new Set<import('node:net').Socket>();
  const track = (s: NetServer | HttpServer) => {
    s.on('connection', (sock: import('node:net').Socket) => {
      open.add(sock);
      sock.once('close', () => open.delete(sock));
    });
    servers.push(s);
  };
  const sockets: UdpSocket[] = [];
  const brokers: Array<Pick<MqttListener, 'close'>> = [];
  // The MQTT brokers stop after the sockets are closed (their pending commits answered or dropped).
  const closeBrokers = () => Promise.all(brokers.map((b) => b.close())).then(() => undefined);
  const ports: Gateway['ports'] = {};
  const listeners: Array<{ name: string; up: () => boolean }> = [];
  try {
    for (const [name, protocol] of PROTOCOLS) {
      const port = config.protocolPorts[name];
      if (port === null || port === undefined) continue;
      const bound: Gateway['ports'][string] = {};
      const inUse = (transport: string, p: number) => (e: unknown) => Promise.reject(portError(e, `${name} ${transport}`, host, p, portVariable(name), name));
      if (protocol.transports.includes('http')) {
        const s = await listenHttp(core, protocol, host, port).catch(inUse('http', port));
        track(s);
        listeners.push({ name: `${name}/http`, up: () => s.listening });
        bound.http = (s.address() as { port: number }).port;
      }
      if (protocol.transports.includes('tcp')) {
        const s = await listenTcp(core, protocol, host, port, limits).catch(inUse('tcp', port));
        track(s);
        listeners.push({ name: `${name}/tcp`, up: () => s.listening });
        bound.tcp = (s.address() as { port: number }).port;
      }
      if (protocol.transports.includes('mqtt')) {
        const m = await listenMqtt(core, protocol, host, port, { maxConnectionsPerAddress: limits.maxConnectionsPerAddress, identifyMs: core.limits.identifyMs });
        track(m.server);
        brokers.push(m);
        listeners.push({ name: `${name}/mqtt`, up: () => m.server.listening });
        bound.mqtt = (m.server.address() as { port: number }).port;
      }
      if (protocol.transports.includes('udp')) {
        // The UDP listener shares the TCP port number (as devices are configured), or its own when ephemeral.
        const udpPort = port === 0 ? 0 : (bound.tcp ?? port);
        const u = await listenUdp(core, protocol, host, udpPort).catch(inUse('udp', udpPort));
        sockets.push(u);
        let udpOpen = true;
        u.once('close', () => (udpOpen = false));
        listeners.push({ name: `${name}/udp`, up: () => udpOpen });
        bound.udp = u.address().port;
      }
      ports[name] = bound;
    }
    if (config.gateway.mqttBroker) brokers.push(await subscribeMqtt(core, config.gateway.mqttBroker));
  } catch (e) {
    await closeAll(core, servers, sockets, open, registry, writer);
    await closeBrokers();
    throw e;
  }
  const down = () => [...listeners.filter((l) => !l.up()).map((l) => l.name), ...(writer.alive ? [] : ['writer'])];
  return { core, ports, down, close: () => closeAll(core, servers, sockets, open, registry, writer, config.gateway.shutdownSeconds * 1000).then(closeBrokers) };
}

/**
 * Graceful stop (SIGTERM, SIGINT): stop accepting, let every frame already read commit and its
 * acknowledgement reach the device, then close what is left; bounded by `graceMs`. The writer closes
 * last, so the commits the connections wait for still happen.
 */
async function closeAll(core: GatewayCore, servers: Array<NetServer | HttpServer>, sockets: UdpSocket[], open: Set<import('node:net').Socket>, registry: DeviceRegistry, writer: FixWriter, graceMs = 10_000) {
  // Stop listening; HTTP devices waiting for their answer keep their request until it is sent.
  const stopped = Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  for (const s of servers) if ('closeIdleConnections' in s) s.closeIdleConnections();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((r) => (timer = setTimeout(r, graceMs)));
  const drained = Promise.allSettled([...core.drainable].map((d) => d.drain()));
  await Promise.race([Promise.all([drained, stopped]), deadline]);
  clearTimeout(timer);
  for (const s of sockets) s.close();
  for (const sock of open) sock.destroy();
  await stopped;
  registry.close();
  await writer.close();
}
