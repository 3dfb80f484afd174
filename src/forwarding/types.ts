/**
 * The shapes the forwarding engine and its protocols share (issue 13, docs/retranslators.md).
 * A protocol turns forwarded fixes into its wire format and tells when the receiver acknowledged
 * them; the engine owns ordering, cursors and reconnects.
 */

/** One fix as it is forwarded: the stored fix, under the identity the receiver knows the tracker by. */
export interface ForwardFix {
  /** Position in the forwarding log (arrival order). */
  seq: number;
  sourceId: number;
  trackerId: number;
  /** The tracker's device id, or its fake id when the binding sets one. */
  deviceId: string;
  /** Fix time, ms UTC. */
  time: number;
  /** When the server received it, ms UTC. */
  received: number;
  lat: number | null;
  lng: number | null;
  alt: number | null;
  /** km/h */
  speed: number | null;
  course: number | null;
  satellites: number | null;
  hdop: number | null;
  /** metres */
  precision: number | null;
  valid: boolean;
  lbs: boolean;
  archive: boolean;
  ignition: boolean | null;
  alarm: boolean;
  /** metres */
  odometer: number | null;
  /** engine hours, ms */
  hours: number | null;
  /** litres */
  fuelUsed: number | null;
  /** Every attribute of the record (the shared vocabulary of protocols/attributes.ts). */
  attrs: Record<string, unknown>;
  /**
   * The attributes as the store keeps them (JSON text), when the fix was read from it: protocols that
   * send JSON embed it as it is instead of parsing and writing it again.
   */
  attrsJson?: string | null;
}

/** Where and as whom a retranslator sends. `url` for HTTP protocols (the address is a full URL). */
export interface Target {
  address: string;
  port: number;
  login: string;
  password: string;
  url?: URL;
}

/**
 * An open channel to the receiver. `send` resolves once the receiver acknowledged every fix given
 * (in order); it rejects when the channel broke or the receiver refused (nothing of that call counts
 * as acknowledged).
 */
export interface Session {
  send(fixes: ForwardFix[]): Promise<void>;
  close(): void;
}

/**
 * A `send` the receiver refused as too large (HTTP 413): the forwarder sends batches of half as many
 * fixes from then on, so a receiver's body limit never holds a batch for good.
 */
export class BatchTooLarge extends Error {}

export interface ProtocolInfo {
  id: number;
  name: string;
  hasLogin: boolean;
  hasPassword: boolean;
  requiredLogin: boolean;
  requiredPassword: boolean;
  /** A non-empty login must match it (anchored), e.g. EGTS's numeric dispatcher id. */
  loginPattern?: string;
  /**
   * The forwarded identity (the fake device id, else the tracker's device id) must match it
   * (anchored); absent: any non-empty text up to 64 characters.
   */
  fakeDeviceIdPattern?: string;
  /** The address is a full http(s) URL. */
  url?: boolean;
  defaultPort: number;
}

export interface ForwardProtocol extends ProtocolInfo {
  /**
   * `device`: one session per tracker (the protocol logs in as that device, e.g. Wialon IPS);
   * `shared`: one session carries every tracker of the retranslator.
   */
  sessions: 'device' | 'shared';
  /** Most fixes one `send` should carry. */
  batch: number;
  /**
   * A session delivers what successive `send` calls carry in call order (one connection): the engine
   * then keeps several batches on the wire. Otherwise (HTTP requests) one batch at a time.
   */
  ordered?: boolean;
  /**
   * Requests in flight at once on a shared session that is not `ordered` (HTTP): the trackers are
   * split into this many lanes, each tracker always in the same one, and each lane has one request
   * on the wire at a time, so a tracker's fixes still arrive in order. Absent: 1.
   */
  lanes?: number;
  /** Opens a session; `deviceId` is given for `device` sessions. Resolves once logged in. */
  open(target: Target, deviceId: string | undefined, opts: OpenOptions): Promise<Session>;
}

export interface OpenOptions {
  /** An answer must come within this time, or the session is broken. */
  timeoutMs: number;
}

/** What retranslator/list shows of a retranslator's forwarding (ours). */
export interface ForwardStatus {
  /** A session to the receiver is open and its last exchange succeeded. */
  connected: boolean;
  lastError: string | null;
  /** ms UTC */
  lastErrorTime: number | null;
  /** Fixes waiting for the receiver's acknowledgement. */
  backlog: number;
  /** Fix time of the last acknowledged fix, ms UTC. */
  lastForwarded: number | null;
  /** Fixes acknowledged since the server started. */
  forwarded: number;
}

/** What the API needs of the engine: the wiring (src/main.ts) passes it in. */
export interface ForwardingControl {
  /** A retranslator or a binding changed: apply it now. */
  changed(): Promise<void> | void;
  status(retranslatorId: number): ForwardStatus | undefined;
}
