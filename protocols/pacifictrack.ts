/**
 * PacificTrack binary protocol over UDP. Numbers of the frame header and segment headers are
 * "bit-extended": 7 bits per byte, most significant first, the last byte has bit 7 set. A frame is a
 * start byte, control and length numbers, then segments (id, length, data):
 *   0x01 event code; 0x10 GPS (valid bit 4, year since 2020 and month, day, time, latitude + 90 and
 *   longitude + 180 in 1e-6 degrees, course (12 bits) and speed (12 bits, 0.1 km/h), index);
 *   0x20 battery and supply (12 bits each, 0.01 V); 0x92 engine values (J1939); 0x100 IMEI (BCD).
 * Devices get no answer. A frame without a GPS segment is placed at the last known fix.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { fixOrLast, type LastFix } from './last-fix.ts';
import { utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

/** A bit-extended number (7 bits per byte, the byte with bit 7 set ends it). */
export function readBitExt(r: Reader): number {
  let v = 0;
  for (let i = 0; i < 5; i++) {
    const b = r.u8();
    v = v * 128 + (b & 0x7f);
    if (b & 0x80) return v;
  }
  throw new DecodeError('pacifictrack: number too long');
}

// engine values of segment 0x92: one-byte values by the low 5 bits of a 0b100xxxxx field
const BYTE_VALUES: Record<number, [string, (v: number) => number]> = {
  0b00000: [Attr.obdSpeed, (v) => v],
  0b00001: [Attr.rpm, (v) => v * 32],
  0b00111: [Attr.coolantTemp, (v) => v - 40],
  0b01000: [Attr.fuelLevel, (v) => v * 0.4],
  0b01010: [Attr.engineLoad, (v) => v],
};
// four-byte values of a 0b110xxxxx field
const LONG_VALUES: Record<number, [string, (v: number) => number]> = {
  0b00000: [Attr.odometer, (v) => v * 100],
  0b00001: [Attr.hours, (v) => v * 180_000],
  0b00100: [Attr.fuelUsed, (v) => v * 0.5],
};

function engine(r: Reader, end: number, a: Record<string, AttrValue>): void {
  while (r.pos < end) {
    const field = r.u8();
    const prefix = field >> 5;
    const id = field & 0x1f;
    if (prefix < 0b100) continue; // two-bit values (bus, gear) in the field byte itself
    if (prefix === 0b100) {
      const v = r.u8();
      const known = BYTE_VALUES[id];
      if (known) a[known[0]] = known[1](v);
    } else if (prefix === 0b101) {
      const v = r.u16();
      if (id === 0b00011) a[indexed.temp(1)] = v * 0.03125 - 273;
    } else if (prefix === 0b110) {
      const v = r.u32();
      const known = LONG_VALUES[id];
      if (known) a[known[0]] = known[1](v);
    } else r.skip(r.u8());
  }
}

function gps(r: Reader, rec: DeviceRecord): void {
  rec.valid = (r.u8() & 0x10) !== 0;
  const date = r.u8();
  const [dd, hh, mi, ss] = r.bytes(4);
  rec.time = utc(2020 + (date >> 4), date & 0x0f, dd, hh, mi, ss);
  rec.lat = r.u32() / 1e6 - 90;
  rec.lng = r.u32() / 1e6 - 180;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('pacifictrack: coordinates out of range');
  const speedCourse = r.u24();
  rec.course = (speedCourse >> 12) % 360;
  rec.speed = (speedCourse & 0xfff) / 10;
  rec.attributes[Attr.index] = r.u16();
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 1);
  if (frame[0] !== 0xfb) throw new DecodeError('pacifictrack: not a frame');
  readBitExt(r); // control
  readBitExt(r); // length
  let deviceId: string | undefined;
  const rec: DeviceRecord = { attributes: {} };
  while (r.remaining > 0) {
    const id = readBitExt(r);
    const end = readBitExt(r) + r.pos;
    if (end > r.end) throw new DecodeError('pacifictrack: segment past the end');
    if (id === 0x01) rec.attributes[Attr.event] = readBitExt(r);
    else if (id === 0x10) gps(r, rec);
    else if (id === 0x20) {
      const v = r.u24();
      rec.attributes[Attr.battery] = (v & 0xfff) / 100;
      rec.attributes[Attr.power] = (v >> 12) / 100;
    } else if (id === 0x92) engine(r, end, rec.attributes);
    else if (id === 0x100) {
      deviceId = r.hex(8).slice(0, 15);
      if (!/^\d{15}$/.test(deviceId)) throw new DecodeError('pacifictrack: bad IMEI');
    }
    r.pos = end;
  }
  fixOrLast(ctx.session as { last?: LastFix }, rec, ctx.now);
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'pacifictrack',
  defaultPort: 5198,
  transports: ['udp'],
  maxFrameSize: MAX_FRAME,
  decode,
  commands: [],
};
