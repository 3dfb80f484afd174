/**
 * Ruptela FM-Eco/FM-Pro/Trace trackers.
 * Every packet: `u16 length | u64 IMEI | u8 command | payload | u16 CRC-16/KERMIT` (length and CRC cover
 * IMEI..payload for device packets). Server packets: `u16 length | u8 100+command | payload | u16 CRC`.
 * Commands from the device: 1 records, 68 extended records (2-byte IO ids, merged records), 9 DTCs,
 * 15 identification, 16 heartbeat, 37 files (photos), 2/3/4/7/17 replies to server commands.
 */
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { Reader, crc16Kermit } from './binary.ts';
import { Alarm, Attr, indexed } from './attributes.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MSG_RECORDS = 1;
const MSG_DEVICE_CONFIGURATION = 2;
const MSG_DEVICE_VERSION = 3;
const MSG_FIRMWARE_UPDATE = 4;
const MSG_SET_CONNECTION = 5;
const MSG_SET_ODOMETER = 6;
const MSG_SMS_VIA_GPRS_RESPONSE = 7;
const MSG_SMS_VIA_GPRS = 8;
const MSG_DTCS = 9;
const MSG_IDENTIFICATION = 15;
const MSG_HEARTBEAT = 16;
const MSG_SET_IO = 17;
const MSG_FILES = 37;
const MSG_EXTENDED_RECORDS = 68;

const MAX_FRAME = 65535 + 4;
const PHOTO_MAX = 1 << 20;

type Attrs = Record<string, AttrValue>;

/** Server -> device packet: `u16 length | 100+type | content | u16 CRC`. */
function encodeContent(type: number, content: Buffer): Buffer {
  const out = Buffer.alloc(content.length + 5);
  out.writeUInt16BE(content.length + 1, 0);
  out[2] = 100 + type;
  content.copy(out, 3);
  out.writeUInt16BE(crc16Kermit(out, 2, out.length - 2), out.length - 2);
  return out;
}

// ---------------------------------------------------------------------------------------------
// IO elements

function uval(b: Buffer): number {
  return b.length <= 6 ? b.readUIntBE(0, b.length) : Number(b.readBigUInt64BE(0));
}
function sval(b: Buffer): number {
  return b.length <= 6 ? b.readIntBE(0, b.length) : Number(b.readBigInt64BE(0));
}

type IoHandler = (b: Buffer, a: Attrs) => void;
const num = (key: string, factor = 1, signed = false): IoHandler => (b, a) => {
  a[key] = (signed ? sval(b) : uval(b)) * factor;
};
/** Value divided by `d` (volts from millivolts, ...): division keeps decimal results exact-looking. */
const div = (key: string, d: number, signed = false): IoHandler => (b, a) => {
  a[key] = (signed ? sval(b) : uval(b)) / d;
};
const flag = (key: string): IoHandler => (b, a) => {
  a[key] = uval(b) > 0;
};
function addAlarm(a: Attrs, alarm: string): void {
  a[Attr.alarm] = a[Attr.alarm] ? `${a[Attr.alarm]},${alarm}` : alarm;
}
const alarmIf = (alarm: string, when = (v: number) => v > 0): IoHandler => (b, a) => {
  if (when(uval(b))) addAlarm(a, alarm);
};

/** IO id -> handler; unlisted ids are kept raw as `io<id>`. */
const IO = new Map<number, IoHandler>([
  [2, flag(indexed.in(1))],
  [3, flag(indexed.in(2))],
  [4, flag(indexed.in(3))],
  [5, flag(indexed.in(4))],
  [13, flag(Attr.motion)],
  [173, flag(Attr.motion)],
  [20, div(indexed.adc(3), 1000)],
  [21, div(indexed.adc(4), 1000)],
  [22, div(indexed.adc(1), 1000)],
  [23, div(indexed.adc(2), 1000)],
  [29, div(Attr.power, 1000)],
  [30, div(Attr.battery, 1000)],
  [32, num(Attr.deviceTemp, 1, true)],
  [34, (b, a) => { a[Attr.driverUniqueId] = b.toString('hex'); }], // iButton
  [39, num(Attr.engineLoad)],
  [65, num(Attr.odometer)],
  [74, div(indexed.temp(4), 10, true)],
  [78, div(indexed.temp(1), 10, true)],
  [79, div(indexed.temp(2), 10, true)],
  [80, div(indexed.temp(3), 10, true)],
  [88, alarmIf(Alarm.jamming)],
  [94, num(Attr.rpm, 0.25)],
  [95, num(Attr.obdSpeed)],
  [98, (b, a) => { a[Attr.fuel] = (uval(b) * 100) / 255; }],
  [100, (b, a) => { a[Attr.fuelConsumption] = uval(b) / 20; }],
  [134, alarmIf(Alarm.hardBraking)],
  [136, alarmIf(Alarm.hardAcceleration)],
  [150, num(Attr.operator)],
  [163, num(Attr.odometer, 5)], // CAN distance in 5 m steps
  [164, num('tripOdometer', 5)],
  [165, (b, a) => { a[Attr.obdSpeed] = uval(b) / 256; }],
  [166, num(Attr.rpm, 0.125)],
  [197, num(Attr.rpm, 0.125)],
  [170, flag(Attr.charge)],
  [205, num(Attr.fuel)],
  [207, num(Attr.fuelLevel, 0.4)],
  [208, num(Attr.fuelUsed, 0.5)],
  [251, flag(Attr.ignition)],
  [409, flag(Attr.ignition)],
  [410, alarmIf(Alarm.tow)],
  [411, alarmIf(Alarm.accident)],
  [415, alarmIf(Alarm.gpsAntennaCut, (v) => v === 0)],
  [645, num('obdOdometer', 1000)],
  [758, alarmIf(Alarm.tampering, (v) => v === 1)],
]);

