/**
 * Gator trackers (TCP and UDP).
 *
 * Frame: `24 24 | type | length u16 BE | id | body | XOR checksum | 0D`, where `length` counts what follows
 * it and the checksum is the XOR of every byte from `type` on. The id is 4 bytes (a pseudo IP address
 * that encodes a 10-digit number: the low 7 bits of each byte are two digits, the four high bits add
 * 30 + their value to the first pair) or, on M588 models, an 8-byte BCD IMEI (recognized by its Luhn digit).
 * Position bodies (0x80 data, 0x81 roll-call answer, 0x82 alarm, 0x8E blind-area data):
 * `BCD yymmddhhmmss | lat | lon (BCD dddmm.mmm, first nibble bit 3 = south/west) | BCD speed km/h |
 * BCD course | flags (bit 7 fixed, low nibble satellites) | status | key | adc1, adc2 (volts, 2 bytes each:
 * units and hundredths) | odometer u32 |` then, on M588, `u16 u16 | driving alarms`, and on alarm data two alarm bytes.
 * Every message is answered by a 0x21 message naming the checksum and type it confirms.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 5 + 0xffff;
const HEARTBEAT = 0x21;
const POSITIONS = new Set([0x80, 0x81, 0x82, 0x8e]);
const ALARM_DATA = 0x82;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length >= 1 && buffer[0] !== 0x24) throw new FrameError('gator: no header');
      if (buffer.length >= 2 && buffer[1] !== 0x24) throw new FrameError('gator: no header');
      if (buffer.length < 5) return null;
      const length = 5 + buffer.readUInt16BE(3);
      if (length < 8) throw new FrameError('gator: short frame');
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

function xor(b: Buffer, start: number, end: number): number {
  let x = 0;
  for (let i = start; i < end; i++) x ^= b[i];
  return x;
}

/** `24 24 | type | length | body | checksum | 0D`. */
function frame(type: number, body: Buffer): Buffer {
  const out = Buffer.alloc(5 + body.length + 2);
  out[0] = out[1] = 0x24;
  out[2] = type;
  out.writeUInt16BE(body.length + 2, 3);
  body.copy(out, 5);
  out[out.length - 2] = xor(out, 2, out.length - 2);
  out[out.length - 1] = 0x0d;
  return out;
}

/** The answer: checksum and type of the message it confirms, subtype 0. */
const answer = (checksum: number, type: number) => frame(HEARTBEAT, Buffer.from([checksum, type, 0]));

/** The 10-digit number a 4-byte pseudo IP address stands for. */
export function pseudoIpNumber(b: Uint8Array): string {
  const first = 30 + ((b[0] >> 7) << 3) + ((b[1] >> 7) << 2) + ((b[2] >> 7) << 1) + (b[3] >> 7);
  return [first, b[0] & 0x7f, b[1] & 0x7f, b[2] & 0x7f, b[3] & 0x7f].map((n) => String(n).padStart(2, '0')).join('');
}

function luhnValid(digits: string): boolean {
  let s = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    s += d;
  }
  return s % 10 === 0;
}

const bcd = (b: number) => (b >> 4) * 10 + (b & 0x0f);
const isBcd = (b: number) => b >> 4 < 10 && (b & 0x0f) < 10;

/** BCD `dddmm.mmm` over 4 bytes; bit 3 of the first nibble is the sign (south, west). */
function coordinate(b: Buffer): number | undefined {
  const nibbles: number[] = [];
  for (const x of b) nibbles.push(x >> 4, x & 0x0f);
  const negative = (nibbles[0] & 0x08) !== 0;
  nibbles[0] &= 0x07;
  if (nibbles.some((n) => n > 9)) return undefined;
  const degrees = nibbles[0] * 100 + nibbles[1] * 10 + nibbles[2];
  const minutes = nibbles[3] * 10 + nibbles[4] + (nibbles[5] * 100 + nibbles[6] * 10 + nibbles[7]) / 1000;
  if (minutes >= 60) return undefined;
  const value = degrees + minutes / 60;
  return negative ? -value : value;
}

/** BCD `yymmddhhmmss`, or undefined when not a date. */
function time(b: Buffer): number | undefined {
  if (!b.every(isBcd)) return undefined;
  const [y, mo, d, h, mi, s] = [...b].map(bcd);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return undefined;
  return Date.UTC(2000 + y, mo - 1, d, h, mi, s);
}

function bcdNumber(b: Buffer): number | undefined {
  return b.every(isBcd) ? Number(b.toString('hex')) : undefined;
}

