/**
 * G1RUS binary protocol (big-endian): frames between 0xF8 bytes, 0x1B 0x00 standing for 0x1B and 0x1B
 * followed by another byte for 0xF8 inside. A frame: `F8 | u8 version | u8 type | 7-byte IMEI | body |
 * u16 checksum | F8`. Type (low 6 bits) 0 heartbeat, 1 regular report, 4 mixed (a list of `u16 length |
 * u8 type | body`, the regular ones decoded, the others skipped). Bit 6 of a type says an event byte follows
 * the time.
 * A regular report: `u32 time (LE, seconds since 2000) | [u8 event] | u16 data mask`, then by mask bit:
 * 0 device info (name, firmware, hardware: strings of `u8 length (low nibble)`), 1 location (`u8 length |
 * u16 mask`, then by bit: 0 validity (satellites bits 0-4, fix state bits 5-6, 2 = valid), 1 lat/lon
 * (1e-6 degrees), 2 speed km/h, 3 course, 4 altitude, 5 HDOP, 6 VDOP), 2 and 3 skipped blocks, 4 analog
 * values (supply, battery, device temperature: raw × 110 / 4096 − 10), 5 and 7 skipped blocks.
 * A report without a location block gets the connection's last location, not valid (0/0 before any).
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { placeRecord, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const MARK = 0xf8;
const ESCAPE = 0x1b;
const REGULAR = 1;
const MIXED = 4;
const EPOCH_2000 = 946684800;

function createFramer(): Framer {
  return {
    next(buffer) {
      const from = buffer.indexOf(MARK);
      if (from < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('g1rus: no frame start');
        return null;
      }
      const to = buffer.indexOf(MARK, from + 1);
      if (to < 0) {
        if (buffer.length - from > MAX_FRAME) throw new FrameError('g1rus: frame too long');
        return null;
      }
      const out = Buffer.allocUnsafe(to - from + 1);
      let n = 0;
      for (let i = from; i <= to; i++) {
        if (buffer[i] === ESCAPE && i + 1 < to) out[n++] = buffer[++i] === 0 ? ESCAPE : MARK;
        else out[n++] = buffer[i];
      }
      return { frame: out.subarray(0, n), consumed: to + 1 };
    },
  };
}

const readString = (r: Reader): string => r.ascii(r.u8() & 0x0f);
const analog = (raw: number): number => (raw * 110) / 4096 - 10;

function decodeRegular(r: Reader, type: number): DeviceRecord {
  const rec: DeviceRecord = { time: (r.u32le() + EPOCH_2000) * 1000, attributes: {} };
  const a = rec.attributes;
  if (type & 0x40) a[Attr.event] = r.u8();
  const mask = r.u16();
  if (mask & 0x01) {
    r.skip(1); // length
    readString(r); // device name
    a.versionFw = readString(r);
    a.versionHw = readString(r);
  }
  if (mask & 0x02) {
    r.skip(1); // length
    const location = r.u16();
    if (location & 0x01) {
      const validity = r.u8();
      rec.satellites = validity & 0x1f;
      rec.valid = ((validity >> 5) & 3) === 2;
    }
    if (location & 0x02) {
      rec.lat = r.i32() / 1e6;
      rec.lng = r.i32() / 1e6;
      if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('g1rus: coordinates out of range');
    }
    if (location & 0x04) rec.speed = r.u16();
    if (location & 0x08) rec.course = r.u16() % 360;
    if (location & 0x10) rec.altitude = r.i16();
    if (location & 0x20) rec.hdop = r.u16();
    if (location & 0x40) a.vdop = r.u16();
  }
  if (mask & 0x04) r.skip(r.u8());
  if (mask & 0x08) r.skip(r.u8());
  if (mask & 0x10) {
    r.skip(1); // length
    a[Attr.power] = analog(r.u16());
    a[Attr.battery] = analog(r.u16());
    a[Attr.deviceTemp] = analog(r.u16());
  }
  if (mask & 0x20) r.skip(r.u8());
  if (mask & 0x80) r.skip(r.u8());
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u8() !== MARK) throw new DecodeError('g1rus: bad start');
  r.skip(1); // version
  const type = r.u8();
  const imei = String(r.u8() * 2 ** 48 + r.uint(6)).padStart(15, '0');
  const records: DeviceRecord[] = [];
  if ((type & 0x3f) === REGULAR) records.push(decodeRegular(r, type));
  else if ((type & 0x3f) === MIXED) {
    while (r.remaining > 5) {
      const length = r.u16();
      const subtype = r.u8();
      if ((subtype & 0x3f) === REGULAR) records.push(decodeRegular(r, subtype));
      else r.skip(length - 1);
    }
  }
  const session = ctx.session as { last?: LastFix };
  for (const rec of records) placeRecord(rec, session);
  return records.length ? { deviceId: imei, records } : { deviceId: imei };
}

export const protocol: Protocol = {
  name: 'g1rus',
  defaultPort: 5244,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
