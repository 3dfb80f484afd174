/**
 * Galileosky trackers.
 * Main packet: `01 | u16 LE length (bit 15: archive not empty) | tags... | u16 LE CRC-16/MODBUS`, where a
 * tag is one id byte followed by a value whose size the id fixes (a few carry their own length). A tag that
 * repeats starts the next record. Answered `02 | the packet's CRC`.
 * Also: `07` photo parts (answered `07 | CRC`), `08` compressed records (minimal data set + tag list),
 * and Iridium SBD packets (`01 | u16 BE length | 01 00 1C ...`, no CRC, no answer).
 */
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { Reader, crc16Modbus } from './binary.ts';
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

const MAX_FRAME = 0x7fff + 5;
const PHOTO_MAX = 1 << 20;

type Attrs = Record<string, AttrValue>;

// ---------------------------------------------------------------------------------------------
// Tags

/** Value size of each fixed-size tag. */
const TAG_SIZE = new Map<number, number>();
const sizes: Array<[number, number[]]> = [
  [1, [0x01, 0x02, 0x35, 0x43, 0x49, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0xd5, ...range(0xa0, 0xaf), ...range(0xc4, 0xd2)]],
  [2, [0x04, 0x10, 0x34, 0x40, 0x41, 0x42, 0x45, 0x46, 0x48, ...range(0x50, 0x59), ...range(0x60, 0x62), ...range(0x70, 0x79), ...range(0xb0, 0xb9), ...range(0xd6, 0xda)]],
  [3, [0x5d, 0xfa, ...range(0x63, 0x6f), ...range(0x80, 0x87)]],
  [4, [0x20, 0x33, 0x44, 0x47, 0x5a, 0x90, 0xc0, 0xc1, 0xc2, 0xc3, 0xd3, 0xd4, 0xe0, ...range(0xdb, 0xdf), ...range(0xe2, 0xe9), ...range(0xf0, 0xf9)]],
  [7, [0x5b]],
  [9, [0x30]],
  [15, [0x03]],
  [68, [0x5c]],
];
for (const [size, tags] of sizes) for (const t of tags) TAG_SIZE.set(t, size);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

type TagHandler = (v: Reader, rec: DeviceRecord, a: Attrs) => void;

/** Numbered families: id range -> attribute name by offset and reader. */
const FAMILIES: Array<[number, number, (n: number) => string, (v: Reader) => number]> = [
  [0x50, 0x57, (n) => indexed.adc(n), (v) => v.u16le()],
  [0x60, 0x62, (n) => indexed.fuel(n), (v) => v.u16le()],
  [0xa0, 0xaf, (n) => `can8BitR${n + 15}`, (v) => v.u8()],
  [0xb0, 0xb9, (n) => `can16BitR${n + 5}`, (v) => v.u16le()],
  [0xc4, 0xd2, (n) => `can8BitR${n}`, (v) => v.u8()],
  [0xd6, 0xda, (n) => `can16BitR${n}`, (v) => v.u16le()],
  [0xdb, 0xdf, (n) => `can32BitR${n}`, (v) => v.u32le()],
  [0xe2, 0xe9, (n) => `userData${n}`, (v) => v.u32le()],
  [0xf0, 0xf9, (n) => `can32BitR${n + 5}`, (v) => v.u32le()],
];

