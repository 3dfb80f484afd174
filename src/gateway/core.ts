/**
 * What every transport shares: identification against the registry, handing records to the
 * writer, and acknowledging only after the commit. A DeviceSession is one connection (TCP), one
 * remote address (UDP) or one request (HTTP).
 */
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type MediaFile, type Protocol } from '../../protocols/types.ts';
import type { MediaFiles } from './media.ts';
import type { DeviceRegistry, Source } from './registry.ts';
import type { FixWriter } from './writer.ts';

export interface GatewayStats {
  connections: number;
  frames: number;
  records: number;
  malformed: number;
  unknown: number;
  blocked: number;
  refusedConnections: number;
  storeFailures: number;
}

/**
 * One protocol's device traffic since start, read by /metrics when scraped (src/main.ts wires it):
 * plain numbers bumped in place, so counting costs nothing on the hot path.
 */
export interface ProtocolCounters {
  /** Open TCP device connections. */
  connections: number;
  /** Whole frames handed to the decoder (TCP frames, UDP datagrams, HTTP requests). */
  frames: number;
  /** Records decoded from registered devices and handed to the writer. */
  fixes: number;
  /** Of those, records committed whose answer went out to the device. */
  acknowledged: number;
  /** Frames taken whose answer went out after their records committed (frames without an answer: once committed). */
  framesAcknowledged: number;
  /** Frames that did not frame or decode (the connection is closed, the datagram or request refused). */
  decodeErrors: number;
}

/** Where the gateway reports things it does not handle itself (chat, logs). */
export interface GatewayHooks {
  /**
   * A device identified itself on a channel that can carry commands. Called once the reply to the
   * identifying frame (login, or the first data frame where the protocol has no login) is written,
   * so a command sent from here reaches the device after the answer it waits for.
   */
  online?(source: Source, channel: OutboundChannel): void;
  /** The device confirmed the oldest command written to it (the frame's `commandAck`). */
  commandAck?(source: Source, channel: OutboundChannel): void;
  offline?(source: Source, channel: OutboundChannel): void;
  /** Committed records that carry text from the device (command replies, chat). */
  texts?(source: Source, texts: Array<{ text: string; time: number }>): void;
  log?(level: 'debug' | 'info' | 'warn' | 'error', msg: string, data?: Record<string, unknown>): void;
}

/** What a debug line of a refused frame says (docs/gateway.md#refused-frames-in-the-log). */
export interface Refusal {
  protocol: string;
  transport: 'tcp' | 'udp' | 'http';
  /** The remote address and port (HTTP: the address). */
  connection: string;
  /** The device id, when the connection had named one. */
  device: string | null;
  reason: string;
}

/**
 * Refused frames at debug level, for an operator bringing up a new tracker model: each session logs
 * its first refusal only, and at most `perWindow` lines go out per `windowMs` over the whole gateway
 * (a flood of garbage must not flood the log); the lines left out are counted into the next one.
 */
export class RefusalLog {
  private windowStart = -Infinity;
  private lines = 0;
  private suppressed = 0;
  constructor(
    private readonly log: GatewayHooks['log'],
    private readonly now: () => number,
    private readonly perWindow = 20,
    private readonly windowMs = 10_000,
  ) {}

  note(r: Refusal): void {
    if (!this.log) return;
    const t = this.now();
    if (t - this.windowStart >= this.windowMs) {
      this.windowStart = t;
      this.lines = 0;
    }
    if (this.lines >= this.perWindow) {
      this.suppressed++;
      return;
    }
    this.lines++;
    const left = this.suppressed;
    this.suppressed = 0;
    this.log('debug', 'device frame refused', left ? { ...r, suppressed: left } : { ...r });
  }
}

