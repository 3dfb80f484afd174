/**
 * Skypatrol binary reports over UDP (big-endian): API number (u16), command type, message type (high
 * nibble), then a byte 4 followed by the 32-bit field mask (or the configured `mask` otherwise).
 * API 5 / command 2 / message 1 with mask bit 0 is a position report whose fields follow the mask bits:
 * 1 status, 23 8-char id or 2 22-char id, 3 IO, 4-5 analog inputs, 7 function category, 8 dd MM yy,
 * 9 GPS status (1 valid), 10-11 latitude and longitude (ddmmmmmm with 4 minute decimals, two's
 * complement for south/west), 12 speed (0.1 knot), 13 course (0.1°), 14 HH mm ss, 15 altitude (i24),
 * 16 satellites, 17 battery level, 20 trip odometer, 21 odometer, 22 generation time, 24 supply (mV),
 * 25 overspeed block, 26 cell block, 28 index. Other messages carry nothing decoded. No answers.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader, knotsToKmh } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

function coordinate(raw: number): number {
  const sign = raw > 0x7fffffff ? -1 : 1;
  const v = sign < 0 ? 0xffffffff - raw : raw;
  return sign * (Math.floor(v / 1_000_000) + (v % 1_000_000) / 10_000 / 60);
}

const bit = (mask: number, n: number) => ((mask >>> n) & 1) === 1;

function position(r: Reader, mask: number): DecodeResult {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  if (bit(mask, 1)) a[Attr.status] = r.u32();
  let id: string;
  if (bit(mask, 23)) id = r.ascii(8).trim();
  else if (bit(mask, 2)) id = r.ascii(22).trim();
  else return {};
  id = id.replace(/\0/g, '');
  if (!/^[\x21-\x7e]{1,22}$/.test(id)) throw new DecodeError('skypatrol: bad device id');
  if (bit(mask, 3)) a[indexed.io(1)] = r.u16();
  if (bit(mask, 4)) a[indexed.adc(1)] = r.u16();
  if (bit(mask, 5)) a[indexed.adc(2)] = r.u16();
  if (bit(mask, 7)) r.skip(1);
  let date: number[] = [1, 1, 0];
  if (bit(mask, 8)) date = [...r.bytes(3)];
  if (bit(mask, 9)) rec.valid = r.u8() === 1;
  if (bit(mask, 10)) rec.lat = coordinate(r.u32());
  if (bit(mask, 11)) rec.lng = coordinate(r.u32());
  if (bit(mask, 12)) rec.speed = knotsToKmh(r.u16() / 10);
  if (bit(mask, 13)) rec.course = (r.u16() / 10) % 360;
  let time = [0, 0, 0];
  if (bit(mask, 14)) time = [...r.bytes(3)];
  rec.time = utc(date[2], date[1], date[0], time[0], time[1], time[2]);
  if (bit(mask, 15)) rec.altitude = (r.u24() << 8) >> 8;
  if (bit(mask, 16)) rec.satellites = r.u8();
  if (bit(mask, 17)) a[Attr.batteryLevel] = r.u16(); // 0..100 in the reports seen
  if (bit(mask, 20)) a['tripOdometer'] = r.u32();
  if (bit(mask, 21)) a[Attr.odometer] = r.u32();
  if (bit(mask, 22)) r.skip(6);
  if (bit(mask, 24)) a[Attr.power] = r.u16() / 1000;
  if (bit(mask, 25)) r.skip(18);
  if (bit(mask, 26)) r.skip(54);
  if (bit(mask, 28)) a[Attr.index] = r.u16();
  if ((rec.lat !== undefined && Math.abs(rec.lat) > 90) || (rec.lng !== undefined && Math.abs(rec.lng) > 180)) throw new DecodeError('skypatrol: coordinates out of range');
  return { deviceId: id, records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const api = r.u16();
  const command = r.u8();
  const message = r.u8() >> 4;
  const configured = Number(ctx.config.mask ?? 0) >>> 0;
  const mask = r.u8() === 4 ? r.u32() : configured;
  if (api === 5 && command === 2 && message === 1 && bit(mask, 0)) return position(r, mask);
  return {};
}

export const protocol: Protocol = {
  name: 'skypatrol',
  defaultPort: 5021,
  transports: ['udp'],
  maxFrameSize: MAX_FRAME,
  decode,
  commands: [],
};
