/**
 * Omnicomm binary protocol. A frame is `C0`, type, data length (u16 LE), data, CRC-16/CCITT-FALSE of
 * type..data (big-endian); inside it `C0` is sent as `DB DC` and `DB` as `DB DD` (the length counts
 * the bytes before escaping). The framer un-escapes.
 *   0x80 identification: terminal id (u32 LE), firmware     -> 0x85 archive request from record 0
 *   0x86 archive data: first record number (u32 LE), time, priority, then records, each a u16 LE
 *        length and a protobuf message (with groups): General (2), NAV (5), LLS sensors (8)
 *                                                           -> 0x87 delete archive up to number + 1
 * Times count seconds from 2009-01-01 UTC.
 */
import { Attr, Alarm, indexed } from './attributes.ts';
import { Reader, crc16CcittFalse } from './binary.ts';
import { DecodeError, FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 65536 + 6;
const START = 0xc0;
const ESCAPE = 0xdb;
const MSG_IDENTITY = 0x80;
const MSG_ARCHIVE_INQUIRY = 0x85;
const MSG_ARCHIVE_DATA = 0x86;
const MSG_REMOVE_ARCHIVE = 0x87;
const EPOCH = Date.UTC(2009, 0, 1);

/** Un-escapes from the start byte until the length field's frame is whole. */
function omnicommFramer(): Framer {
  return {
    next(buffer) {
      const from = buffer.indexOf(START);
      if (from < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('omnicomm: no message start');
        return null;
      }
      const out = Buffer.allocUnsafe(Math.min(buffer.length - from, MAX_FRAME));
      let n = 0;
      let total = Infinity;
      for (let i = from; i < buffer.length && n < total; i++) {
        let b = buffer[i];
        if (b === ESCAPE && i > from) {
          if (i + 1 >= buffer.length) return null;
          const next = buffer[++i];
          if (next === 0xdc) b = START;
          else if (next === 0xdd) b = ESCAPE;
          else throw new FrameError('omnicomm: bad escape');
        } else if (b === START && i > from) throw new FrameError('omnicomm: start byte inside a frame');
        out[n++] = b;
        if (n === 4) {
          total = 4 + out.readUInt16LE(2) + 2;
          if (total > out.length && total > MAX_FRAME) throw new FrameError('omnicomm: frame too long');
        }
        if (n === total) return { frame: Buffer.from(out.subarray(0, n)), consumed: i + 1 };
      }
      return null;
    },
  };
}

/** A protobuf message with groups: field number -> values (varints, bytes, nested groups). */
type Fields = Map<number, Array<number | Buffer | Fields>>;

function varint(r: Reader): number {
  let v = 0;
  for (let shift = 0; shift < 64; shift += 7) {
    const b = r.u8();
    if (shift < 53) v += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return v;
  }
  throw new DecodeError('omnicomm: bad varint');
}

function parseFields(r: Reader, end: number, group = -1, depth = 0): Fields {
  if (depth > 4) throw new DecodeError('omnicomm: nested too deep');
  const fields: Fields = new Map();
  const add = (n: number, v: number | Buffer | Fields) => {
    const list = fields.get(n);
    if (list) list.push(v);
    else fields.set(n, [v]);
  };
  while (r.pos < end) {
    const tag = varint(r);
    const field = Math.floor(tag / 8);
    switch (tag & 7) {
      case 0:
        add(field, varint(r));
        break;
      case 1:
        add(field, r.bytes(8));
        break;
      case 2:
        add(field, r.bytes(varint(r)));
        break;
      case 3:
        add(field, parseFields(r, end, field, depth + 1));
        break;
      case 4:
        if (field !== group) throw new DecodeError('omnicomm: unbalanced group');
        return fields;
      case 5:
        add(field, r.bytes(4));
        break;
      default:
        throw new DecodeError('omnicomm: bad wire type');
    }
  }
  if (group >= 0) throw new DecodeError('omnicomm: group without end');
  return fields;
}

const groupOf = (f: Fields, n: number): Fields | undefined => f.get(n)?.find((v): v is Fields => v instanceof Map);
const uint = (f: Fields | undefined, n: number): number | undefined => {
  const v = f?.get(n)?.[0];
  return typeof v === 'number' ? v : undefined;
};
const sint = (f: Fields | undefined, n: number): number | undefined => {
  const v = uint(f, n);
  return v === undefined ? undefined : v % 2 ? -(v + 1) / 2 : v / 2;
};
const omnicommTime = (seconds: number) => EPOCH + seconds * 1000;

/** General group: flags, mileage (0.1 m), rpm, supply (0.1 V), battery (%). */
function general(g: Fields, a: Record<string, AttrValue>): void {
  const flags = uint(g, 4);
  if (flags !== undefined) {
    a[Attr.status] = flags;
    a[Attr.ignition] = (flags & 1) !== 0;
    if (flags & 0x20) a[Attr.alarm] = Alarm.sos;
    if (flags & 0x40) a[Attr.alarm] = Alarm.tampering;
  }
  const set = (field: number, name: string, scale = 1) => {
    const v = uint(g, field);
    if (v !== undefined) a[name] = v * scale;
  };
  set(5, Attr.odometer, 0.1);
  set(7, Attr.rpm);
  set(8, Attr.power, 0.1);
  set(9, Attr.batteryLevel);
}

/** LLS fuel sensors 1..8: temperature, level, state in triples of fields. */
function lls(g: Fields, a: Record<string, AttrValue>): void {
  for (let i = 0; i < 8; i++) {
    const level = uint(g, 3 * i + 2);
    if (level !== undefined) a[indexed.fuel(i + 1)] = level;
  }
}

function record(message: Fields): DeviceRecord | undefined {
  const attributes: Record<string, AttrValue> = {};
  const gen = groupOf(message, 2);
  if (gen) general(gen, attributes);
  const fuel = groupOf(message, 8);
  if (fuel) lls(fuel, attributes);
  // mID is a packed repeated field: several events may arrive in one length-delimited value
  const ids = message.get(1)?.[0];
  const ev = ids instanceof Buffer && ids.length ? varint(new Reader(ids)) : typeof ids === 'number' ? ids : undefined;
  if (ev !== undefined) attributes[Attr.event] = ev;
  const time = uint(gen, 1);
  const nav = groupOf(message, 5);
  if (!nav) return gen || fuel ? { time: time !== undefined ? omnicommTime(time) : undefined, attributes } : undefined;
  const lat = (sint(nav, 1) ?? 0) * 1e-7;
  const lng = (sint(nav, 2) ?? 0) * 1e-7;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('omnicomm: coordinates out of range');
  const gpsTime = uint(nav, 7) ?? time ?? 0;
  const flags = uint(gen, 4);
  return {
    time: omnicommTime(gpsTime),
    valid: flags === undefined ? true : (flags & 4) !== 0,
    lat,
    lng,
    speed: (uint(nav, 3) ?? 0) * 0.1,
    course: (uint(nav, 4) ?? 0) % 360,
    satellites: uint(nav, 5),
    altitude: (sint(nav, 6) ?? 0) * 0.1,
    attributes,
  };
}

function reply(type: number, value: number): Buffer {
  const b = Buffer.alloc(10);
  b[0] = START;
  b[1] = type;
  b.writeUInt16LE(4, 2);
  b.writeUInt32LE(value >>> 0, 4);
  b.writeUInt16BE(crc16CcittFalse(b, 1, 8), 8);
  const body: number[] = [START];
  for (const x of b.subarray(1)) {
    if (x === START) body.push(ESCAPE, 0xdc);
    else if (x === ESCAPE) body.push(ESCAPE, 0xdd);
    else body.push(x);
  }
  return Buffer.from(body);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 6 || frame[0] !== START) throw new DecodeError('omnicomm: not a frame');
  const type = frame[1];
  // the declared length, not the frame's: a device's CRC is not checked (captured frames lack it)
  const end = Math.min(4 + frame.readUInt16LE(2), frame.length);
  const r = new Reader(frame, 4, end);
  if (type === MSG_IDENTITY) {
    const id = r.u32le();
    return { deviceId: String(id), reply: reply(MSG_ARCHIVE_INQUIRY, 0) };
  }
  if (type !== MSG_ARCHIVE_DATA || r.remaining === 0) return {};
  const index = r.u32le();
  r.skip(5); // time of the packet, priority
  const records: DeviceRecord[] = [];
  while (r.remaining > 0) {
    const length = r.u16le();
    const stop = r.pos + length;
    if (stop > end) throw new DecodeError('omnicomm: record past the end');
    const rec = record(parseFields(r, stop));
    r.pos = stop;
    if (rec) records.push(rec);
  }
  return { records, reply: reply(MSG_REMOVE_ARCHIVE, index + 1) };
}

export const protocol: Protocol = {
  name: 'omnicomm',
  defaultPort: 5203,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: omnicommFramer,
  decode,
  commands: [],
};
