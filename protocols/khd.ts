/**
 * KHD (KG100, KG200, KG300, KC200 and compatibles) binary GPRS protocol.
 *
 *   `29 29 | type u8 | u16 length | 4-byte terminal id | body | xor u8 | 0D`
 * The length counts everything after itself (id, body, checksum, end byte); the checksum is the XOR
 * of every byte before it. Server packets have the same layout.
 * The terminal id is the SIM's 11-digit `13x` phone number: its last eight digits packed two per byte
 * (binary 0..99), and the third digit `x` in the top bits of the four bytes (first byte = bit 3).
 *
 * Position body (0x80 upload, 0x81 on-demand reply, 0x8E re-upload, 0x82 alarm, 0x85 command reply,
 * 0xA3 peripheral data): BCD `yymmddhhmmss`, BCD latitude and longitude (`dddmm.mmm`, the top bit
 * of the first byte set for south / west), BCD speed (km/h) and course, a flags byte (0x80 = fixed),
 * a 24-bit mileage, the 32-bit terminal status, then model-dependent fields. 0xA3 follows that with
 * a u16 length (counting itself) and tag-length-value peripheral items.
 * 0xB1 is the login. The server confirms every packet it receives with 0x21 (`checksum of the received
 * packet, its type, the received packet's first byte after the id`, without the id): devices resend
 * what is not confirmed, logins and stored (0x8E) positions above all.
 * The alarm packet (0x82) carries, after the flags, an overload and a logging state byte and eight
 * alarm status bytes (ALARM_BITS) instead of the mileage and status.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, xorSum } from './binary.ts';
import { utc } from './text.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 1024;
const MIN_PACKET = 11; // header 2 + type 1 + length 2 + id 4 + xor 1 + end 1

const MSG = {
  login: 0xb1,
  confirmation: 0x21,
  onDemand: 0x81,
  position: 0x80,
  reupload: 0x8e,
  alarm: 0x82,
  reply: 0x85,
  peripheral: 0xa3,
} as const;

const POSITION_TYPES = new Set<number>([MSG.position, MSG.onDemand, MSG.reupload, MSG.alarm, MSG.reply, MSG.peripheral]);

function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start + 1 < buffer.length && !(buffer[start] === 0x29 && buffer[start + 1] === 0x29)) start++;
      if (start + 5 > buffer.length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('khd: no packet header');
        return null;
      }
      const size = 5 + ((buffer[start + 3] << 8) | buffer[start + 4]);
      if (size < MIN_PACKET || size > MAX_FRAME) throw new FrameError('khd: bad packet length');
      if (buffer.length - start < size) return null;
      return { frame: buffer.subarray(start, start + size), consumed: start + size };
    },
  };
}

// ---- identity and packets ---------------------------------------------------------------------

function readId(b: Buffer): string {
  let prefix = 0;
  let digits = '';
  for (let i = 5; i < 9; i++) {
    prefix = (prefix << 1) | (b[i] >> 7);
    // a byte above 99 (seen from some firmware) simply contributes three digits
    digits += String(b[i] & 0x7f).padStart(2, '0');
  }
  return `13${prefix}${digits}`;
}

/**
 * The id as the device sends it. An id that is not an 11-digit `13x` number is sent as its last eight
 * digits with prefix digit 6 (top bits on the middle bytes).
 */
function packId(deviceId: string): Buffer {
  const id = deviceId.replace(/\D/g, '');
  const phone = /^13(\d)(\d{8})$/.exec(id);
  const prefix = phone ? Number(phone[1]) : 6;
  const digits = phone ? phone[2] : id.slice(-8).padStart(8, '0');
  const p = [0, 2, 4, 6].map((i, n) => Number(digits.slice(i, i + 2)) | ((prefix >> (3 - n)) & 1 ? 0x80 : 0));
  return Buffer.from(p);
}

