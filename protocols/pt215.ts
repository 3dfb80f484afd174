/**
 * PT215 (GT06-like) binary protocol: `XX`, length, type, body, CR LF.
 *   0x01 login: IMEI as BCD (first nibble padding)     -> `XX 01 01 \r\n`
 *   0x08 heartbeat
 *   0x10 / 0x11 GPS (live / stored): yy MM dd HH mm ss, latitude and longitude (u32, 1/1800000 degree),
 *   course and flags (bits 0..9 course, 10 north, 11 west, 12 valid) -> `XX 07 <type> <the 6 time bytes> \r\n`
 * Frames end at CR LF.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 256;
const MSG_LOGIN = 0x01;
const MSG_GPS_REALTIME = 0x10;
const MSG_GPS_OFFLINE = 0x11;

function reply(type: number, content: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([Buffer.from([0x58, 0x58, 1 + content.length, type]), content, Buffer.from('\r\n')]);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 3);
  const type = r.u8();
  if (type === MSG_LOGIN) {
    const imei = r.hex(8).slice(1);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('pt215: bad IMEI');
    return { deviceId: imei, reply: reply(MSG_LOGIN) };
  }
  if (type !== MSG_GPS_REALTIME && type !== MSG_GPS_OFFLINE) return {};
  const stamp = Buffer.from(r.bytes(6));
  const time = utc(stamp[0], stamp[1], stamp[2], stamp[3], stamp[4], stamp[5]);
  let lat = r.u32() / 1_800_000;
  let lng = r.u32() / 1_800_000;
  const flags = r.u16();
  if (!(flags & 0x0400)) lat = -lat;
  if (flags & 0x0800) lng = -lng;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('pt215: coordinates out of range');
  const attributes: Record<string, AttrValue> = type === MSG_GPS_OFFLINE ? { [Attr.archive]: true } : {};
  return { records: [{ time, valid: (flags & 0x1000) !== 0, lat, lng, course: (flags & 0x3ff) % 360, attributes }], reply: reply(type, stamp) };
}

export const protocol: Protocol = {
  name: 'pt215',
  defaultPort: 5197,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('pt215', [0x0a], MAX_FRAME, true),
  decode,
  commands: [],
};
