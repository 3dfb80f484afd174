/**
 * TCP listener of one protocol: one DeviceConnection per socket. Frames are decoded as they
 * arrive; replies go out in frame order, each only after its frame's records are committed.
 * Commands to the device queue behind those replies, and start only once the frame that
 * identified the device has been answered. A connection must identify its device, and complete
 * each frame, within the deadlines of `core.limits`; the connection counts are shared by all listeners.
 */
import net from 'node:net';
import { DecodeError, FrameError, type Framer, type Protocol } from '../../protocols/types.ts';
import { DeviceSession, refusalReason, type Drainable, type GatewayCore, type OutboundChannel, type ProtocolCounters } from './core.ts';

export interface TcpLimits {
  idleMs: number;
  /** Also bounded by `core.limits.maxConnectionsPerAddress` (the lower one applies). */
  maxConnectionsPerAddress: number;
  /** Frames awaiting their commit on one connection before it stops reading (backpressure). */
  maxInflight: number;
}

/**
 * Admits a device connection within the per-address and total limits (else closes it and counts it),
 * and keeps the connection counts until it closes. Shared by the TCP and MQTT listeners.
 */
export function admitConnection(core: GatewayCore, socket: net.Socket, counters: ProtocolCounters, limits: Pick<TcpLimits, 'maxConnectionsPerAddress'>): boolean {
  const perAddress = core.perAddress;
  const maxPerAddress = Math.min(limits.maxConnectionsPerAddress, core.limits.maxConnectionsPerAddress);
  const address = socket.remoteAddress ?? '?';
  const n = perAddress.get(address) ?? 0;
  if (n >= maxPerAddress || core.stats.connections >= core.limits.maxConnections) {
    core.stats.refusedConnections++;
    socket.destroy();
    return false;
  }
  perAddress.set(address, n + 1);
  core.stats.connections++;
  counters.connections++;
  socket.once('close', () => {
    core.stats.connections--;
    counters.connections--;
    const left = (perAddress.get(address) ?? 1) - 1;
    if (left) perAddress.set(address, left);
    else perAddress.delete(address);
  });
  return true;
}