function packet(type: number, id: Buffer, data: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(MIN_PACKET + data.length);
  out[0] = out[1] = 0x29;
  out[2] = type;
  out.writeUInt16BE(out.length - 5, 3);
  id.copy(out, 5);
  data.copy(out, 9);
  out[out.length - 2] = xorSum(out, 0, out.length - 2);
  out[out.length - 1] = 0x0d;
  return out;
}

/** 0x21 carries no terminal id: `29 29 21 00 05 | checksum received | type received | sub | xor | 0D`. */
function confirmation(checksum: number, type: number, sub: number): Buffer {
  const out = Buffer.of(0x29, 0x29, MSG.confirmation, 0x00, 0x05, checksum, type, sub, 0x00, 0x0d);
  out[8] = xorSum(out, 0, 8);
  return out;
}

// ---- position body ----------------------------------------------------------------------------

const bcd = (r: Reader, n: number): number => {
  const s = r.hex(n);
  if (!/^\d+$/.test(s)) throw new DecodeError('khd: bad BCD field');
  return Number(s);
};

/** `dddmm.mmm` in BCD; the top bit of the first byte is the sign. */
function coordinate(r: Reader, max: number): number {
  const raw = r.bytes(4);
  const negative = (raw[0] & 0x80) !== 0;
  const s = Buffer.of(raw[0] & 0x7f, raw[1], raw[2], raw[3]).toString('hex');
  if (!/^\d{8}$/.test(s)) throw new DecodeError('khd: bad coordinate');
  const value = Number(s.slice(0, 3)) + Number(s.slice(3)) / 1000 / 60;
  if (value > max) throw new DecodeError('khd: coordinate out of range');
  return negative ? -value : value;
}

/** Peripheral items of 0xA3: tag, length, value. */
const PERIPHERALS: Record<number, (v: Buffer, rec: DeviceRecord) => void> = {
  // fuel level: integer and hundredths
  0x01: (v, rec) => v.length >= 2 && (rec.attributes[Attr.fuelLevel] = v[0] + v[1] / 100),
  // temperature: integer (top bit: below zero) and hundredths
  0x02: (v, rec) => v.length >= 2 && (rec.attributes[indexed.temp(1)] = ((v[0] & 0x80 ? -1 : 1) * ((v[0] & 0x7f) * 100 + v[1])) / 100),
  // RFID card: card type, then the card number
  0x05: (v, rec) => v.length > 1 && (rec.attributes[Attr.driverUniqueId] = v.toString('latin1', 1).trim()),
  // four fuel level sensors (u16 each, 0 and FFFF: none)
  0x18: (v, rec) => {
    for (let i = 0; i < 4 && 2 * i + 2 <= v.length; i++) {
      const level = (v[2 * i] << 8) | v[2 * i + 1];
      if (level > 0 && level < 0xffff) rec.attributes[indexed.fuel(i + 1)] = level;
    }
  },
  0x20: (v, rec) => v.length >= 1 && (rec.attributes[Attr.batteryLevel] = v[0]),
  // cells: count, then `mcc u16, mnc u8, lac u16, cid u16, rssi u8`
  0x23: (v, rec) => {
    const cells = [];
    for (let i = 0, at = 1; i < v[0] && at + 8 <= v.length; i++, at += 8) {
      cells.push({ mcc: (v[at] << 8) | v[at + 1], mnc: v[at + 2], lac: (v[at + 3] << 8) | v[at + 4], cid: (v[at + 5] << 8) | v[at + 6], rssi: v[at + 7] });
    }
    if (cells.length) rec.cells = cells;
  },
};