/** Limits of TCP device connections, shared by every listener. */
export interface ConnectionLimits {
  /** A connection that has not identified its device within this time is closed. */
  identifyMs: number;
  /** A frame must be complete this long after its first byte arrived. */
  frameMs: number;
  /** Open device connections in total, over all listeners. */
  maxConnections: number;
  /** Open device connections from one remote address, over all listeners. */
  maxConnectionsPerAddress: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({ identifyMs: 30_000, frameMs: 15_000, maxConnections: 100_000, maxConnectionsPerAddress: 1000 });

/** A live way to send bytes to a device (a TCP connection, a UDP peer). */
export interface OutboundChannel {
  protocol: Protocol;
  ctx: DecodeContext;
  /** Write bytes; resolves once written to the socket. */
  send(bytes: Buffer): Promise<void>;
  readonly open: boolean;
}

export class GatewayCore {
  readonly stats: GatewayStats = { connections: 0, frames: 0, records: 0, malformed: 0, unknown: 0, blocked: 0, refusedConnections: 0, storeFailures: 0 };
  /** Open TCP device connections per remote address, over all listeners. */
  readonly perAddress = new Map<string, number>();
  readonly limits: ConnectionLimits;
  /**
   * What a graceful stop waits for (TCP connections, UDP listeners): each stops reading and
   * resolves once the answers to the frames it already took are sent, i.e. after their commit.
   */
  readonly drainable = new Set<Drainable>();
  /** Per protocol name: what /metrics reports of the device traffic. */
  readonly byProtocol = new Map<string, ProtocolCounters>();
  /** Refused frames at debug level, rate-limited. */
  readonly refusals: RefusalLog;
  constructor(
    readonly registry: DeviceRegistry,
    readonly writer: FixWriter,
    readonly hooks: GatewayHooks = {},
    readonly now: () => number = Date.now,
    readonly media?: MediaFiles,
    /** What main derives from the settings and the open-file limit (src/gateway/limits.ts); absent members keep their defaults. */
    limits: Partial<ConnectionLimits> = {},
  ) {
    this.limits = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
    this.refusals = new RefusalLog(hooks.log, now);
  }

  /** The counters of a protocol (made on first use: once per listener or session, never per frame). */
  counters(protocol: string): ProtocolCounters {
    let c = this.byProtocol.get(protocol);
    if (!c) this.byProtocol.set(protocol, (c = { connections: 0, frames: 0, fixes: 0, acknowledged: 0, framesAcknowledged: 0, decodeErrors: 0 }));
    return c;
  }
}

export interface Drainable {
  /** Read nothing more; resolve when every frame already read is committed and answered. */
  drain(): Promise<void>;
}

/** The outcome of one decoded frame. */
export interface Handled {
  /** Resolves when the frame's records are committed (immediately when there are none). */
  committed: Promise<void>;
  /** Records handed to the writer: acknowledged once `reply` is written (or, without one, once committed). */
  records: number;
  reply?: Buffer;
  /** The device is unknown or blocked: send `refusal` (if any) and close. */
  refused?: { reason: 'unknown' | 'blocked'; refusal?: Buffer };
  /** This frame identified the device: call once `reply` is written (or, without one, once committed). */
  identified?: () => void;
}

/** Records of one device out of a frame, with the media files they name. */
interface RoutedRecords {
  source: Source;
  records: DeviceRecord[];
  media?: MediaFile[];
}

export class DeviceSession {
  readonly ctx: DecodeContext;
  source?: Source;
  readonly counters: ProtocolCounters;
  private refusalLogged = false;
  constructor(
    private core: GatewayCore,
    readonly protocol: Protocol,
    transport: 'tcp' | 'udp' | 'http' | 'mqtt',
    readonly address: string,
    private channel?: OutboundChannel,
  ) {
    this.ctx = { now: core.now(), transport, config: {}, session: {} };
    this.counters = core.counters(protocol.name);
  }

  /** Decode context with the current time, for the next frame. */
  context(): DecodeContext {
    this.ctx.now = this.core.now();
    return this.ctx;
  }

  handle(result: DecodeResult): Handled {
    const { core } = this;
    core.stats.frames++;
    if (result.deviceId && result.deviceId !== this.ctx.deviceId) {
      this.ctx.deviceId = result.deviceId;
    }
    const deviceId = this.ctx.deviceId;
    let source: Source | undefined;
    if (deviceId) {
      // Looked up on every frame: a device blocked or deleted meanwhile stops being accepted at once.
      source = core.registry.lookup(deviceId);
      if (!source) {
        core.stats.unknown++;
        core.registry.noteUnknown(deviceId, this.protocol.name, this.address, core.now());
        this.refused('unknown device (not registered)');
        return { committed: Promise.resolve(), records: 0, refused: { reason: 'unknown', refusal: this.protocol.refuse?.(this.ctx) } };
      }
      if (source.blocked) {
        core.stats.blocked++;
        this.refused('device blocked');
        return { committed: Promise.resolve(), records: 0, refused: { reason: 'blocked', refusal: this.protocol.refuse?.(this.ctx) } };
      }
    }
    let identified: (() => void) | undefined;
    if (source && source !== this.source) {
      const before = this.source;
      this.source = source;
      const channel = this.channel;
      const online = core.hooks.online;
      if (channel && online && before?.id !== source.id) identified = () => online(source, channel);
    }
    if (result.commandAck && source && this.channel) core.hooks.commandAck?.(source, this.channel);
    const records = result.records ?? [];
    if (!records.length || !source) return { committed: Promise.resolve(), records: 0, reply: result.reply, identified };
    const now = core.now();
    const parts = this.route(source, records, result.media);
    const commits = parts.map((part) => this.submit(part, now));
    const submitted = parts.reduce((n, part) => n + part.records.length, 0);
    const committed = commits.length === 1 ? commits[0] : Promise.all(commits).then(() => undefined);
    return { committed, records: submitted, reply: result.reply, identified };
  }

