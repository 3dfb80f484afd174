/**
 * Shared shapes of the device simulator: the fix a virtual vehicle produces, and the device side of
 * a protocol (packet builder + reader of the server's replies). Builders are the reverse of the
 * decoders in `protocols/`; round-trip tests hold them together.
 */

/** One record of a virtual tracker, in the units of `protocols/types.ts` (km/h, degrees, metres, ms UTC). */
export interface SimFix {
  time: number;
  lat: number;
  lng: number;
  altitude: number;
  speed: number;
  course: number;
  satellites: number;
  hdop: number;
  ignition: boolean;
  motion: boolean;
  /** External (vehicle) power, volts. */
  power: number;
  /** Internal backup battery, volts. */
  battery: number;
  /** Internal battery, percent (phone apps report this). */
  batteryLevel: number;
  /** Fuel tank level, percent. */
  fuelLevel: number;
  /** Total distance, metres. */
  odometer: number;
  /** Digital inputs bit mask: bit 0 ignition line, bit 1 door switch. */
  inputs: number;
  /** GSM signal 0..5. */
  rssi: number;
  /** Serving cell (GT06 frames carry one). */
  cell: { mcc: number; mnc: number; lac: number; cid: number };
  /** Why the record was taken: 0 periodic, 239 ignition changed (Teltonika event IO id). */
  event: number;
}

/** What one server reply means to the device. */
export type Reply =
  | { kind: 'login'; ok: boolean }
  /** `count`: records the server accepted for the oldest unanswered unit; null = the whole unit. */
  | { kind: 'ack'; count: number | null }
  /** A command or message from the server; `answer` is what the device writes back, if anything. */
  | { kind: 'command'; answer?: Buffer };

/** Stream of server bytes -> replies. `next` returns null when more bytes are needed; throws on garbage. */
export interface ReplyReader {
  next(buf: Buffer): { reply: Reply; consumed: number } | null;
}

/** Bytes of one data packet and the records each expected reply covers, in order. */
export interface Packet {
  bytes: Buffer;
  units: number[];
}

/** One virtual device of a protocol: keeps its own counters (serial numbers, ...). */
export interface Device {
  /** Bytes to send right after connecting; null when the protocol has no login (HTTP). */
  login(): Buffer | null;
  /** A data packet with these records; `resend` marks records sent before (archive flags). */
  packet(fixes: SimFix[], resend: boolean): Packet;
  /** A new reader for one connection's replies. */
  replies(): ReplyReader;
}

export interface DeviceProtocol {
  name: string;
  defaultPort: number;
  /** Most records one packet may carry (Teltonika counts in one byte, ...). */
  maxRecords: number;
  /** Device ids the protocol can carry (GT06: exactly 15 digits). */
  idPattern: RegExp;
  createDevice(deviceId: string, target: { host: string; port: number }): Device;
}

export interface SimulationStats {
  trackers: number;
  /** Trackers connected right now. */
  connected: number;
  /** Connections established (reconnects included). */
  connects: number;
  disconnects: number;
  /** Records sent, resends included. */
  sent: number;
  resent: number;
  /** Records the server acknowledged (each once). */
  acked: number;
  /** Records the server answered without accepting (kept and sent again). */
  refused: number;
  /** Records lost to a full device buffer. */
  dropped: number;
  /** Socket errors, protocol errors and timeouts. */
  errors: number;
  timeouts: number;
  /** Commands/messages the server sent to trackers. */
  commands: number;
  /** Records still unacknowledged (at the end: left in the buffers). */
  pending: number;
  elapsedMs: number;
}
