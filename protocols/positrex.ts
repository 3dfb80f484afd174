/**
 * Positrex binary protocol over UDP (big-endian). The device number comes first, in one of four
 * widths told by its first bits: `0xxxxxxx` u16 (+7 560 000); `11` u32, 30 bits (+73 000 000);
 * `1000` u24, 20 bits (+7 590 000); other `10` u24, 20 bits (+70 000 000). Then a service byte:
 *   0x2E ping: time (seconds packed as ((((y-2000)*13 + M)*32 + d)*24 + h)*60*60 ...), latitude (i24,
 *   bit 23 = valid, 1/40000 degree), longitude (i24), speed km/h, course / 2, IO byte, odometer,
 *   report begin and end, record count, then optionally supply and battery (0.01 V).
 * Devices get no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_PING = 0x2e;

function deviceNumber(r: Reader): number {
  const first = r.peekU8();
  if (!(first & 0x80)) return 7_560_000 + r.u16();
  if (first & 0x40) return 73_000_000 + (r.u32() & 0x3fffffff);
  if (!(first & 0x30)) return 7_590_000 + (r.u24() & 0xfffff);
  return 70_000_000 + (r.u24() & 0xfffff);
}

function packedTime(v: number): number {
  const s = v % 60;
  v = Math.floor(v / 60);
  const mi = v % 60;
  v = Math.floor(v / 60);
  const h = v % 24;
  v = Math.floor(v / 24);
  const d = v % 32;
  v = Math.floor(v / 32);
  return utc(2000 + Math.floor(v / 13), v % 13, d, h, mi, s);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const deviceId = String(deviceNumber(r));
  if (r.u8() !== MSG_PING) return { deviceId };
  const time = packedTime(r.u32());
  const latRaw = r.u24();
  const lngRaw = (r.u24() << 8) >> 8;
  const lat = (((latRaw & 0x7fffff) << 9) >> 9) / 40000;
  const lng = lngRaw / 40000;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('positrex: coordinates out of range');
  const rec: DeviceRecord = { time, valid: (latRaw & 0x800000) !== 0, lat, lng, speed: r.u8(), course: (r.u8() * 2) % 360, attributes: {} };
  rec.attributes[indexed.io(0)] = r.u8();
  rec.attributes[Attr.odometer] = r.u32();
  r.skip(12); // report begin, report end, number of records
  if (r.remaining >= 4) {
    rec.attributes[Attr.power] = r.u16() / 100;
    rec.attributes[Attr.battery] = r.u16() / 100;
  }
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'positrex',
  defaultPort: 5252,
  transports: ['udp'],
  maxFrameSize: MAX_FRAME,
  decode,
  commands: [],
};
