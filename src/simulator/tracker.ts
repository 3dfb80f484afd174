/**
 * One virtual tracker on a real socket, behaving like the hardware: it keeps every record in its
 * buffer until the server acknowledges it, sends one packet at a time and waits for its answer,
 * and after a dropped connection or a missing answer reconnects with backoff and sends the buffer
 * again. Stop-and-wait keeps the accounting exact: what the server answered is what is acked.
 */
import net from 'node:net';
import type { Device, Reply, ReplyReader, SimFix, SimulationStats } from './types.ts';

interface Entry {
  fix: SimFix;
  sends: number;
  acked: boolean;
}

interface InFlight {
  entries: Entry[];
  units: number[];
  /** Index of the next unit to be answered, and where its records start in `entries`. */
  unit: number;
  offset: number;
  refused?: boolean;
}

/** What all trackers of a run share: where to connect, limits and the live stats. */
export interface TrackerEnv {
  host: string;
  port: number;
  recordsPerPacket: number;
  ackTimeoutMs: number;
  backoffMs: readonly [number, number];
  bufferLimit: number;
  stats: SimulationStats;
  /** Grants a connection attempt (bounds how many are in progress at once). */
  connectSlot(): Promise<() => void>;
  /** Flood mode: tops the buffer up to `count` new records whenever the tracker can send. */
  refill?(tracker: VirtualTracker, count: number): void;
  onAck?(deviceId: string, records: SimFix[]): void;
}

export class VirtualTracker {
  private buffer: Entry[] = [];
  private inflight?: InFlight;
  private socket?: net.Socket;
  private reader?: ReplyReader;
  private pending: Buffer = Buffer.alloc(0);
  private ready = false;
  private attempts = 0;
  private timer?: NodeJS.Timeout;
  private reconnectTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;
  private stopped = false;
  /** Set once no more records will come: what is buffered goes out even below recordsPerPacket. */
  flushing = false;

  constructor(readonly deviceId: string, private readonly device: Device, private readonly env: TrackerEnv) {}

  get idle(): boolean {
    return this.buffer.length === 0 && !this.inflight;
  }

  get buffered(): number {
    return this.buffer.length;
  }

  /** Ready to take a packet now: logged in and nothing in flight. */
  get canSend(): boolean {
    return this.ready && !this.inflight && !this.stopped;
  }

  add(fix: SimFix): void {
    this.push(fix);
    this.pump();
  }

  /** Buffers a record without sending. */
  push(fix: SimFix): void {
    if (this.buffer.length >= this.env.bufferLimit) {
      // memory is full: like a device, lose the oldest record not in flight
      this.buffer.splice(this.inflight ? this.inflight.entries.length : 0, 1);
      this.env.stats.dropped++;
    }
    this.buffer.push({ fix, sends: 0, acked: false });
  }

  async connect(): Promise<void> {
    if (this.stopped || this.socket) return;
    const slot = await this.env.connectSlot();
    let held = true;
    const release = () => {
      if (held) slot();
      held = false;
    };
    if (this.stopped) return release();
    const socket = net.connect({ host: this.env.host, port: this.env.port });
    this.socket = socket;
    socket.setNoDelay(true);
    this.arm();
    socket.once('connect', () => {
      release();
      this.env.stats.connected++;
      this.env.stats.connects++;
      this.reader = this.device.replies();
      const login = this.device.login();
      if (login) {
        socket.write(login);
        this.arm();
      } else this.loggedIn();
    });
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('error', () => {
      if (!this.stopped) this.env.stats.errors++;
    });
    socket.once('close', () => {
      release(); // a failed attempt gives its slot back too
      this.onClose(socket);
    });
  }

  /** Closes for good; what is still buffered stays unacknowledged. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.retryTimer);
    if (this.socket && this.reader) this.env.stats.connected--;
    this.socket?.destroy();
    this.socket = undefined; // its close event is ours no longer
  }

  /** Sends the next packet when the connection and the buffer allow. */
  pump(): void {
    if (!this.canSend || !this.socket || this.retryTimer) return;
    const max = this.env.recordsPerPacket;
    if (this.buffer.length < max && this.env.refill && !this.flushing) this.env.refill(this, max - this.buffer.length);
    if (this.buffer.length === 0 || (this.buffer.length < max && !this.flushing)) return;
    const entries = this.buffer.slice(0, max);
    const resend = entries.some((e) => e.sends > 0);
    const packet = this.device.packet(entries.map((e) => e.fix), resend);
    for (const e of entries) {
      if (e.sends++ > 0) this.env.stats.resent++;
    }
    this.env.stats.sent += entries.length;
    this.inflight = { entries, units: packet.units, unit: 0, offset: 0 };
    this.arm();
    this.socket.write(packet.bytes);
  }

  private loggedIn(): void {
    this.ready = true;
    this.disarm();
    this.pump();
  }

  private onData(chunk: Buffer): void {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    try {
      for (let n = this.reader?.next(this.pending); n; n = this.reader?.next(this.pending)) {
        this.pending = this.pending.subarray(n.consumed);
        this.onReply(n.reply);
        if (!this.socket || this.socket.destroyed) return;
      }
    } catch {
      this.fail(); // garbage from the server: a device drops the connection
    }
  }

  private onReply(reply: Reply): void {
    if (reply.kind === 'command') {
      this.env.stats.commands++;
      if (reply.answer) this.socket?.write(reply.answer);
      return;
    }
    if (reply.kind === 'login') {
      if (reply.ok && !this.ready) this.loggedIn();
      else if (!reply.ok) this.fail();
      return;
    }
    const f = this.inflight;
    if (!f || f.unit >= f.units.length) return this.fail(); // an answer to nothing we sent
    const size = f.units[f.unit++];
    const covered = f.entries.slice(f.offset, f.offset + size);
    f.offset += size;
    if (reply.count === null || reply.count >= size) {
      for (const e of covered) e.acked = true;
      this.env.stats.acked += covered.length;
      this.env.onAck?.(this.deviceId, covered.map((e) => e.fix));
    } else {
      this.env.stats.refused += covered.length; // stays buffered, sent again
      f.refused = true;
    }
    if (f.unit < f.units.length) return;
    this.settle();
    this.disarm();
    if (!f.refused) {
      this.attempts = 0;
      return this.pump();
    }
    // the server cannot take data now (store full?): keep the buffer and try again later
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.pump();
    }, this.backoff());
  }

  private backoff(): number {
    const [min, max] = this.env.backoffMs;
    return Math.min(max, min * 2 ** this.attempts++) * (0.5 + Math.random() / 2);
  }

  /** Drops acknowledged records from the buffer; the rest keeps its order for the next packet. */
  private settle(): void {
    this.inflight = undefined;
    this.buffer = this.buffer.filter((e) => !e.acked);
  }

  /** Protocol trouble or a missing answer: drop the connection; the close handler reconnects. */
  private fail(): void {
    this.env.stats.errors++;
    this.socket?.destroy();
  }

  private onClose(socket: net.Socket): void {
    if (this.socket !== socket) return;
    if (this.reader) this.env.stats.connected--;
    this.socket = undefined;
    this.reader = undefined;
    this.pending = Buffer.alloc(0);
    this.ready = false;
    this.settle();
    this.disarm();
    if (this.stopped) return;
    this.env.stats.disconnects++;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.reconnectTimer = setTimeout(() => void this.connect(), this.backoff());
  }

  /** One timer covers connect, login and ack waits: no answer in time means a dead link. */
  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.env.stats.timeouts++;
      this.fail();
    }, this.env.ackTimeoutMs);
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