const TAGS = new Map<number, TagHandler>([
  [0x01, (v, _r, a) => { a.versionHw = v.u8(); }],
  [0x02, (v, _r, a) => { a.versionFw = v.u8(); }],
  [0x04, (v, _r, a) => { a.terminalId = v.u16le(); }], // the device's own short number
  [0x10, (v, _r, a) => { a[Attr.index] = v.u16le(); }],
  [0x20, (v, r) => { r.time = v.u32le() * 1000; }],
  [0x30, (v, r) => {
    const b = v.u8();
    r.valid = (b & 0xf0) === 0; // high nibble: fix quality, 0 = correct
    r.satellites = b & 0x0f;
    r.lat = v.i32le() / 1e6;
    r.lng = v.i32le() / 1e6;
  }],
  [0x33, (v, r) => {
    r.speed = v.u16le() / 10;
    r.course = v.u16le() / 10;
  }],
  [0x34, (v, r) => { r.altitude = v.i16le(); }],
  [0x35, (v, r) => { r.hdop = v.u8() / 10; }],
  [0x40, (v, _r, a) => { a[Attr.status] = v.u16le(); }],
  [0x41, (v, _r, a) => { a[Attr.power] = v.u16le() / 1000; }],
  [0x42, (v, _r, a) => { a[Attr.battery] = v.u16le() / 1000; }],
  [0x43, (v, _r, a) => { a[Attr.deviceTemp] = v.i8(); }],
  [0x44, (v, _r, a) => { a.acceleration = v.u32le(); }],
  [0x45, (v, _r, a) => { a[Attr.output] = v.u16le(); }],
  [0x46, (v, _r, a) => { a[Attr.input] = v.u16le(); }],
  [0x48, (v, _r, a) => { a.statusExtended = v.u16le(); }],
  [0x58, (v, _r, a) => { a.rs2320 = v.u16le(); }],
  [0x59, (v, _r, a) => { a.rs2321 = v.u16le(); }],
  [0x90, (v, _r, a) => {
    const key = v.u32le();
    if (key) a[Attr.driverUniqueId] = String(key); // 0: no key applied
  }],
  [0xc0, (v, _r, a) => { a.fuelTotal = v.u32le() / 2; }],
  [0xc1, (v, _r, a) => {
    a[Attr.fuel] = v.u8() * 0.4;
    a[indexed.temp(1)] = v.u8() - 40;
    a[Attr.rpm] = v.u16le() / 8;
  }],
  [0xc2, (v, _r, a) => { a.canB0 = v.u32le(); }],
  [0xc3, (v, _r, a) => { a.canB1 = v.u32le(); }],
  [0xd4, (v, _r, a) => { a[Attr.odometer] = v.u32le(); }],
  [0xe0, (v, _r, a) => { a[Attr.index] = v.u32le(); }],
  // thermometers 0..7: sensor id, then signed degrees
  ...range(0x70, 0x77).map((t): [number, TagHandler] => [t, (v, _r, a) => {
    v.u8();
    a[indexed.temp(t - 0x70)] = v.i8();
  }]),
]);

/** Decode one tag's value; unknown ids cannot be skipped (their size is unknown), so they end the packet. */
function decodeTag(r: Reader, tag: number, rec: DeviceRecord): void {
  const a = rec.attributes;
  if (tag === 0xe1) {
    a[Attr.result] = r.ascii(r.u8());
    return;
  }
  if (tag === 0xea) {
    a.userDataArray = r.hex(r.u8());
    return;
  }
  if (tag === 0xfe) {
    decodeExtended(new Reader(r.bytes(r.u16le())), a);
    return;
  }
  const size = TAG_SIZE.get(tag);
  if (size === undefined) throw new DecodeError(`unknown tag 0x${tag.toString(16)}`);
  const v = new Reader(r.bytes(size));
  const handler = TAGS.get(tag);
  if (handler) return handler(v, rec, a);
  const family = FAMILIES.find(([from, to]) => tag >= from && tag <= to);
  if (family) a[family[2](tag - family[0])] = family[3](v);
}

/** Extended tags (0xFE): u16 LE id + 4-byte LE value each. */
function decodeExtended(r: Reader, a: Attrs): void {
  while (r.remaining >= 6) {
    const id = r.u16le();
    a[`tag${id.toString(16).padStart(4, '0')}`] = r.u32le();
  }
}

// ---------------------------------------------------------------------------------------------
// Records

interface Session {
  last?: LastFix;
  photo?: { chunks: Buffer[]; size: number };
}

const withLastLocation = withLastFix;
function remember(records: DeviceRecord[], session: Session): void {
  for (const r of records) rememberFix(session, r);
}

