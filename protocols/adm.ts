/**
 * ADM (ADM100/300/700 ...) binary protocol, little-endian:
 * `[IMEI 15 ASCII] | device id u16 | size u8 | type u8 | ...`; size covers the packet from the device id.
 *   type 0x03: `IMEI 15 ASCII` identification
 *   type with low bits 00: data: firmware, index, status (bit 5 = no fix), lat/lon float, course 0.1°,
 *     speed 0.1 km/h, acceleration, altitude, hdop, satellites, time, power and battery mV, then blocks
 *     by type bits: 2 outputs, 3 six analog inputs (mV), 4 two counters, 5 fuel levels and temperatures,
 *     6 CAN values (each a mask byte: size in bits 6-7, index below), 7 odometer
 *   size 0x84: a command answer (text up to NUL)
 * The devices expect no answer. Commands are text lines (`STATUS`, custom).
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { latin1 } from './text.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const CMD_RESPONSE_SIZE = 0x84;
const MSG_IMEI = 0x03;
const MAX_FRAME = 15 + 255;

interface Session {
  last?: LastFix;
}

const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 18) return null;
      const length = isDigit(buf[0]) ? 15 + buf[17] : buf[2];
      if (length < (isDigit(buf[0]) ? 18 : 3)) throw new FrameError(`adm: bad size ${length}`);
      return buf.length >= length ? { frame: buf.subarray(0, length), consumed: length } : null;
    },
  };
}

function decodeData(r: Reader, type: number, session: Session): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  a.versionFw = r.u8();
  a[Attr.index] = r.u16le();
  const status = r.u16le();
  a[Attr.status] = status;
  rec.valid = (status & 0x20) === 0;
  const lat = r.f32le();
  const lng = r.f32le();
  if (!Number.isFinite(lat) || !Number.isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('adm: bad coordinates');
  Object.assign(rec, { lat, lng });
  rec.course = r.u16le() / 10;
  rec.speed = r.u16le() / 10;
  a.acceleration = r.u8() / 10;
  rec.altitude = r.i16le();
  rec.hdop = r.u8() / 10;
  rec.satellites = r.u8() & 0x0f;
  rec.time = r.u32le() * 1000;
  a[Attr.power] = r.u16le() / 1000;
  a[Attr.battery] = r.u16le() / 1000;
  if (type & 0x04) {
    r.u8(); // vibration
    r.u8(); // vibration count
    const out = r.u8();
    for (let i = 0; i <= 3; i++) a[indexed.out(i + 1)] = (out >> i) & 1;
    r.u8(); // input alarms
  }
  if (type & 0x08) for (let i = 1; i <= 6; i++) a[indexed.adc(i)] = r.u16le() / 1000;
  if (type & 0x10) for (let i = 1; i <= 2; i++) a[indexed.count(i)] = r.u32le();
  if (type & 0x20) {
    for (let i = 1; i <= 3; i++) a[indexed.fuel(i)] = r.u16le();
    for (let i = 1; i <= 3; i++) a[indexed.temp(i)] = r.u8();
  }
  if (type & 0x40) {
    const end = r.pos + r.u8(); // the length counts its own byte
    while (r.pos < end) {
      const mask = r.u8();
      const size = mask >> 6;
      const value = size === 3 ? r.u64le() : size === 2 ? r.u32le() : size === 1 ? r.u16le() : r.u8();
      const index = mask & 0x3f;
      const key = index === 1 ? indexed.temp(1) : index === 2 ? 'humidity' : index === 3 ? 'illumination' : index === 4 ? Attr.batteryLevel : `can${index}`;
      a[key] = value;
    }
  }
  if (type & 0x80) a[Attr.odometer] = r.u32le();
  rememberFix(session, rec);
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const r = new Reader(frame);
  let deviceId: string | undefined;
  if (frame.length && isDigit(frame[0])) deviceId = r.ascii(15);
  r.u16le(); // device number
  const size = r.u8();
  if (size === CMD_RESPONSE_SIZE) {
    const rest = frame.subarray(r.pos);
    const nul = rest.indexOf(0);
    const text = rest.toString('utf8', 0, nul < 0 ? Math.min(rest.length, CMD_RESPONSE_SIZE - 3) : nul);
    return { deviceId, records: [withLastFix({ attributes: { [Attr.result]: text } }, session)] };
  }
  const type = r.u8();
  if (type === MSG_IMEI) return { deviceId: r.ascii(15).replace(/\0+$/, '') || deviceId };
  if ((type & 0x03) !== 0) return { deviceId };
  return { deviceId, records: [decodeData(r, type, session)] };
}

function encode(command: Command, _ctx: EncodeContext): Buffer {
  if (command.type === 'getDeviceStatus') return latin1('STATUS\r\n');
  if (command.type === 'custom') return latin1(`${command.attributes.data ?? ''}\r\n`);
  throw new Error(`adm: unsupported command ${command.type}`);
}

export const protocol: Protocol = {
  name: 'adm',
  defaultPort: 5092,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['getDeviceStatus', 'custom'],
  encode,
};