/** Alarm bits of the 8-byte alarm status of 0x82: [byte, bit, alarm], most urgent first. */
const ALARM_BITS: Array<[number, number, string]> = [
  [1, 0, Alarm.sos],
  [6, 7, Alarm.accident],
  [1, 3, Alarm.powerCut],
  [0, 4, Alarm.lowPower],
  [1, 1, Alarm.overspeed],
  [0, 6, Alarm.geofenceExit],
  [0, 7, Alarm.geofenceEnter],
  [1, 6, Alarm.tow],
  [1, 7, Alarm.door],
  [2, 2, Alarm.temperature],
  [2, 4, Alarm.tampering],
  [2, 6, Alarm.fatigueDriving],
  [2, 7, Alarm.idle],
  [6, 3, Alarm.vibration],
  [6, 4, Alarm.hardBraking],
  [6, 5, Alarm.hardAcceleration],
  [6, 6, Alarm.hardCornering],
];

function peripherals(r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  if (r.remaining < 2) return;
  const length = r.u16();
  const end = Math.min(r.end, r.pos - 2 + length);
  while (r.pos + 2 <= end) {
    const tag = r.u8();
    const n = r.u8();
    if (r.pos + n > end) break;
    const value = r.bytes(n);
    const known = PERIPHERALS[tag];
    if (known) known(value, rec);
    else a[indexed.io(tag)] = value.toString('hex');
  }
}

function decodePosition(type: number, r: Reader): DeviceRecord {
  const [yy, mo, dd, hh, mi, ss] = [1, 1, 1, 1, 1, 1].map(() => bcd(r, 1));
  const time = utc(yy, mo, dd, hh, mi, ss);
  const lat = coordinate(r, 90);
  const lng = coordinate(r, 180);
  const speed = bcd(r, 2);
  const course = bcd(r, 2);
  const flags = r.u8();
  const a: Record<string, AttrValue> = {};
  const record: DeviceRecord = { time, valid: (flags & 0x80) !== 0, lat, lng, speed, attributes: a };
  if (course <= 360) record.course = course;
  if (type === MSG.alarm) {
    // overload state, logging state, then the alarm status bits
    r.skip(2);
    const bits = r.bytes(8);
    const hit = ALARM_BITS.find(([byte, bit]) => bits[byte] & (1 << bit));
    a[Attr.alarm] = hit ? hit[2] : Alarm.general;
    return record;
  }
  const mileage = r.u24();
  if (mileage) a[Attr.odometer] = mileage;
  a[Attr.status] = r.u32();
  if (type === MSG.peripheral && r.remaining >= 8) {
    r.skip(8); // report interval, thresholds and states
    peripherals(r, record);
  }
  return record;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < MIN_PACKET || frame[0] !== 0x29 || frame[1] !== 0x29) throw new DecodeError('khd: not a packet');
  const type = frame[2];
  const end = frame[frame.length - 1] === 0x0d ? frame.length - 2 : frame.length - 1;
  const deviceId = readId(frame);
  const result: DecodeResult = { deviceId, reply: confirmation(frame[end], type, end > 9 ? frame[9] : 0) };
  if (POSITION_TYPES.has(type)) result.records = [decodePosition(type, new Reader(frame, 9, end))];
  return result;
}

// ---- commands ---------------------------------------------------------------------------------

const COMMANDS: Record<string, number> = {
  positionSingle: 0x30,
  engineResume: 0x38,
  engineStop: 0x39,
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const id = packId(ctx.deviceId);
  const type = COMMANDS[command.type];
  if (type !== undefined) return packet(type, id);
  if (command.type === 'custom') {
    // hex of a command byte and its parameters, e.g. `3f50` (overspeed limit)
    const hex = String(command.attributes.data ?? '').replace(/\s/g, '');
    if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw new Error('khd: custom data must be hex of a command byte and its parameters');
    const b = Buffer.from(hex, 'hex');
    return packet(b[0], id, b.subarray(1));
  }
  throw new Error(`khd: unsupported command ${command.type}`);
}

export const protocol: Protocol = {
  name: 'khd',
  defaultPort: 5058,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [...Object.keys(COMMANDS), 'custom'],
  carriesText: false,
  encode,
};
