/**
 * Pointer Cellocator (wireless communication protocol over TCP and UDP).
 *
 * Every message: `"MCGP" | type | unit id u32 LE | ... | checksum` where the checksum is the sum of every
 * byte after the system code (mod 256). `"MCPG"` marks the alternative units (degrees, km/h).
 *   type 0 (status, 70 bytes): communication control u16, message numerator, versions, unit status,
 *     transmission reason, mode, IO u32, analog bytes, odometer u24, multi-purpose data (driver code),
 *     GPS: fix time, location status, modes, satellites, lon/lat (1e-8 rad), altitude cm, speed cm/s,
 *     course mrad, time `s m h d mo yyyy`.
 *   type 11 (modular): `numerator | packet control | length u16 | 4 reserved | modules`, module =
 *     `type | length u16 | data` (2 programmable-logic variables, 6 GPS, 7 time).
 *   also types 3 (programming, 31 bytes), 7 (serial log, 70), 8 (serial, 19 + u16 at 16), 9 (modular, 15 + u8 at 13).
 * Answers: an acknowledge (type 4, 28 bytes) naming the numerator of the message it confirms; a
 * modular message is answered with a modular message holding the acknowledge module (9).
 * Commands: type 0 from the server with the command code, its two data bytes each sent twice.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 16 + 0xffff;
const STATUS = 0;
const MODULAR_EXT = 11;
const ACKNOWLEDGE = 4;

/** Frame length by message type, from the first bytes (undefined: not known yet or never). */
function frameLength(b: Buffer): number | undefined {
  switch (b[4]) {
    case 0:
    case 7:
      return 70;
    case 3:
      return 31;
    case 8:
      return b.length >= 19 ? 19 + b.readUInt16LE(16) : undefined;
    case 9:
      return 15 + b[13];
    case 11:
      return 16 + b.readUInt16LE(13);
    default:
      throw new FrameError(`cellocator: unknown message type ${b[4]}`);
  }
}

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 4) return null;
      if (buffer[0] !== 0x4d || buffer[1] !== 0x43) throw new FrameError('cellocator: no system code');
      if (buffer.length < 15) return null;
      const length = frameLength(buffer);
      if (length === undefined || buffer.length < length) return null;
      return { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

const sum = (b: Buffer, start: number, end: number) => {
  let s = 0;
  for (let i = start; i < end; i++) s += b[i];
  return s & 0xff;
};

/** A server message: system code, type, unit id, numerator, authentication code 0, content, checksum. */
function message(type: number, unit: number, numerator: number, content: number[]): Buffer {
  const out = Buffer.alloc(14 + content.length + 1);
  out.write('MCGP', 0, 'latin1');
  out[4] = type;
  out.writeUInt32LE(unit >>> 0, 5);
  out[9] = numerator & 0xff;
  Buffer.from(content).copy(out, 14);
  out[out.length - 1] = sum(out, 4, out.length - 1);
  return out;
}

const acknowledge = (unit: number, numerator: number) => message(ACKNOWLEDGE, unit, 0, [0, numerator, ...Array<number>(11).fill(0)]);
// packet control 0x80, modules length 10, 4 reserved, module 9 (acknowledge) of 3 bytes: code 0 and 2 reserved
const moduleAcknowledge = (unit: number, numerator: number) => message(MODULAR_EXT, unit, numerator, [0x80, 10, 0, 0, 0, 0, 0, 9, 3, 0, 0, 0, 0]);

/** Transmission reasons with a name in the shared vocabulary. */
const REASONS: Record<number, string> = { 70: Alarm.sos, 80: Alarm.powerCut, 81: Alarm.lowPower, 99: Alarm.hardBraking, 100: Alarm.hardCornering, 101: Alarm.hardAcceleration, 206: Alarm.jamming };

const MRAD = 180 / Math.PI / 1000;
const NANO_RAD = 180 / Math.PI / 1e8;

function decodeStatus(r: Reader, alternative: boolean): DeviceRecord {
  const a: DeviceRecord['attributes'] = {};
  const rec: DeviceRecord = { attributes: a };
  a.versionHw = r.u8();
  a.versionFw = r.u8();
  r.skip(1); // protocol version
  a[Attr.status] = r.u8() & 0x0f;
  r.skip(2); // operator / configuration flags, reason data
  const reason = r.u8();
  a[Attr.event] = reason;
  if (REASONS[reason]) a[Attr.alarm] = REASONS[reason];
  a.mode = r.u8();
  const io = r.u32le();
  a[Attr.input] = io;
  a[Attr.ignition] = ((io >>> 15) & 1) === 1; // second IO byte, bit 7
  r.skip(1); // operator (alternative: input byte)
  if (alternative) {
    a[indexed.adc(1)] = r.u16le();
    a[indexed.adc(2)] = r.u16le();
  } else for (let i = 1; i <= 4; i++) a[indexed.adc(i)] = r.u8();
  a[Attr.odometer] = r.u24le();
  const purpose = r.bytes(6);
  if (purpose.some((x) => x !== 0)) a[Attr.driverUniqueId] = purpose.toString('hex'); // driver code (Dallas key / keypad)
  r.skip(2); // age of the fix
  const location = r.u8();
  r.skip(2); // navigation modes
  rec.satellites = r.u8();
  const lon = r.i32le();
  const lat = r.i32le();
  rec.lng = alternative ? lon / 1e7 : lon * NANO_RAD;
  rec.lat = alternative ? lat / 1e7 : lat * NANO_RAD;
  rec.altitude = r.i32le() / 100;
  const speed = r.u32le();
  rec.speed = alternative ? speed : speed * 0.036; // cm/s -> km/h
  const course = r.u16le();
  rec.course = (alternative ? course / 1000 : course * MRAD) % 360;
  const [s, mi, h, d, mo] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  const y = r.u16le();
  if (h > 23 || mi > 59 || s > 59 || d < 1 || d > 31 || mo < 1 || mo > 12) throw new DecodeError('cellocator: bad time');
  rec.time = Date.UTC(y, mo - 1, d, h, mi, s);
  rec.valid = (location & 0x02) !== 0 || rec.satellites > 2;
  return rec;
}

function decodeModular(r: Reader): DeviceRecord {
  const a: DeviceRecord['attributes'] = {};
  const rec: DeviceRecord = { attributes: a };
  r.skip(1); // packet control
  const end = Math.min(r.end, r.pos + 2 + r.u16le());
  r.skip(4); // reserved
  while (r.pos + 3 <= end) {
    const type = r.u8();
    const m = new Reader(r.bytes(r.u16le()));
    if (type === 2) {
      m.skip(6); // operator id, signature
      for (let n = m.u8(); n > 0 && m.remaining >= 7; n--) {
        const id = m.u16le();
        m.skip(1); // value length
        a[indexed.io(id)] = m.u32le();
      }
    } else if (type === 6) {
      rec.hdop = m.u8() / 10;
      m.skip(2); // navigation modes
      rec.satellites = m.u8();
      const lon = m.i32le();
      const lat = m.i32le();
      rec.lng = lon * NANO_RAD;
      rec.lat = lat * NANO_RAD;
      rec.altitude = m.i32le() / 100;
      rec.speed = m.u8() * 0.036;
      rec.course = (m.u16le() * MRAD) % 360;
    } else if (type === 7) {
      rec.valid = m.u8() === 1;
      const [s, mi, h, d, mo, y] = [m.u8(), m.u8(), m.u8(), m.u8(), m.u8(), m.u8()];
      if (h > 23 || mi > 59 || s > 59 || d < 1 || d > 31 || mo < 1 || mo > 12) throw new DecodeError('cellocator: bad time');
      rec.time = Date.UTC(2000 + y, mo - 1, d, h, mi, s);
    }
  }
  if (rec.lat === undefined || !(Math.abs(rec.lat) <= 90 && Math.abs(rec.lng!) <= 180)) {
    delete rec.lat;
    delete rec.lng;
  }
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 15 || frame[0] !== 0x4d || frame[1] !== 0x43) throw new DecodeError('cellocator: no system code');
  const alternative = frame[3] !== 0x50; // "MCPG"
  if (!alternative && sum(frame, 4, frame.length - 1) !== frame[frame.length - 1]) throw new DecodeError('cellocator: bad checksum');
  const r = new Reader(frame, 4, frame.length - 1);
  const type = r.u8();
  const unit = r.u32le();
  const deviceId = String(unit);
  if (type !== 8) r.skip(2); // communication control
  const numerator = r.u8();
  if (type === MODULAR_EXT) return { deviceId, records: [decodeModular(r)], reply: moduleAcknowledge(unit, numerator) };
  const reply = acknowledge(unit, numerator);
  if (type === STATUS) {
    const rec = decodeStatus(r, alternative);
    if (!(Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180)) throw new DecodeError('cellocator: bad position');
    return { deviceId, records: [rec], reply };
  }
  return { deviceId, reply };
}

// ---- commands ---------------------------------------------------------------------------------

/** Command code and its two data bytes. */
const COMMANDS: Record<string, (a: Command['attributes']) => [number, number, number]> = {
  // output control: state in the high nibble of the first byte, output number in the second
  outputControl: (a) => [0x03, (Number(a.data ?? 0) & 0x0f) << 4, Number(a.index ?? 0) & 0xff],
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`cellocator: unsupported command ${command.type}`);
  const [code, d1, d2] = build(command.attributes);
  const id = Number(ctx.deviceId);
  const unit = Number.isInteger(id) && id >= 0 && id <= 0xffffffff ? id : 0;
  // each byte twice (the unit checks the copies), then 4 bytes of command-specific data
  return message(0, unit, 0, [code, code, d1, d1, d2, d2, 0, 0, 0, 0]);
}

export const protocol: Protocol = {
  name: 'cellocator',
  defaultPort: 5033,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