/** Two 8-byte IO values that together hold 16 ASCII characters (CAN / tachograph driver ids). */
function joinDriver(a: Attrs, hi: string, lo: string): void {
  const h = a[hi];
  const l = a[lo];
  delete a[hi];
  delete a[lo];
  if (typeof h !== 'string' || typeof l !== 'string') return;
  const id = Buffer.from(h + l, 'hex').toString('latin1').replace(/\0/g, '').trim();
  if (id) a[Attr.driverUniqueId] = id; // all zero: no card inserted
}

/** 8-byte values are kept as hex when nobody names them, so two halves of an id can be joined exactly. */
function decodeIo(id: number, b: Buffer, a: Attrs): void {
  const h = IO.get(id);
  if (h) h(b, a);
  else a[indexed.io(id)] = b.length === 8 ? b.toString('hex') : uval(b);
}

function finishIo(a: Attrs): void {
  joinDriver(a, 'io126', 'io127'); // CAN driver
  joinDriver(a, 'io155', 'io156'); // tachograph driver
  const t1 = a.io760;
  const t2 = a.io761;
  if (typeof t1 === 'string' && typeof t2 === 'string') {
    delete a.io760;
    delete a.io761;
    a.tagId = BigInt(`0x${t1}`).toString(16) + BigInt(`0x${t2}`).toString(16);
  }
  // remaining 8-byte raw values as numbers where exact
  for (const [k, v] of Object.entries(a)) {
    if (typeof v === 'string' && /^io\d+$/.test(k) && v.length === 16) {
      const n = BigInt.asIntN(64, BigInt(`0x${v}`));
      a[k] = n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Records

interface Session {
  last?: LastFix;
  photo?: { chunks: Buffer[]; size: number };
}

/** A record without a location of its own gets the last known one, marked not valid. */
const withLastLocation = withLastFix;

function decodeRecord(r: Reader, extended: boolean, session: Session): { rec: DeviceRecord; merge: boolean } {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  rec.time = r.u32() * 1000;
  r.u8(); // timestamp extension
  let merge = false;
  if (extended) {
    const ext = r.u8();
    const total = ext >> 4;
    const current = ext & 0x0f;
    merge = current > 0 && current <= total; // continuation of the previous record's IO data
  }
  r.u8(); // priority
  const lng = r.i32();
  const lat = r.i32();
  if (lng !== -0x80000000 && lat !== -0x80000000) {
    Object.assign(rec, { valid: true, lng: lng / 1e7, lat: lat / 1e7, altitude: r.u16() / 10, course: r.u16() / 100, satellites: r.u8(), speed: r.u16(), hdop: r.u8() / 10 });
    rememberFix(session, rec);
  } else {
    r.skip(8);
  }
  a[Attr.event] = extended ? r.u16() : r.u8();
  for (const size of [1, 2, 4, 8]) {
    for (let n = r.u8(); n > 0; n--) {
      const id = extended ? r.u16() : r.u8();
      decodeIo(id, r.bytes(size), a);
    }
  }
  return { rec, merge };
}

function decodeRecords(r: Reader, type: number, session: Session): DecodeResult {
  r.u8(); // records left in the device
  const records: DeviceRecord[] = [];
  for (let n = r.u8(); n > 0; n--) {
    const { rec, merge } = decodeRecord(r, type === MSG_EXTENDED_RECORDS, session);
    const prev = records[records.length - 1];
    if (merge && prev) Object.assign(prev.attributes, rec.attributes, { event: prev.attributes.event });
    else records.push(rec);
  }
  for (const rec of records) {
    finishIo(rec.attributes);
    if (rec.lat === undefined) withLastLocation(rec, session);
  }
  return { records, reply: encodeContent(MSG_RECORDS - 1, Buffer.from([0x01])) };
}

function decodeDtcs(r: Reader): DecodeResult {
  const records: DeviceRecord[] = [];
  for (let n = r.u8(); n > 0; n--) {
    r.u8(); // reserved
    const rec: DeviceRecord = { attributes: {}, valid: true, time: r.u32() * 1000, lng: r.i32() / 1e7, lat: r.i32() / 1e7 };
    if (r.u8() === 2) rec.attributes[Attr.archive] = true;
    rec.attributes[Attr.dtcs] = r.ascii(5);
    records.push(rec);
  }
  return { records, reply: encodeContent(MSG_DTCS, Buffer.from([0x01])) };
}

/** Photo transfer: parts arrive one by one; the reply asks for the next, the last one completes the image. */
function decodeFiles(r: Reader, end: number, session: Session): DecodeResult {
  const subtype = r.u8();
  const source = r.u8();
  if (subtype !== 2) return {};
  const filename = r.bytes(8);
  const total = r.u16();
  const current = r.u16();
  const part = r.bytes(end - r.pos);
  const photo = (session.photo ??= { chunks: [], size: 0 });
  if (photo.size + part.length > PHOTO_MAX) {
    session.photo = undefined;
    throw new DecodeError('photo too large');
  }
  photo.chunks.push(Buffer.from(part));
  photo.size += part.length;
  if (current < total - 1) {
    const next = Buffer.alloc(12);
    next[0] = subtype;
    next[1] = source;
    filename.copy(next, 2);
    next.writeUInt16BE(current + 1, 10);
    return { reply: encodeContent(MSG_FILES, next) };
  }
  session.photo = undefined;
  const rec = withLastLocation({ attributes: { image: Buffer.concat(photo.chunks).toString('base64') } }, session);
  return { records: [rec] };
}

/** Replies to server commands: configuration/version/firmware/SMS text, or the set-IO status byte. */
function decodeReply(r: Reader, end: number, type: number, session: Session, now: number): DecodeResult {
  let result: string;
  if (type === MSG_SET_IO) result = String(r.u8());
  else if ([MSG_DEVICE_CONFIGURATION, MSG_DEVICE_VERSION, MSG_FIRMWARE_UPDATE, MSG_SMS_VIA_GPRS_RESPONSE].includes(type)) {
    result = r.ascii(end - r.pos).trim();
  } else return {};
  const rec = withLastLocation({ time: now, attributes: { type, [Attr.result]: result } }, session);
  return { records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  if (frame.length < 13) throw new DecodeError('too short');
  const end = frame.length - 2;
  if (crc16Kermit(frame, 2, end) !== frame.readUInt16BE(end)) throw new DecodeError('bad CRC');
  const r = new Reader(frame, 0, end);
  r.u16(); // length
  const deviceId = String(r.u64()).padStart(15, '0');
  const type = r.u8();
  let result: DecodeResult;
  switch (type) {
    case MSG_RECORDS:
    case MSG_EXTENDED_RECORDS:
      result = decodeRecords(r, type, session);
      break;
    case MSG_DTCS:
      result = decodeDtcs(r);
      break;
    case MSG_FILES:
      result = decodeFiles(r, end, session);
      break;
    case MSG_IDENTIFICATION:
    case MSG_HEARTBEAT:
      result = { reply: encodeContent(type, Buffer.from([0x01])) };
      break;
    default:
      result = decodeReply(r, end, type, session, ctx.now);
  }
  return { deviceId, ...result };
}

// ---------------------------------------------------------------------------------------------
// Framer: u16 length of IMEI..payload, plus the length field and the CRC

function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 2) return null;
      const length = buf.readUInt16BE(0);
      if (length < 9) throw new FrameError(`bad length ${length}`);
      const size = length + 4;
      return buf.length >= size ? { frame: buf.subarray(0, size), consumed: size } : null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Encoder

const ascii = (s: string) => Buffer.from(s, 'latin1');
const int32 = (...values: number[]) => {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeInt32BE(v | 0, i * 4));
  return b;
};
const isHex = (s: string) => /^([0-9a-fA-F]{2})+$/.test(s);

const COMMANDS: Record<string, (a: Command['attributes']) => Buffer> = {
  // hex data is a complete packet prepared by the operator; text goes out as an SMS-style command
  custom: (a) => {
    const data = String(a.data ?? '');
    return isHex(data) ? Buffer.from(data, 'hex') : encodeContent(MSG_SMS_VIA_GPRS, ascii(data));
  },
  engineStop: () => encodeContent(MSG_SMS_VIA_GPRS, ascii('pass immobilizer 10')),
  engineResume: () => encodeContent(MSG_SMS_VIA_GPRS, ascii('pass resetimmob')),
  requestPhoto: () => encodeContent(MSG_FILES, Buffer.concat([Buffer.from([1, 0]), int32(0, 0x7fffffff)])),
  configuration: (a) => encodeContent(MSG_DEVICE_CONFIGURATION, ascii(`${a.data ?? ''}\r\n`)),
  getVersion: () => encodeContent(MSG_DEVICE_VERSION, Buffer.alloc(0)),
  firmwareUpdate: () => encodeContent(MSG_FIRMWARE_UPDATE, ascii('|FU_STRT*\r\n')),
  outputControl: (a) => encodeContent(MSG_SET_IO, int32(Number(a.index ?? 0), Number(a.data ?? 0))),
  setConnection: (a) => encodeContent(MSG_SET_CONNECTION, ascii(`${a.server ?? ''},${Number(a.port ?? 0)},TCP`)),
  setOdometer: (a) => encodeContent(MSG_SET_ODOMETER, int32(Number(a.data ?? 0))),
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`ruptela: unsupported command ${command.type}`);
  return build(command.attributes);
}

export const protocol: Protocol = {
  name: 'ruptela',
  defaultPort: 5046,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