function decodePosition(r: Reader, type: number, m588: boolean): DeviceRecord {
  const a: DeviceRecord['attributes'] = {};
  const rec: DeviceRecord = { attributes: a };
  const t = time(r.bytes(6));
  const lat = coordinate(r.bytes(4));
  const lng = coordinate(r.bytes(4));
  const speed = bcdNumber(r.bytes(2));
  const course = bcdNumber(r.bytes(2));
  const flags = r.u8();
  a[Attr.status] = r.u8();
  a.key = r.u8();
  a[indexed.adc(1)] = r.u8() + r.u8() / 100;
  a[indexed.adc(2)] = r.u8() + r.u8() / 100;
  a[Attr.odometer] = r.u32();
  if (m588 && r.remaining >= 5) {
    r.skip(4);
    const driving = r.u8();
    if (driving & 0x01) a[Attr.alarm] = Alarm.hardAcceleration;
    else if (driving & 0x02) a[Attr.alarm] = Alarm.hardBraking;
    else if (driving & 0x04) a[Attr.alarm] = Alarm.hardCornering;
  }
  if (type === ALARM_DATA && r.remaining >= 2) {
    const a1 = r.u8();
    const a2 = r.u8();
    if (a1 & 0x01) a[Attr.alarm] = Alarm.hardBraking;
    else if (a1 & 0x20) a[Attr.alarm] = Alarm.hardAcceleration;
    else if (a2 & 0x02) a[Attr.alarm] = Alarm.overspeed;
    else if (a2 & 0x10) a[Attr.alarm] = Alarm.hardCornering;
  }
  // a body whose date or coordinates are not BCD is kept as a status record
  if (t !== undefined && lat !== undefined && lng !== undefined && Math.abs(lat) <= 90 && Math.abs(lng) <= 180) {
    Object.assign(rec, { time: t, lat, lng, valid: (flags & 0x80) !== 0, satellites: flags & 0x0f });
    if (speed !== undefined) rec.speed = speed;
    if (course !== undefined) rec.course = course % 360;
  }
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 11 || frame[0] !== 0x24 || frame[1] !== 0x24) throw new DecodeError('gator: no header');
  const type = frame[2];
  // the frame as cut (some firmware appends bytes the length field does not count)
  const end = frame.length;
  const checksum = frame[end - 2];
  const reply = answer(checksum, type);
  const r = new Reader(frame, 5, end - 2);
  // M588 models send their IMEI as 8 BCD bytes; the others a 4-byte pseudo IP address
  const imei = end - 2 - 5 > 8 ? frame.toString('hex', 5, 13).slice(0, 15) : '';
  const m588 = /^\d{15}$/.test(imei) && luhnValid(imei);
  const deviceId = m588 ? imei : pseudoIpNumber(r.bytes(4));
  if (m588) r.skip(8);
  if (!POSITIONS.has(type)) return { deviceId, reply };
  return { deviceId, records: [decodePosition(r, type, m588)], reply };
}

// ---- commands ---------------------------------------------------------------------------------

/** The 4-byte pseudo IP address of a 10-digit number (an 11-digit identifier drops its leading `1`). */
function pseudoIp(id: string): Buffer {
  const digits = id.length === 11 ? id.slice(1) : id;
  if (!/^\d{10}$/.test(digits)) throw new Error('gator: the device identifier must be 10 digits (or 1 and 10 digits)');
  const pairs = [0, 2, 4, 6, 8].map((i) => Number(digits.slice(i, i + 2)));
  const high = pairs[0] - 30;
  if (high < 0 || high > 15 || pairs.slice(1).some((p) => p > 99)) throw new Error('gator: identifier out of range');
  return Buffer.from(pairs.slice(1).map((p, i) => p | (((high >> (3 - i)) & 1) << 7)));
}

const COMMANDS: Record<string, [number, (a: Command['attributes']) => number[]]> = {
  positionSingle: [0x30, () => []],
  engineResume: [0x38, () => []],
  engineStop: [0x39, () => []],
  setSpeedLimit: [0x3f, (a) => [Number(a.data ?? 0) & 0xff]], // km/h
  setOdometer: [0x6b, (a) => [(Number(a.data ?? 0) >> 8) & 0xff, Number(a.data ?? 0) & 0xff]],
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const entry = COMMANDS[command.type];
  if (!entry) throw new Error(`gator: unsupported command ${command.type}`);
  return frame(entry[0], Buffer.concat([pseudoIp(ctx.deviceId), Buffer.from(entry[1](command.attributes))]));
}

export const protocol: Protocol = {
  name: 'gator',
  defaultPort: 5052,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