/** Main packet: tags until the end; a repeated tag closes the current record. */
function decodeMain(frame: Buffer, ctx: DecodeContext, session: Session): DecodeResult {
  const end = frame.length - 2;
  if (crc16Modbus(frame, 0, end) !== frame.readUInt16LE(end)) throw new DecodeError('bad CRC');
  const r = new Reader(frame, 3, Math.min(end, 3 + (frame.readUInt16LE(1) & 0x7fff)));
  let deviceId: string | undefined;
  const records: DeviceRecord[] = [];
  let rec: DeviceRecord = { attributes: {} };
  let seen = new Set<number>();
  const close = () => {
    if (rec.lat !== undefined && rec.time !== undefined) records.push(rec);
    else if (rec.attributes[Attr.result] !== undefined) records.push(withLastLocation(rec, session));
  };
  while (r.remaining > 0) {
    const tag = r.u8();
    if (seen.has(tag)) {
      close();
      rec = { attributes: {} };
      seen = new Set();
    }
    seen.add(tag);
    if (tag === 0x03) {
      deviceId = r.ascii(15);
      if (!/^[0-9A-Za-z]+$/.test(deviceId)) throw new DecodeError('bad IMEI');
    } else decodeTag(r, tag, rec);
  }
  close();
  remember(records, session);
  const reply = Buffer.from([0x02, frame[end], frame[end + 1]]);
  if (!deviceId && !ctx.deviceId) return { reply };
  return { deviceId, records, reply };
}

/**
 * Minimal data set (10 bytes, bit-packed): seconds since the start of the year, validity,
 * longitude and latitude as fractions of the full range, alarm flag.
 */
function decodeMinimal(r: Reader, rec: DeviceRecord, now: number): void {
  const b = r.bytes(10);
  let bits = 0n;
  for (const x of b) bits = (bits << 8n) | BigInt(x);
  let at = 80;
  const take = (n: number) => {
    at -= n;
    return Number((bits >> BigInt(at)) & ((1n << BigInt(n)) - 1n));
  };
  take(1);
  const seconds = take(25);
  rec.valid = take(1) === 0;
  rec.lng = (360 * take(22)) / 4194304 - 180;
  rec.lat = (180 * take(21)) / 2097152 - 90;
  if (take(1)) rec.attributes[Attr.alarm] = Alarm.general;
  const year = new Date(now).getUTCFullYear();
  let time = Date.UTC(year, 0, 1) + seconds * 1000;
  if (time > now + 86400e3) time = Date.UTC(year - 1, 0, 1) + seconds * 1000; // sent last year
  rec.time = time;
}

/** Compressed record: minimal data set, then the list of tag ids present, then their values. */
function decodeCompressedRecord(r: Reader, now: number): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  decodeMinimal(r, rec, now);
  const tags = [...r.bytes(r.u8())];
  for (const tag of tags) decodeTag(r, tag, rec);
  return rec;
}

function decodeCompressed(frame: Buffer, ctx: DecodeContext, session: Session): DecodeResult {
  const end = frame.length - 2;
  if (crc16Modbus(frame, 0, end) !== frame.readUInt16LE(end)) throw new DecodeError('bad CRC');
  const reply = Buffer.from([0x02, frame[end], frame[end + 1]]);
  if (!ctx.deviceId) return { reply };
  const r = new Reader(frame, 3, end);
  const records: DeviceRecord[] = [];
  while (r.remaining > 0) records.push(decodeCompressedRecord(r, ctx.now));
  remember(records, session);
  return { records, reply };
}

/** Iridium SBD: fixed header with IMEI, time and a coarse position, then tags (or a compressed record). */
function decodeIridium(frame: Buffer, ctx: DecodeContext, session: Session): DecodeResult {
  const r = new Reader(frame, 3, 3 + frame.readUInt16BE(1));
  r.skip(3); // identification header
  r.u32(); // index
  const deviceId = r.ascii(15);
  if (!/^[0-9A-Za-z]+$/.test(deviceId)) throw new DecodeError('bad IMEI');
  r.u8(); // session status
  r.skip(4);
  const rec: DeviceRecord = { attributes: {}, time: r.u32() * 1000 };
  r.skip(3); // coordinates header
  const flags = r.u8();
  const lat = r.u8() + r.u16() / 60000;
  const lng = r.u8() + r.u16() / 60000;
  rec.lat = flags & 0x02 ? -lat : lat;
  rec.lng = flags & 0x01 ? -lng : lng;
  rec.precision = r.u32();
  r.u8(); // data tag header
  const data = new Reader(r.bytes(r.u16()));
  if (ctx.config.compressed === true) {
    const c = decodeCompressedRecord(data, ctx.now);
    Object.assign(rec, c, { attributes: { ...rec.attributes, ...c.attributes } });
  } else {
    while (data.remaining > 0) decodeTag(data, data.u8(), rec);
  }
  remember([rec], session);
  return { deviceId, records: [rec] };
}