  /**
   * The frame's records per device: all the session's, except where a record names another device
   * (a batch that carries several, as a flespi stream does). Another device's records go to it when
   * it is registered and not blocked; otherwise they are noted like an unknown device's connection
   * and not stored, and the rest of the batch is (one unregistered device never holds back the
   * others' data, nor makes the sender retry the whole batch forever).
   */
  private route(source: Source, records: DeviceRecord[], media: MediaFile[] | undefined): RoutedRecords[] {
    if (!records.some((r) => r.deviceId && r.deviceId !== source.deviceId)) return [{ source, records, media }];
    const { core } = this;
    // Per device named: where its records go (none: not stored), and their indexes in the frame.
    const parts = new Map<string, { source?: Source; records: DeviceRecord[]; index: number[] }>();
    records.forEach((r, i) => {
      const id = r.deviceId ?? source.deviceId;
      let part = parts.get(id);
      if (!part) {
        const to = id === source.deviceId ? source : core.registry.lookup(id);
        if (!to) {
          core.stats.unknown++;
          core.registry.noteUnknown(id, this.protocol.name, this.address, core.now());
        } else if (to.blocked) core.stats.blocked++;
        part = { source: to && !to.blocked ? to : undefined, records: [], index: [] };
        parts.set(id, part);
      }
      part.records.push(r);
      part.index.push(i);
    });
    const routed: RoutedRecords[] = [];
    for (const { source: to, records: rs, index } of parts.values()) {
      if (!to) continue;
      // A media file names its record by index in the frame: renumbered within the device's part.
      routed.push({ source: to, records: rs, media: media?.flatMap((m) => (index.includes(m.record) ? [{ ...m, record: index.indexOf(m.record) }] : [])) });
    }
    return routed;
  }

  /** Hands one device's records to the writer; media are written and texts announced after the commit. */
  private submit({ source, records, media }: RoutedRecords, now: number): Promise<void> {
    const { core } = this;
    core.stats.records += records.length;
    this.counters.fixes += records.length;
    // Media files are named into their records before the submit and written only after the commit.
    const writeMedia = media?.length && core.media ? core.media.prepare(source.deviceId, records, media) : undefined;
    const committed = core.writer.submit(source.id, records, now);
    if (writeMedia) committed.then(writeMedia, () => undefined);
    const texts = textsOf(records, now);
    if (texts.length && core.hooks.texts) committed.then(() => core.hooks.texts!(source, texts), () => undefined);
    return committed;
  }

  /** A frame of this session was refused: logged at debug level, once per session (RefusalLog). */
  refused(reason: string): void {
    if (this.refusalLogged) return;
    this.refusalLogged = true;
    this.core.refusals.note({ protocol: this.protocol.name, transport: this.ctx.transport as Refusal['transport'], connection: this.address, device: this.ctx.deviceId ?? null, reason });
  }

  /** Whether a registered device has identified itself on this session. */
  get isIdentified(): boolean {
    return this.source !== undefined;
  }

  close(): void {
    if (this.source && this.channel) this.core.hooks.offline?.(this.source, this.channel);
  }
}

/** Why a frame did not frame or decode, as the refusal line says it. */
export function refusalReason(e: unknown): string {
  return e instanceof FrameError || e instanceof DecodeError ? e.message : `decoder failed: ${String((e as Error)?.message ?? e)}`;
}

function textsOf(records: DeviceRecord[], now: number): Array<{ text: string; time: number }> {
  const out: Array<{ text: string; time: number }> = [];
  for (const r of records) {
    const t = r.attributes?.result;
    if (typeof t === 'string' && t.trim()) out.push({ text: t, time: r.time ?? now });
  }
  return out;
}
