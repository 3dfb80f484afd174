/**
 * TEK tank monitors: `u8 product | u8 hardware | u8 firmware | u8 contact reason | u8 alarm | u8 rssi | u8 battery |
 * 8-byte IMEI (BCD, a pad digit first) | u8 type (low 6 bits) | u8 length | body`; the frame is
 * 17 + length + (the top 2 bits of byte 15) x 64 bytes.
 * Types 4 and 8: `u16 count | 6 bytes | count x (u8 rssi, u8 temperature + 30, u16 source << 10 | ullage)`.
 * Type 17: text `,<x>,<hhmmss.s>,<ddmm.mmmm><N|S>,<dddmm.mmmm><E|W>,<hdop>,<altitude>,<fix>,<course>,<km/h>,<knots>,
 * <ddmmyy>,<satellites>,...`. The devices expect no answer.
 */
import { indexed } from './attributes.ts';
import { knotsToKmh, Reader } from './binary.ts';
import { nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 17 + 255 + 3 * 64;
const FIX = /,\d+,(\d\d)(\d\d)(\d\d)\.\d,(\d{4}\.\d+)([NS]),(\d{5}\.\d+)([EW]),(\d+\.\d+),(\d+\.\d+),(\d+),(\d+\.\d+),\d+\.\d+,(\d+\.\d+),(\d\d)(\d\d)(\d\d),(\d+),/;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 17) return null;
      const length = 17 + buffer[16] + ((buffer[15] >> 6) << 6);
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

function readings(r: Reader, now: number): DeviceRecord {
  const count = r.u16();
  r.skip(6); // hours/tickets, error, reserved, logger speed, login time, minutes
  const rec: DeviceRecord = { time: now, attributes: {} };
  for (let i = 1; i <= count; i++) {
    rec.attributes[`rssi${i}`] = r.u8();
    rec.attributes[indexed.temp(i)] = r.u8() - 30;
    const data = r.u16();
    rec.attributes[`src${i}`] = data >> 10;
    rec.attributes[`ullage${i}`] = data & 0x3ff;
  }
  return rec;
}

function fix(text: string): DeviceRecord | undefined {
  const m = FIX.exec(text);
  if (!m) return undefined;
  const [, hh, mi, ss, lat, ns, lng, ew, hdop, altitude, mode, course, knots, dd, mo, yy, sats] = m;
  return {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: Number(mode) > 0,
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    hdop: Number(hdop),
    altitude: Number(altitude),
    course: Number(course) % 360,
    speed: knotsToKmh(Number(knots)),
    satellites: Number(sats),
    attributes: {},
  };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 7);
  const imei = r.hex(8).slice(1);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('tek: bad IMEI');
  const type = r.u8() & 0x3f;
  r.skip(1); // length
  if (type === 4 || type === 8) return { deviceId: imei, records: [readings(r, ctx.now)] };
  if (type === 17) {
    const rec = fix(frame.toString('latin1', r.pos));
    return { deviceId: imei, records: rec ? [rec] : [] };
  }
  return { deviceId: imei };
}

export const protocol: Protocol = {
  name: 'tek',
  defaultPort: 5173,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
