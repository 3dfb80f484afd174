/**
 * UDP listener of one protocol. Each datagram is one frame; a remote address keeps its decode
 * session (identity, counters) for a while, as a connection would. Replies go out after commit.
 */
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { Protocol } from '../../protocols/types.ts';
import { DeviceSession, refusalReason, type GatewayCore, type OutboundChannel } from './core.ts';

const SESSION_IDLE_MS = 15 * 60_000;
const MAX_PEERS = 100_000;

export function listenUdp(core: GatewayCore, protocol: Protocol, host: string, port: number): Promise<dgram.Socket> {
  const socket = dgram.createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
  const counters = core.counters(protocol.name);
  const peers = new Map<string, { session: DeviceSession; seen: number }>();
  const sweep = setInterval(() => {
    const old = core.now() - SESSION_IDLE_MS;
    for (const [k, p] of peers) if (p.seen < old) peers.delete(k);
  }, 60_000);
  sweep.unref();
  // Datagrams taken but not yet answered: a graceful stop waits for their commit and reply.
  const unanswered = new Set<Promise<unknown>>();
  let draining = false;
  core.drainable.add({
    drain: async () => {
      draining = true;
      await Promise.allSettled([...unanswered]);
    },
  });

  socket.on('message', (msg, rinfo) => {
    if (draining) return; // never answered, so the device sends it again
    const key = `${rinfo.address}:${rinfo.port}`;
    let peer = peers.get(key);
    if (!peer) {
      if (peers.size >= MAX_PEERS) return;
      const channel: OutboundChannel = {
        protocol,
        get ctx() {
          return peer!.session.ctx;
        },
        open: true,
        send: (bytes) => new Promise((resolve, reject) => socket.send(bytes, rinfo.port, rinfo.address, (e) => (e ? reject(e) : resolve()))),
      };
      peer = { session: new DeviceSession(core, protocol, 'udp', key, channel), seen: 0 };
      peers.set(key, peer);
    }
    peer.seen = core.now();
    counters.frames++;
    let h;
    try {
      h = peer.session.handle(protocol.decode!(msg, peer.session.context()));
    } catch (e) {
      core.stats.malformed++;
      counters.decodeErrors++;
      peer.session.refused(refusalReason(e));
      return;
    }
    if (h.refused) {
      if (h.refused.refusal) socket.send(h.refused.refusal, rinfo.port, rinfo.address);
      peers.delete(key);
      return;
    }
    const { reply, identified, records } = h;
    const answered: Promise<unknown> = h.committed.then(
      () =>
        new Promise<void>((resolve) => {
          // Commands (`identified` -> online hook) go out only after the answer to the identifying datagram.
          if (!reply) {
            counters.acknowledged += records;
            counters.framesAcknowledged++;
            identified?.();
            return resolve();
          }
          socket.send(reply, rinfo.port, rinfo.address, () => {
            counters.acknowledged += records;
            counters.framesAcknowledged++;
            identified?.();
            resolve();
          });
        }),
      () => core.stats.storeFailures++, // no ACK: the device sends the datagram again
    );
    unanswered.add(answered);
    void answered.finally(() => unanswered.delete(answered));
  });
  socket.on('close', () => clearInterval(sweep));
  return new Promise((resolve, reject) => {
    socket.once('error', (e) => {
      clearInterval(sweep);
      socket.close();
      reject(e);
    });
    socket.bind(port, host, () => {
      socket.removeAllListeners('error');
      socket.on('error', () => undefined);
      resolve(socket);
    });
  });
}
