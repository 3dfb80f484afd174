/**
 * Wialon Retranslator 1.0 (binary, TCP): one connection carries the messages of many units.
 *
 * Packet: `size u32 LE (what follows) | unit id (text, NUL-terminated) | time u32 BE (s) | flags u32 BE |
 * blocks`, a block being `type u16 (0x0BBB) | size u32 BE (what follows) | hidden u8 | data type u8
 * (1 text, 2 binary, 3 int32 BE, 4 double LE, 5 int64 BE) | name (NUL-terminated) | value`.
 * The `posinfo` block holds `lon, lat, altitude (double LE) | speed km/h i16 BE | course i16 BE | satellites u8`.
 * Every packet is answered with the single byte 0x11.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1 << 20; // packets may carry JPEG images
const ACK = Buffer.of(0x11);
const MAX_UNITS = 4096;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 4) return null;
      const length = 4 + buffer.readUInt32LE(0);
      if (length > MAX_FRAME) throw new FrameError('retranslator: packet too long');
      if (length < 14) throw new FrameError('retranslator: packet too short');
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

/** NUL-terminated text at the reader's position. */
function text(r: Reader): string {
  const end = r.buf.indexOf(0, r.pos);
  if (end < 0 || end >= r.end) throw new DecodeError('retranslator: unterminated text');
  const s = r.ascii(end - r.pos);
  r.skip(1);
  return s;
}

/** Block names with a name in the shared vocabulary (and their conversion). */
const NAMES: Record<string, [string, (v: AttrValue) => AttrValue]> = {
  pwr_ext: [Attr.power, Number],
  pwr_int: [Attr.battery, Number],
  avl_inputs: [Attr.input, Number],
  avl_outputs: [Attr.output, Number],
  gsm: [Attr.rssi, Number],
  ign: [Attr.ignition, (v) => Number(v) !== 0],
  odometer: [Attr.odometer, (v) => Math.round(Number(v) * 1000)], // km
};

const CELL_KEYS = ['mcc', 'mnc', 'lac', 'cell_id'] as const;

interface Session {
  last?: LastFix;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 14) throw new DecodeError('retranslator: packet too short');
  const r = new Reader(frame, 4, Math.min(frame.length, 4 + frame.readUInt32LE(0)));
  const deviceId = text(r);
  if (!deviceId || !/^[\x20-\x7e]+$/.test(deviceId)) throw new DecodeError('retranslator: bad unit id');
  const a: DeviceRecord['attributes'] = {};
  const rec: DeviceRecord = { time: r.u32() * 1000, attributes: a };
  const flags = r.u32();
  if (flags & 0x10) a[Attr.alarm] = 'general';
  const cell: Partial<Record<(typeof CELL_KEYS)[number], number>> = {};
  while (r.remaining > 0) {
    r.u16(); // block type
    const size = r.u32();
    const end = r.pos + size;
    if (end > r.end) throw new DecodeError('retranslator: block past the end');
    const block = new Reader(frame, r.pos, end);
    block.skip(1); // hidden
    const type = block.u8();
    const name = text(block);
    if (name === 'posinfo') {
      const lng = block.f64le();
      const lat = block.f64le();
      const altitude = block.f64le();
      const speed = block.i16();
      const course = block.i16();
      const sats = block.u8();
      if (Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && (lat !== 0 || lng !== 0)) {
        Object.assign(rec, { valid: true, lat, lng, satellites: sats });
        if (Number.isFinite(altitude)) rec.altitude = altitude;
        if (speed >= 0) rec.speed = speed;
        if (course >= 0) rec.course = course % 360;
      }
    } else {
      let value: AttrValue | undefined;
      if (type === 1) value = text(block);
      else if (type === 3) value = block.i32();
      else if (type === 4) value = block.f64le();
      else if (type === 5) value = block.i64();
      if (value !== undefined && !(typeof value === 'number' && !Number.isFinite(value))) {
        if ((CELL_KEYS as readonly string[]).includes(name) && typeof value === 'number') cell[name as (typeof CELL_KEYS)[number]] = value;
        else if (NAMES[name]) a[NAMES[name][0]] = NAMES[name][1](value);
        else if (/^adc\d+$/.test(name)) a[indexed.adc(Number(name.slice(3)))] = value;
        else a[name] = value;
      }
    }
    r.pos = end;
  }
  if (CELL_KEYS.every((k) => cell[k] !== undefined)) rec.cells = [{ mcc: cell.mcc!, mnc: cell.mnc!, lac: cell.lac!, cid: cell.cell_id! }];
  // one connection relays many units: each keeps its own last fix (the oldest forgotten past MAX_UNITS)
  const units = ((ctx.session as { units?: Map<string, Session> }).units ??= new Map());
  let mine = units.get(deviceId);
  if (!mine) {
    if (units.size >= MAX_UNITS) units.delete(units.keys().next().value!);
    units.set(deviceId, (mine = {}));
  }
  if (rec.lat !== undefined) rememberFix(mine, rec);
  else withLastFix(rec, mine);
  return { deviceId, records: [rec], reply: ACK };
}

export const protocol: Protocol = {
  name: 'retranslator',
  defaultPort: 5167,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
};