/** Photo parts: a part with data is appended; an empty part completes the image. */
function decodePhoto(frame: Buffer, ctx: DecodeContext, session: Session): DecodeResult {
  const end = frame.length - 2;
  if (crc16Modbus(frame, 0, end) !== frame.readUInt16LE(end)) throw new DecodeError('bad CRC');
  const r = new Reader(frame, 1, end);
  const length = r.u16le();
  r.u8(); // part number
  const reply = Buffer.from([0x07, frame[end], frame[end + 1]]);
  if (length > 1) {
    const part = r.bytes(Math.min(length - 1, r.remaining));
    const photo = (session.photo ??= { chunks: [], size: 0 });
    if (photo.size + part.length > PHOTO_MAX) session.photo = undefined;
    else {
      photo.chunks.push(Buffer.from(part));
      photo.size += part.length;
    }
    return { reply };
  }
  const photo = session.photo;
  session.photo = undefined;
  if (!photo || !ctx.deviceId) return { reply };
  const rec = withLastLocation({ time: ctx.now, attributes: { image: Buffer.concat(photo.chunks).toString('base64') } }, session);
  return { records: [rec], reply };
}

const isIridium = (b: Buffer) => b.length >= 6 && b[0] === 0x01 && b.readUIntBE(3, 3) === 0x01001c;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  if (frame.length < 5) throw new DecodeError('too short');
  if (isIridium(frame)) return decodeIridium(frame, ctx, session);
  switch (frame[0]) {
    case 0x01:
      return decodeMain(frame, ctx, session);
    case 0x07:
      return decodePhoto(frame, ctx, session);
    case 0x08:
      return decodeCompressed(frame, ctx, session);
    default:
      throw new DecodeError(`unknown header 0x${frame[0].toString(16)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Framer: header byte, u16 LE length (low 15 bits), body, u16 CRC; Iridium: u16 BE length, no CRC

function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 1) return null;
      if (buf[0] !== 0x01 && buf[0] !== 0x07 && buf[0] !== 0x08) throw new FrameError(`bad header 0x${buf[0].toString(16)}`);
      if (buf.length < 6) return null;
      const size = isIridium(buf) ? 3 + buf.readUInt16BE(1) : 5 + (buf.readUInt16LE(1) & 0x7fff);
      return buf.length >= size ? { frame: buf.subarray(0, size), consumed: size } : null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Encoder: a main packet carrying the IMEI, device id 0, index 0 and the command text (tag 0xE1)

function encodeText(imei: string, text: string): Buffer {
  const id = Buffer.from(imei, 'latin1');
  const body = Buffer.from(text, 'latin1');
  if (body.length > 255) throw new Error('galileo: command text longer than 255 bytes');
  const out = Buffer.alloc(3 + 1 + id.length + 3 + 5 + 2 + body.length + 2);
  let at = out.writeUInt8(0x01, 0);
  at = out.writeUInt16LE(id.length + body.length + 11, at);
  at = out.writeUInt8(0x03, at);
  at += id.copy(out, at);
  at = out.writeUInt8(0x04, at);
  at = out.writeUInt16LE(0, at); // device id: not needed next to the IMEI
  at = out.writeUInt8(0xe0, at);
  at = out.writeUInt32LE(0, at); // index
  at = out.writeUInt8(0xe1, at);
  at = out.writeUInt8(body.length, at);
  at += body.copy(out, at);
  out.writeUInt16LE(crc16Modbus(out, 0, at), at);
  return out;
}

const COMMANDS: Record<string, (a: Command['attributes']) => string> = {
  custom: (a) => String(a.data ?? ''),
  outputControl: (a) => `Out ${Number(a.index ?? 0)},${a.data ?? 0}`,
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`galileo: unsupported command ${command.type}`);
  return encodeText(ctx.deviceId, build(command.attributes));
}

export const protocol: Protocol = {
  name: 'galileo',
  defaultPort: 5034,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
