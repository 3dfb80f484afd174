/**
 * UUX binary protocol: `u16 product code | u8 protocol version (bit 7: wants answers) | u8 length | u8 type |
 * 10-char vehicle id | mm dd hh mm ss (the year is the current one) | body`; the frame is 4 + length bytes.
 *   0x90 general: `10 bytes reason | u16 flags | u8 position status | satellites (2 digits) | lat dd + mm.mmmm (7 chars)
 *        + N|S | lon ddd + mm.mmmm + E|W | km/h (3 digits) | course (3) | alt. speed (3) | odometer 4 bytes |
 *        u32 engine time | u8 rssi | company id (6 chars) | 10 bytes reason data | u16 trip id`
 *   0x9E immobilizer: `company id (6 chars) | u16 trip id`
 *   0xFF keep-alive.
 * Other types are answered ACK (`product | version & 0x7F | 01 | D0`) when version bit 7 is set.
 */
import { Attr } from './attributes.ts';
import { lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4 + 255;
const MSG_GENERAL = 0x90;
const MSG_IMMOBILIZER = 0x9e;
const MSG_ACK = 0xd0;
const MSG_KEEPALIVE = 0xff;

function digits(r: Reader, n: number): number {
  const s = r.ascii(n);
  if (!/^\d+(\.\d+)?$/.test(s)) throw new DecodeError('uux: bad number');
  return Number(s);
}

/** Month, day and time without a year: the year that puts it nearest to now. */
function timeWithoutYear(now: number, mo: number, dd: number, h: number, m: number, s: number): number {
  if (!(mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31 && h < 24 && m < 60 && s < 60)) throw new DecodeError('uux: bad time');
  const year = new Date(now).getUTCFullYear();
  const candidates = [year - 1, year, year + 1].map((y) => Date.UTC(y, mo - 1, dd, h, m, s));
  return candidates.reduce((best, t) => (Math.abs(t - now) < Math.abs(best - now) ? t : best));
}

function general(r: Reader, rec: DeviceRecord): void {
  r.skip(10 + 2 + 1); // reason, flags, position status
  rec.valid = true;
  rec.satellites = digits(r, 2);
  let lat = digits(r, 2) + digits(r, 7) / 60;
  if (r.u8() === 0x53) lat = -lat;
  let lng = digits(r, 3) + digits(r, 7) / 60;
  if (r.u8() === 0x57) lng = -lng;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('uux: coordinates out of range');
  Object.assign(rec, { lat, lng, speed: digits(r, 3), course: digits(r, 3) % 360 });
  digits(r, 3); // alternative speed
  const a = rec.attributes;
  a[Attr.odometer] = r.u8() * 10000 + r.u8() * 256 + r.u8() + r.u8() / 10;
  a.hoursRaw = r.u32(); // engine time in device units (unspecified)
  a[Attr.rssi] = r.u8();
  a.companyId = r.ascii(6);
  r.skip(10); // reason data
  a.tripId = r.u16();
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const product = r.u16();
  const version = r.u8();
  r.skip(1); // length
  const type = r.u8();
  if (type === MSG_KEEPALIVE) return {};
  const vehicle = r.ascii(10);
  if (!/^[\x21-\x7e]+$/.test(vehicle)) throw new DecodeError('uux: bad vehicle id');
  const time = timeWithoutYear(ctx.now, r.u8(), r.u8(), r.u8(), r.u8(), r.u8());
  const rec: DeviceRecord = { time, attributes: {} };
  if (type === MSG_GENERAL) {
    general(r, rec);
    return { deviceId: vehicle, records: [rec] };
  }
  if (type === MSG_IMMOBILIZER) {
    rec.attributes.companyId = r.ascii(6);
    rec.attributes.tripId = r.u16();
    return { deviceId: vehicle, records: [rec] };
  }
  const reply = version & 0x80 ? Buffer.from([product >> 8, product & 0xff, version & 0x7f, 0x01, MSG_ACK]) : undefined;
  return { deviceId: vehicle, reply };
}

export const protocol: Protocol = {
  name: 'uux',
  defaultPort: 5225,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('uux', 3, 1, 0, MAX_FRAME),
  decode,
  commands: [],
};
