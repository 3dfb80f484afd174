/**
 * VT200 family binary protocol.
 *
 *   `0x28 | id (6 bytes BCD) | u16 type | u16 length | data | u8 XOR of id..data | 0x29`;
 *   0x28, 0x29 and 0x3D inside are sent as `0x3D, byte XOR 0x3D` (the framer un-escapes).
 * Types: 0x2082/0x2084/0x2086 position reports, 0x3089 ignition report, 0x3088 trip report;
 * 0x0088, 0x1088, 0x008E carry nothing kept. A position is
 *   `u8 kind | u16 trip | ddmmyy hhmmss (BCD) | latitude ddmm.mmmm (8 BCD digits) | longitude dddmm.mmmm
 *    (9 digits) | flags nibble (bit 0 valid, bit 1 north, bit 2 east)`, then in reports u8 km/h and
 *   u8 course / 2 and u8 satellites.
 * A coordinate that is not BCD means the device had none: nothing is recorded.
 * The checksum is not checked: documentation examples carry a constant one.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 1024;
const START = 0x28;
const END = 0x29;
const ESC = 0x3d;

/** `(`..`)` with escapes removed. */
function createFramer(): Framer {
  return {
    next(buffer) {
      if (!buffer.length) return null;
      if (buffer[0] !== START) throw new FrameError('vt200: no frame start');
      const end = buffer.indexOf(END, 1);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('vt200: frame too long');
        return null;
      }
      const raw = buffer.subarray(0, end + 1);
      if (raw.indexOf(ESC) < 0) return { frame: raw, consumed: end + 1 };
      const out: number[] = [];
      for (let i = 0; i < raw.length; i++) out.push(raw[i] === ESC && i + 1 < raw.length - 1 ? raw[++i] ^ ESC : raw[i]);
      return { frame: Buffer.from(out), consumed: end + 1 };
    },
  };
}

/** BCD digits as a string; undefined when a nibble is not a digit. */
function digits(b: Buffer): string | undefined {
  const s = b.toString('hex');
  return /^\d+$/.test(s) ? s : undefined;
}

function readTime(r: Reader): number | undefined {
  const d = digits(r.bytes(6));
  if (!d) return undefined;
  const [dd, mo, yy, hh, mi, ss] = [0, 2, 4, 6, 8, 10].map((i) => Number(d.slice(i, i + 2)));
  return Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss);
}

/** Latitude (4 bytes) and longitude with the flags nibble (5 bytes). */
function readPosition(r: Reader, rec: DeviceRecord): boolean {
  const lat = digits(r.bytes(4));
  const rest = r.hex(5);
  const lng = /^\d{9}/.test(rest) ? rest.slice(0, 9) : undefined;
  if (!lat || !lng) return false;
  const flags = parseInt(rest[9], 16);
  rec.lat = (Number(lat.slice(0, 2)) + Number(`${lat.slice(2, 4)}.${lat.slice(4)}`) / 60) * (flags & 0x02 ? 1 : -1);
  rec.lng = (Number(lng.slice(0, 3)) + Number(`${lng.slice(3, 5)}.${lng.slice(5)}`) / 60) * (flags & 0x04 ? 1 : -1);
  rec.valid = (flags & 0x01) === 1;
  if (rec.lat > 90 || rec.lat < -90 || rec.lng > 180 || rec.lng < -180) throw new DecodeError('vt200: coordinates out of range');
  return true;
}

function decodePosition(r: Reader): DeviceRecord[] {
  r.skip(3); // kind, trip number
  const time = readTime(r);
  const rec: DeviceRecord = { time, attributes: {} };
  if (time === undefined || !readPosition(r, rec)) return [];
  if (r.remaining >= 3) {
    rec.speed = r.u8();
    rec.course = (r.u8() * 2) % 360;
    rec.satellites = r.u8();
  }
  return [rec];
}

/** Ignition report: u8 ignition, u16 trip, time, and a position when the device has one. */
function decodeIgnition(r: Reader): DeviceRecord[] {
  const ignition = r.u8() === 1;
  r.skip(2);
  const time = readTime(r);
  if (time === undefined) return [];
  const rec: DeviceRecord = { time, valid: false, lat: 0, lng: 0, attributes: { [Attr.ignition]: ignition } };
  if (r.remaining >= 9 && !readPosition(r, rec)) Object.assign(rec, { valid: false, lat: 0, lng: 0 });
  return [rec];
}

/** Trip report: u16 trip, IMEI and IMSI (BCD, F-padded), start and end time. */
function decodeTrip(r: Reader): DeviceRecord[] {
  const trip = r.u16();
  const imei = r.hex(8).replace(/f+$/, '');
  const imsi = r.hex(8).replace(/f+$/, '');
  const start = readTime(r);
  const end = readTime(r);
  if (end === undefined) return [];
  const a: DeviceRecord['attributes'] = { tripId: trip, imsi };
  if (/^\d{15}$/.test(imei)) a.imei = imei;
  if (start !== undefined) a.tripStart = new Date(start).toISOString();
  return [{ time: end, attributes: a }];
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 12 || frame[0] !== START) throw new DecodeError('vt200: bad frame');
  const r = new Reader(frame, 1, frame[frame.length - 1] === END ? frame.length - 2 : frame.length);
  const id = r.hex(6).replace(/^0+(?=.)/, '');
  const type = r.u16();
  const length = r.u16();
  const data = new Reader(r.bytes(Math.min(length, r.remaining)));
  let records: DeviceRecord[] = [];
  if (type === 0x2082 || type === 0x2084 || type === 0x2086) records = decodePosition(data);
  else if (type === 0x3089) records = decodeIgnition(data);
  else if (type === 0x3088) records = decodeTrip(data);
  return { deviceId: id, records };
}

export const protocol: Protocol = {
  name: 'vt200',
  defaultPort: 5143,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
  carriesText: false,
};