export function listenTcp(core: GatewayCore, protocol: Protocol, host: string, port: number, limits: TcpLimits): Promise<net.Server> {
  const counters = core.counters(protocol.name);
  const server = net.createServer((socket) => {
    if (!admitConnection(core, socket, counters, limits)) return;
    new DeviceConnection(core, protocol, socket, limits);
  });
  server.maxConnections = 100_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

class DeviceConnection implements OutboundChannel, Drainable {
  private framer: Framer;
  private pending: Buffer = Buffer.alloc(0);
  private tail: Promise<void> = Promise.resolve();
  private inflight = 0;
  private closed = false;
  readonly session: DeviceSession;
  private identifyTimer: NodeJS.Timeout;
  /** Runs while an incomplete frame is buffered: the frame must be complete before it fires. */
  private frameTimer?: NodeJS.Timeout;

  constructor(
    private core: GatewayCore,
    readonly protocol: Protocol,
    private socket: net.Socket,
    private limits: TcpLimits,
  ) {
    this.framer = protocol.createFramer!();
    this.session = new DeviceSession(core, protocol, 'tcp', `${socket.remoteAddress}:${socket.remotePort}`, this);
    socket.setNoDelay(true);
    socket.setTimeout(limits.idleMs, () => this.onIdle());
    this.identifyTimer = setTimeout(() => this.onIdentifyDeadline(), core.limits.identifyMs);
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => this.close());
    socket.on('close', () => this.close());
    core.drainable.add(this);
  }

  /**
   * Graceful stop: read nothing more (bytes not yet read were never acknowledged, so the device
   * sends them again), let every frame already read commit and its answer go out, then close.
   */
  drain(): Promise<void> {
    this.closed = true;
    this.socket.pause();
    clearTimeout(this.identifyTimer);
    this.stopFrameTimer();
    return this.tail.finally(() => this.socket.destroy());
  }

  get ctx() {
    return this.session.ctx;
  }
  get open() {
    return !this.closed;
  }

  /** A command to the device: written after every reply already queued, never between a frame and its answer. */
  send(bytes: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const sent = this.tail.then(() => this.write(bytes));
    this.tail = sent.catch(() => undefined);
    return sent;
  }

  private write(bytes: Buffer): Promise<void> {
    if (this.socket.destroyed) return Promise.reject(new Error('connection closed'));
    return new Promise((resolve, reject) => this.socket.write(bytes, (e) => (e ? reject(e) : resolve())));
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    const startedFrame = this.pending.length === 0;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    let framed = false;
    try {
      for (;;) {
        const f = this.framer.next(this.pending);
        if (!f) break;
        if (f.consumed <= 0) throw new FrameError('framer consumed nothing');
        framed = true;
        this.pending = this.pending.subarray(f.consumed);
        if (f.frame.length) this.onFrame(f.frame);
        if (this.closed) return;
      }
      if (this.pending.length > this.protocol.maxFrameSize) throw new FrameError(`no frame within ${this.protocol.maxFrameSize} bytes`);
    } catch (e) {
      this.malformed(e);
      return;
    }
    // The deadline runs from a frame's first byte; more bytes of the same frame do not extend it.
    if (!this.pending.length) this.stopFrameTimer();
    else if (startedFrame || framed || !this.frameTimer) this.startFrameTimer();
  }

  private startFrameTimer(): void {
    if (this.frameTimer) this.frameTimer.refresh();
    else this.frameTimer = setTimeout(() => this.onFrameDeadline(), this.core.limits.frameMs);
  }

  private stopFrameTimer(): void {
    clearTimeout(this.frameTimer);
    this.frameTimer = undefined;
  }

  private onFrameDeadline(): void {
    // Not reading because of backpressure: the rest of the frame is waiting on our side.
    if (this.inflight >= this.limits.maxInflight) this.frameTimer?.refresh();
    else this.close('frame deadline');
  }

  private onIdentifyDeadline(): void {
    if (!this.session.isIdentified) this.close('identify deadline');
  }

  private onFrame(frame: Buffer): void {
    this.session.counters.frames++;
    const result = this.protocol.decode!(frame, this.session.context());
    const h = this.session.handle(result);
    if (h.refused) {
      const refusal = h.refused.refusal;
      this.tail = this.tail.then(async () => {
        if (refusal) await this.write(refusal).catch(() => undefined);
        this.close(h.refused!.reason);
      });
      this.closed = true; // read nothing more; the tail closes the socket after pending ACKs
      return;
    }
    this.inflight++;
    if (this.inflight >= this.limits.maxInflight) this.socket.pause();
    const { reply, identified, records } = h;
    this.tail = this.tail
      .then(() => h.committed)
      .then(
        async () => {
          if (reply && !this.socket.destroyed) await this.write(reply);
          this.session.counters.acknowledged += records;
          this.session.counters.framesAcknowledged++;
          // Commands may go out now: the device has its answer to the frame that identified it.
          if (identified && !this.closed) identified();
        },
        () => {
          // The store could not take the data: no ACK; the device keeps its buffer and retries.
          this.core.stats.storeFailures++;
          this.close('store');
        },
      )
      .finally(() => {
        this.inflight--;
        if (this.inflight < this.limits.maxInflight && !this.closed) this.socket.resume();
      })
      .catch(() => this.close());
  }

  /** Silent too long: closed, unless it is quiet because we stopped reading it (backpressure). */
  private onIdle(): void {
    if (this.inflight > 0) this.socket.setTimeout(this.limits.idleMs);
    else this.close('idle');
  }

  private malformed(e: unknown): void {
    this.core.stats.malformed++;
    this.session.counters.decodeErrors++;
    if (!(e instanceof FrameError || e instanceof DecodeError)) this.core.hooks.log?.('warn', 'decoder error', { protocol: this.protocol.name, connection: this.session.address, device: this.session.ctx.deviceId, error: String((e as Error)?.stack ?? e) });
    this.session.refused(refusalReason(e));
    // Acknowledge what was committed before the bad frame, then close.
    this.closed = true;
    clearTimeout(this.identifyTimer);
    this.stopFrameTimer();
    this.tail.finally(() => this.socket.destroy());
  }

  private close(_why?: string): void {
    clearTimeout(this.identifyTimer);
    this.stopFrameTimer();
    if (!this.socket.destroyed) {
      this.closed = true;
      // Let queued ACKs go out first.
      this.tail.finally(() => this.socket.destroy());
    }
    if (!this.finished) {
      this.finished = true;
      this.core.drainable.delete(this);
      this.session.close();
    }
  }
  private finished = false;
}
