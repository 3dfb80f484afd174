/**
 * AutoFon binary protocol: fixed-size messages by their first byte.
 *   0x10 login (12): hardware, software version, 8-byte IMEI (BCD, a pad digit first), checksum
 *   0x11 location (78), 0x12 history (257: u8 count in the low nibble, u16 total, up to 5 records)
 *   0x41 login of the AutoFon 4.5 (19): 8-byte IMEI and more; 0x02 its location (34)
 * A location record: [interval, 8 settings bytes] | u8 status | [u16] | u8 battery | 6-byte time |
 *   [two timers: 5 + 2 + 5 bytes each] | i8 temperature | u8 rssi | u16 mcc, mnc, lac, cid | u8 fix (bits 6-7
 *   valid, 0-5 satellites) | ddmmyy hhmmss bytes | i32 lat, i32 lon (ddmm.mmmm x 10000) | i16 altitude |
 *   u8 km/h | u8 course / 2 | u16 hdop | u16 | u8 checksum (the bracketed parts only in 0x11).
 * 4.5 location: u8 status (bit 7 alarm, bits 0-6 battery) | u16 | i8 temperature | 4 bytes | 6 bytes cell |
 *   u8 fix | u24 hhmmss | u24 ddmmyy | lat, lon as u8 degrees + u24 (1/600000 degrees << 4 | hemisphere bit) |
 *   u8 km/h | u16 course.
 * A login is answered `resp_crc=` + its last byte.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MSG_LOGIN = 0x10;
const MSG_LOCATION = 0x11;
const MSG_HISTORY = 0x12;
const MSG_45_LOGIN = 0x41;
const MSG_45_LOCATION = 0x02;
const LENGTHS: Record<number, number> = { [MSG_LOGIN]: 12, [MSG_LOCATION]: 78, [MSG_HISTORY]: 257, [MSG_45_LOGIN]: 19, [MSG_45_LOCATION]: 34 };

function createFramer(): Framer {
  return {
    next(buffer) {
      if (!buffer.length) return null;
      const length = LENGTHS[buffer[0]];
      if (!length) throw new FrameError(`autofon: unknown message 0x${buffer[0].toString(16)}`);
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

/** ddmm.mmmm x 10000 as an integer. */
const ddmm = (raw: number): number => Math.trunc(raw / 1e6) + (raw % 1e6) / 10000 / 60;

function checkRange(rec: DeviceRecord): DeviceRecord {
  if (!(Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180)) throw new DecodeError('autofon: coordinates out of range');
  return rec;
}

function readLocation(r: Reader, history: boolean): DeviceRecord {
  if (!history) r.skip(9); // interval, settings
  const a: DeviceRecord['attributes'] = { [Attr.status]: r.u8() };
  if (!history) r.skip(2);
  a.batteryRaw = r.u8();
  r.skip(6); // device time
  if (!history) r.skip(24); // two timers
  a[indexed.temp(1)] = r.i8();
  const rssi = r.u8();
  const rec: DeviceRecord = { attributes: a, cells: [{ mcc: r.u16(), mnc: r.u16(), lac: r.u16(), cid: r.u16(), rssi }] };
  const fix = r.u8();
  rec.valid = (fix & 0xc0) !== 0;
  rec.satellites = fix & 0x3f;
  const [dd, mo, yy, h, m, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  rec.time = utc(yy, mo, dd, h, m, s);
  rec.lat = ddmm(r.i32());
  rec.lng = ddmm(r.i32());
  rec.altitude = r.i16();
  rec.speed = r.u8();
  rec.course = (r.u8() * 2) % 360;
  rec.hdop = r.u16();
  r.skip(3); // reserved, checksum
  return checkRange(rec);
}

/** 4.5 coordinate: degrees, and 1/600000 degrees above a hemisphere bit (1 = north/east). */
function coordinate45(r: Reader): number {
  const degrees = r.u8();
  const rest = r.u24();
  const value = degrees + (rest >> 4) / 600000;
  return rest & 1 ? value : -value;
}

function readLocation45(r: Reader): DeviceRecord {
  const status = r.u8();
  const a: DeviceRecord['attributes'] = { batteryRaw: status & 0x7f };
  if (status & 0x80) a[Attr.alarm] = Alarm.general;
  r.skip(2); // remaining time
  a[indexed.temp(1)] = r.i8();
  r.skip(4 + 6); // timer, mode, sending interval, cell
  const fix = r.u8();
  const time = r.u24();
  const date = r.u24();
  const rec: DeviceRecord = {
    valid: fix >> 6 !== 0,
    satellites: fix >> 6,
    time: utc(date % 100, Math.trunc(date / 100) % 100, Math.trunc(date / 10000), Math.trunc(time / 10000), Math.trunc(time / 100) % 100, time % 100),
    lat: coordinate45(r),
    lng: coordinate45(r),
    speed: r.u8(),
    course: r.u16() % 360,
    attributes: a,
  };
  return checkRange(rec);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const type = r.u8();
  if (type === MSG_LOGIN || type === MSG_45_LOGIN) {
    if (type === MSG_LOGIN) r.skip(2); // hardware, software version
    const imei = r.hex(8).slice(1);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('autofon: bad IMEI');
    return { deviceId: imei, reply: Buffer.concat([Buffer.from('resp_crc=', 'latin1'), frame.subarray(frame.length - 1)]) };
  }
  if (!ctx.deviceId) return {};
  if (type === MSG_LOCATION) return { records: [readLocation(r, false)] };
  if (type === MSG_45_LOCATION) return { records: [readLocation45(r)] };
  if (type === MSG_HISTORY) {
    const count = r.u8() & 0x0f;
    r.skip(2); // total count
    const records: DeviceRecord[] = [];
    for (let i = 0; i < count; i++) records.push(readLocation(r, true));
    return { records };
  }
  throw new DecodeError('autofon: unknown message');
}

export const protocol: Protocol = {
  name: 'autofon',
  defaultPort: 5077,
  transports: ['tcp'],
  maxFrameSize: 257,
  createFramer,
  decode,
  commands: [],
};
