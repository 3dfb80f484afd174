/**
 * The contract every tracker protocol implements: pure code over bytes.
 * No sockets, no database, no clock except `ctx.now`. The gateway owns all I/O;
 * a decoder only *returns* the reply bytes, and the gateway writes them after
 * the records they acknowledge are committed.
 */

/** A GSM cell seen by the device (LBS). */
export interface Cell {
  mcc: number;
  mnc: number;
  lac: number;
  cid: number;
  rssi?: number;
}

/** Attribute values carried next to a fix (IO elements, sensors, alarms, ...). */
export type AttrValue = number | string | boolean;

/**
 * One record decoded from a device message. A record with `lat`/`lng` is a fix;
 * one without is a status record (attributes only, e.g. a heartbeat with battery).
 * Units: speed km/h, course degrees 0..360, altitude metres, time ms since epoch UTC.
 * Attribute names follow the vocabulary in `protocols/attributes.ts`.
 * Text the device sends (a command reply, a chat message) is a record with the `result` attribute.
 */
export interface DeviceRecord {
  /** Device identity this record belongs to when a message carries several devices (rare). */
  deviceId?: string;
  time?: number;
  valid?: boolean;
  lat?: number;
  lng?: number;
  altitude?: number;
  speed?: number;
  course?: number;
  satellites?: number;
  hdop?: number;
  /** Accuracy radius in metres, where the device reports one. */
  precision?: number;
  /** Located by GSM LBS (cell towers) rather than GNSS. */
  lbs?: boolean;
  cells?: Cell[];
  attributes: Record<string, AttrValue>;
}

/** What one frame decodes to. Every member is optional: a heartbeat may only carry `reply`. */
export interface DecodeResult {
  /** Device identity announced by this frame (login packet, IMEI in the header, ...). */
  deviceId?: string;
  records?: DeviceRecord[];
  /** Bytes the device expects back. Sent by the gateway after the records are committed. */
  reply?: Buffer;
  /** The device confirms it received the oldest command sent to it (protocols with `commandAcks`). */
  commandAck?: boolean;
  /** Files the device sent (photos, voice notes), as data: the gateway stores them after the commit. */
  media?: MediaFile[];
}

/**
 * A file a device sent. Its record carries `attribute` set to '' by the decoder; the gateway sets it
 * to the stored file's name before the record is submitted, and writes the file after the commit.
 */
export interface MediaFile {
  /** Index in `records` of the record that names the file. */
  record: number;
  /** That record's attribute naming the file (`audio`, `image`). */
  attribute: string;
  data: Buffer;
  /** File name extension without the dot (`amr`, `jpg`). */
  extension: string;
}

/** Settings a decoder may take (per device model or server configuration). */
export type DecoderConfig = Record<string, unknown>;

/** Per-connection state a decoder keeps between frames (device id, negotiated options, ...). */
export interface DecodeContext {
  /** Current time (ms UTC), for protocols that send only a time of day or no time at all. */
  now: number;
  transport: 'tcp' | 'udp' | 'http' | 'mqtt';
  config: DecoderConfig;
  /** Free-form per-connection state owned by the protocol module. */
  session: Record<string, unknown>;
  /** Identity known for this connection so far, if any. */
  deviceId?: string;
}

/** An HTTP request as an HTTP protocol (OsmAnd, ...) receives it. */
export interface HttpRequest {
  method: string;
  /** Path plus query string, e.g. `/?id=123&lat=...`. */
  uri: string;
  headers: Record<string, string>;
  body: Buffer;
}

export interface HttpDecodeResult extends DecodeResult {
  /** HTTP status to answer with after commit (default 200). */
  status?: number;
  /** Response body, if the protocol expects one. */
  body?: string;
}

/**
 * A stream framer: `next(buffer)` returns the first whole frame in `buffer` and how many bytes
 * it used, or `null` when more bytes are needed. It throws `FrameError` for bytes that can never
 * become a valid frame (the gateway closes that connection and counts it).
 * Frames come out un-escaped where the protocol escapes (JT808 0x7d, Watch, ...).
 */
export interface Framer {
  next(buffer: Buffer): { frame: Buffer; consumed: number } | null;
}

/**
 * Bad input is expected and frequent (scanners, line noise, attacks), so these errors skip the
 * stack trace: capturing one costs more than decoding the frame.
 */
class CheapError extends Error {
  constructor(message: string) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}
export class FrameError extends CheapError {}
/** Thrown by a decoder for a frame it cannot make sense of (bad checksum, truncated, ...). */
export class DecodeError extends CheapError {}

/** A command to a device. `type` uses the usual command names (`custom` with `data`, `message` with `message`, `engineStop`, ...). */
export interface Command {
  type: string;
  attributes: Record<string, AttrValue>;
}

export interface EncodeContext {
  deviceId: string;
  now: number;
  config: DecoderConfig;
  transport?: 'tcp' | 'udp';
}

export interface Protocol {
  name: string;
  /** Conventional port (the one fleets are already configured for). */
  defaultPort: number;
  /** `mqtt`: devices publish to a broker (the gateway's built-in one, or an operator's it subscribes to). */
  transports: Array<'tcp' | 'udp' | 'http' | 'mqtt'>;
  /** Largest frame the gateway accepts for this protocol, bytes. */
  maxFrameSize: number;
  /** New framer for a TCP connection (absent for HTTP-only protocols). */
  createFramer?(config?: DecoderConfig): Framer;
  /** Decode one frame (TCP frame or UDP datagram). */
  decode?(frame: Buffer, ctx: DecodeContext): DecodeResult;
  /**
   * MQTT protocols: what a CONNECT's client id says (usually the device identity). Each PUBLISH body
   * then goes through `decode` with the same context.
   */
  decodeMqttConnect?(clientId: string, ctx: DecodeContext): DecodeResult;
  /** Decode one HTTP request. */
  decodeHttp?(req: HttpRequest, ctx: DecodeContext): HttpDecodeResult;
  /** Command types `encode` supports. */
  commands?: string[];
  /** True where the protocol carries free text to the device (chat `message`). */
  carriesText?: boolean;
  /** True where the device confirms each command it receives, seen as `commandAck` in a decode result. */
  commandAcks?: boolean;
  /**
   * Bytes that tell a device it is refused (unknown or blocked) before the connection closes, where
   * the protocol defines them (Teltonika answers its IMEI packet with 0x00). Absent: just close.
   */
  refuse?(ctx: DecodeContext): Buffer | undefined;
  /** Encode a command for the device; throws for an unsupported command type. */
  encode?(command: Command, ctx: EncodeContext): Buffer;
}
