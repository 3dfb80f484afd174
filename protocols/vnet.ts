/**
 * VNET binary protocol: `$$`, type (u16 LE, low 15 bits), data length (u16 LE), dd MM yy HH mm ss in
 * BCD, data, then 12 bytes (checksum and `##` among them). Frame length = 6 + data length + 12.
 *   0x0000 login: IMEI (BCD, 16 digits, the first 15 kept)          -> the frame itself, echoed
 *   0x0033 GPS: latitude (BCD ddmmmmmm, 4 minute decimals), longitude (BCD dddmmmmmmm, 5 minute
 *           decimals), flags (bit 0 valid, 1 north, 2 east), satellites, speed km/h, odometer (u32 LE),
 *           course / 2
 * Other types (0x0032 LBS, ...) carry nothing decoded.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const MSG_LOGIN = 0x0000;
const MSG_GPS = 0x0033;

function bcd(r: Reader, bytes: number): number {
  const s = r.hex(bytes);
  if (!/^\d+$/.test(s)) throw new DecodeError('vnet: bad BCD');
  return Number(s);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0x24 || frame[1] !== 0x24) throw new DecodeError('vnet: not a frame');
  const r = new Reader(frame, 2);
  const type = r.u16le() & 0x7fff;
  r.skip(2);
  const [dd, mo, yy, hh, mi, ss] = [1, 1, 1, 1, 1, 1].map(() => bcd(r, 1));
  if (type === MSG_LOGIN) {
    const imei = r.hex(8).slice(0, 15);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('vnet: bad IMEI');
    return { deviceId: imei, reply: Buffer.from(frame) };
  }
  if (type !== MSG_GPS) return {};
  const latRaw = bcd(r, 4);
  const lngRaw = bcd(r, 5);
  let lat = Math.floor(latRaw / 1e6) + (latRaw % 1e6) / 1e4 / 60;
  let lng = Math.floor(lngRaw / 1e7) + (lngRaw % 1e7) / 1e5 / 60;
  if (lat > 90 || lng > 180) throw new DecodeError('vnet: coordinates out of range');
  const flags = r.u8();
  if (!(flags & 2)) lat = -lat;
  if (!(flags & 4)) lng = -lng;
  const satellites = r.u8();
  const speed = r.u8();
  const odometer = r.u32le();
  const course = (r.u8() * 2) % 360;
  return { records: [{ time: utc(yy, mo, dd, hh, mi, ss), valid: (flags & 1) !== 0, lat, lng, satellites, speed, course, attributes: { [Attr.odometer]: odometer } }] };
}

export const protocol: Protocol = {
  name: 'vnet',
  defaultPort: 5205,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('vnet', { offset: 4, size: 2, littleEndian: true, adjust: 12, magic: Buffer.from('$$') }, MAX_FRAME),
  decode,
  commands: [],
};
