/**
 * Teltonika FM/FMB/FMC/GH trackers.
 * TCP: an IMEI packet (u16 length + ASCII IMEI, answered 0x01), then AVL packets
 * `00000000 | u32 data length | codec | count | records | count | u32 CRC-16/IBM`, answered with the
 * accepted record count as u32. UDP: `u16 length | u16 packet id | 01 | avl packet id | u16 + IMEI | codec ...`,
 * answered `0005 | packet id | 01 | avl packet id | count`.
 * Codecs: 8, 8 Extended (0x8E), 16 (AVL data), 7 (GH3000), 12 (commands/replies, camera), 13 and 14 (replies).
 */
import { rememberFix, withLastFix, type LastFix } from '../last-fix.ts';
import { Reader, crc16Ibm, i16be, i32be, u16be } from '../binary.ts';
import { Attr } from '../attributes.ts';
import { DecodeError, FrameError, type Cell, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from '../types.ts';
import { CODEC_GH3000, CODEC_8, CODEC_8E, CODEC_12, CODEC_13, CODEC_14, CODEC_16, type Attrs, uval8, LAC, CID_2G, CID_4G, IO_GH3000, modelIo, type IoState, readIoSection, readExtendedIo, readVariableIo, AVL_FIXED } from './io.ts';
import { COMPILES_PER_PACKET, compiledLayout } from './layouts.ts';

const MAX_FRAME = 65536;
/** Largest photo we assemble from camera chunks; bigger announcements are ignored. */
const PHOTO_MAX = 1 << 20;
const PHOTO_CHUNK = 2048;

interface Session {
  last?: LastFix;
  photo?: { id: number; size: number; chunks: Buffer[]; received: number };
}

/** A record that carries no location of its own gets the connection's last known one, marked not valid. */
const withLastLocation = withLastFix;
const remember = (rec: DeviceRecord, session: Session) => rememberFix(session, rec);

/** Cell from the LAC/CID IO elements, with MCC/MNC taken from the operator code when it has one. */
function decodeNetwork(rec: DeviceRecord, parts: number[]): void {
  const lac = parts[LAC];
  const cid = Number.isNaN(parts[CID_2G]) ? parts[CID_4G] : parts[CID_2G]; // NaN: absent
  if (!lac || !cid) return; // absent or zero
  const operator = rec.attributes.operator;
  let mcc = 0;
  let mnc = 0;
  if (typeof operator === 'number' && operator >= 1000) {
    // MCC: the first 3 digits, MNC: the rest; for the usual small codes by arithmetic (no strings)
    if (Number.isInteger(operator) && operator < 2 ** 31) {
      let scale = 1;
      while (operator >= 1000 * scale) scale *= 10;
      mcc = Math.floor(operator / scale);
      mnc = operator % scale;
    } else {
      const op = String(operator);
      mcc = Number(op.slice(0, 3));
      mnc = Number(op.slice(3));
    }
  }
  const c: Cell = { mcc, mnc, lac, cid };
  rec.cells = [c];
}

/** FM6 devices send the driver id as two 8-byte raw elements. */
function decodeFm6Driver(a: Attrs): void {
  if (typeof a.io195 !== 'number' || typeof a.io196 !== 'number') return;
  const id = Buffer.alloc(16);
  id.writeBigInt64BE(BigInt(a.io195), 0);
  id.writeBigInt64BE(BigInt(a.io196), 8);
  a[Attr.driverUniqueId] = id.toString('latin1');
}

/** GH3000: compact time since 2007, then a mask of which location parts follow. */
function decodeGh3000Location(r: Reader, rec: DeviceRecord, a: Attrs): number {
  rec.time = ((r.u32() & 0x3fffffff) + 1167609600) * 1000;
  const globalMask = r.u8();
  if (!(globalMask & 0x01)) return globalMask;
  const mask = r.u8();
  if (mask & 0x01) {
    rec.lat = r.f32();
    rec.lng = r.f32();
    rec.valid = true;
  }
  if (mask & 0x02) rec.altitude = r.u16();
  if (mask & 0x04) rec.course = (r.u8() * 360) / 256;
  if (mask & 0x08) rec.speed = r.u8();
  if (mask & 0x10) rec.satellites = r.u8();
  if (mask & 0x20) {
    const c: Cell = { mcc: 0, mnc: 0, lac: r.u16(), cid: r.u16() };
    if (mask & 0x40) c.rssi = r.u8();
    if (mask & 0x80) {
      const op = String(r.u32());
      if (op.length > 3) Object.assign(c, { mcc: Number(op.slice(0, 3)), mnc: Number(op.slice(3)) });
    }
    rec.cells = [c];
  } else {
    if (mask & 0x40) a[Attr.rssi] = r.u8();
    if (mask & 0x80) a[Attr.operator] = r.u32();
  }
  return globalMask;
}

/** GH3000 record: its location, then the IO sections its mask announces (1, 2, 4 bytes; u8 ids and counts). */
function decodeGh3000Record(r: Reader, io: IoState, extended: boolean): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  const globalMask = decodeGh3000Location(r, rec, a);
  for (let i = 0; i < 3; i++) if (globalMask & (2 << i)) readIoSection(r, 1 << i, false, false, io, a);
  if (extended) readExtendedIo(r, false, false, a);
  if (io.fm6) decodeFm6Driver(a);
  return rec;
}


/**
 * Codec 8 / 8 Extended / 16 record. The fixed part is checked once and read in place; the attributes
 * come from the record's compiled layout when it has one, else from the general path; the record is
 * made in one go, in the same key order as always (time, lng, lat, ...).
 */
function decodeAvlRecord(r: Reader, codec: number, io: IoState, extended: boolean): DeviceRecord {
  const b = r.buf;
  const o = r.pos;
  if (o + AVL_FIXED[codec] > r.end) throw new DecodeError('truncated AVL record');
  const cell = io.cell;
  cell[LAC] = cell[CID_2G] = cell[CID_4G] = NaN;
  const layout = io.fm6 ? undefined : compiledLayout(b, o, r.end, codec, extended, io);
  let attributes: Attrs;
  if (layout !== undefined) {
    attributes = layout.read!(b, o, cell);
    r.pos = o + layout.size;
  } else {
    attributes = readAvlAttributes(r, codec, io, extended);
  }
  const satellites = b[o + 21];
  const rec: DeviceRecord = {
    attributes,
    time: uval8(b, o),
    lng: i32be(b, o + 9) / 1e7,
    lat: i32be(b, o + 13) / 1e7,
    altitude: i16be(b, o + 17),
    course: u16be(b, o + 19),
    satellites,
    valid: satellites !== 0,
    speed: u16be(b, o + 22), // km/h
  };
  decodeNetwork(rec, cell);
  return rec;
}

/** The general path: the attributes of the AVL record at `r.pos`, element by element through the IO table. */
function readAvlAttributes(r: Reader, codec: number, io: IoState, extended: boolean): Attrs {
  const b = r.buf;
  const o = r.pos;
  r.pos = o + AVL_FIXED[codec];
  const a: Attrs = { priority: b[o + 8], event: codec === CODEC_8 ? b[o + 24] : u16be(b, o + 24) };
  if (codec === CODEC_16) a.generation = b[o + 26];
  const wide = codec === CODEC_8E; // counts and ids on 2 bytes
  const wideId = wide || codec === CODEC_16;
  for (let size = 1; size <= 8; size *= 2) readIoSection(r, size, wide, wideId, io, a);
  if (extended) readExtendedIo(r, wide, wideId, a);
  if (wide) readVariableIo(r, a);
  if (io.fm6) decodeFm6Driver(a);
  return a;
}
const printable = (b: Buffer) => b.every((c) => (c >= 0x20 && c < 0x80) || c === 0x0d || c === 0x0a);

/** Text from a serial/command reply: axle-load scale output is split into values, anything else is the result. */
function decodeReplyText(data: Buffer, a: Attrs): void {
  if (!printable(data)) {
    a[Attr.result] = data.toString('hex');
    return;
  }
  const text = data.toString('latin1').trim();
  const gtsl = text.startsWith('GTSL') ? text.split('|')[4] : undefined;
  if (text.startsWith('UUUUww') && text.endsWith('SSS')) {
    const v = text.slice(6, -4).split(';').map(Number);
    if (v.length >= 12 && v.slice(0, 12).every(Number.isFinite)) {
      for (let i = 0; i < 8; i++) a[`axle${i + 1}`] = v[i];
      Object.assign(a, { loadTruck: v[8], loadTrailer: v[9], totalTruck: v[10], totalTrailer: v[11] });
      return;
    }
  }
  if (gtsl !== undefined) a[Attr.driverUniqueId] = gtsl;
  else a[Attr.result] = text;
}

/** Server -> device Codec 12 request for the next chunk of a photo. */
function imageRequest(id: number, offset: number, size: number): Buffer {
  const body = Buffer.alloc(11);
  body.writeUInt8(2, 0);
  body.writeUInt32BE(id >>> 0, 1);
  body.writeUInt32BE(offset >>> 0, 5);
  body.writeUInt16BE(size, 9);
  return codec12(0x0d, body);
}

/** Camera (type 0x0D): announcement (1) starts a transfer, chunks (2) continue it; the reply asks for more. */
function decodeCamera(r: Reader, session: Session, rec: DeviceRecord): Buffer | undefined {
  r.u32(); // length
  const subtype = r.u8();
  if (subtype === 1) {
    const id = r.u32();
    const size = r.i32();
    if (size <= 0 || size > PHOTO_MAX) return undefined;
    session.photo = { id, size, chunks: [], received: 0 };
    return imageRequest(id, 0, Math.min(PHOTO_CHUNK, size));
  }
  if (subtype !== 2) return undefined;
  const id = r.u32();
  r.u32(); // offset
  const chunk = r.bytes(r.u16());
  const photo = session.photo;
  if (!photo || photo.id !== id) return undefined;
  photo.chunks.push(Buffer.from(chunk));
  photo.received += chunk.length;
  if (photo.received < photo.size) return imageRequest(id, photo.received, Math.min(PHOTO_CHUNK, photo.size - photo.received));
  rec.attributes.image = Buffer.concat(photo.chunks).subarray(0, photo.size).toString('base64');
  session.photo = undefined;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Decoder

const isAvl = (codec: number) => codec === CODEC_8 || codec === CODEC_8E || codec === CODEC_16;

/** The IO state of a packet: the table of the codec and model, resolved once per packet. */
function ioState(codec: number, ctx: DecodeContext): IoState {
  const model = modelIo(typeof ctx.config.modelOverride === 'string' ? ctx.config.modelOverride : undefined);
  return { table: codec === CODEC_GH3000 ? IO_GH3000 : model.table, fm6: model.fm6, cell: [NaN, NaN, NaN], last: undefined, compiles: COMPILES_PER_PACKET };
}

/** A Codec 12/13/14 record (command reply, camera); `reply` is what the device expects back, if anything. */
function decodeReplyRecord(r: Reader, codec: number, ctx: DecodeContext, session: Session): { rec: DeviceRecord; reply?: Buffer } {
  const rec: DeviceRecord = { attributes: {} };
  let reply: Buffer | undefined;
  if (codec === CODEC_12) {
    const type = r.u8();
    if (type === 0x0d) {
      reply = decodeCamera(r, session, rec);
    } else {
      rec.attributes.type = type;
      decodeReplyText(r.bytes(r.u32()), rec.attributes);
    }
    rec.time = ctx.now;
  } else if (codec === CODEC_13) {
    r.u8(); // type
    const length = r.u32() - 4;
    rec.time = r.u32() * 1000;
    decodeReplyText(r.bytes(length), rec.attributes);
  } else if (codec === CODEC_14) {
    const type = r.u8();
    const length = r.u32() - 8;
    r.bcd(8); // IMEI the reply comes from
    const data = r.bytes(length);
    if (type === 0x06) decodeReplyText(data, rec.attributes);
    rec.time = ctx.now;
  } else {
    throw new DecodeError(`unknown codec 0x${codec.toString(16)}`);
  }
  return { rec, reply };
}

/**
 * The connection's last fix after AVL records, which all carry a location: rememberFix, applied to
 * each in turn, keeps a valid record not older than the one it holds, so it ends up holding the last
 * record of that chain. That one is found here and kept once: a copy per packet, not per record.
 */
function rememberLast(records: DeviceRecord[], session: Session): void {
  let time = session.last?.time;
  let keep: DeviceRecord | undefined;
  for (const rec of records) {
    if (rec.valid !== false && (time === undefined || (rec.time ?? 0) >= time)) {
      keep = rec;
      time = rec.time;
    }
  }
  if (keep !== undefined) remember(keep, session);
}

/** Codec 8 / 8 Extended / 16 records. */
function decodeAvlRecords(r: Reader, codec: number, count: number, ctx: DecodeContext, session: Session): DeviceRecord[] {
  const io = ioState(codec, ctx);
  const extended = ctx.config.extended === true;
  const records: DeviceRecord[] = [];
  try {
    for (let i = 0; i < count; i++) records.push(decodeAvlRecord(r, codec, io, extended));
  } finally {
    rememberLast(records, session); // also when a record is truncated: as if remembered one by one
  }
  return records;
}

function decodeData(r: Reader, ctx: DecodeContext, session: Session): { records: DeviceRecord[]; reply?: Buffer; count: number } {
  const codec = r.u8();
  const count = r.u8();
  if (isAvl(codec)) return { records: decodeAvlRecords(r, codec, count, ctx, session), count };
  const records: DeviceRecord[] = [];
  let reply: Buffer | undefined;
  const io = codec === CODEC_GH3000 ? ioState(codec, ctx) : undefined;
  const extended = ctx.config.extended === true;
  for (let i = 0; i < count; i++) {
    let rec: DeviceRecord;
    if (codec === CODEC_GH3000) rec = decodeGh3000Record(r, io!, extended);
    else {
      const got = decodeReplyRecord(r, codec, ctx, session);
      rec = got.rec;
      reply = got.reply ?? reply;
    }
    if (rec.lat !== undefined) remember(rec, session);
    else if (Object.keys(rec.attributes).length) withLastLocation(rec, session);
    else continue;
    records.push(rec);
  }
  return { records, reply, count: codec === CODEC_12 || codec === CODEC_13 || codec === CODEC_14 ? -1 : count };
}

/** Big-endian u32 bytes. The AVL acknowledgement, one per packet: allocUnsafe is the cheapest Buffer, and all 4 bytes are written. */
function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b[0] = n >>> 24;
  b[1] = (n >>> 16) & 0xff;
  b[2] = (n >>> 8) & 0xff;
  b[3] = n & 0xff;
  return b;
}

function decodeTcp(frame: Buffer, ctx: DecodeContext, session: Session): DecodeResult {
  if (frame.length === 1 && frame[0] === 0xff) return {}; // keep-alive
  const r = new Reader(frame);
  const idLength = r.u16();
  if (idLength > 0) {
    const imei = r.ascii(idLength);
    if (!/^[0-9]{1,20}$/.test(imei)) throw new DecodeError('bad IMEI packet');
    return { deviceId: imei, reply: Buffer.from([0x01]) };
  }
  if (r.u16() !== 0) throw new DecodeError('bad preamble');
  r.u32(); // data length (some firmwares send garbage here; the framer already cut the frame)
  // The CRC is not checked: real devices (9 of the captured packets) send wrong CRCs with good data.
  if (!ctx.deviceId) return {}; // data before the IMEI: not acknowledged, the device resends after login
  const { records, reply, count } = decodeData(r, ctx, session);
  return { records, reply: count >= 0 ? u32(count) : reply, commandAck: isCommandResponse(records, count) || undefined };
}

/** A Codec 12 response (type 0x06): the device's answer to a command the server sent. */
const isCommandResponse = (records: DeviceRecord[], count: number) => count < 0 && records.some((rec) => rec.attributes.type === 0x06);

function decodeUdp(frame: Buffer, ctx: DecodeContext, session: Session): DecodeResult {
  const r = new Reader(frame);
  r.u16(); // length
  const packetId = r.u16();
  r.u8(); // packet type
  const avlPacketId = r.u8();
  const imei = r.ascii(r.u16());
  if (!/^[0-9]{1,20}$/.test(imei)) throw new DecodeError('bad IMEI');
  const { records, reply, count } = decodeData(r, { ...ctx, deviceId: imei }, session);
  if (count < 0) return { deviceId: imei, records, reply, commandAck: isCommandResponse(records, count) || undefined };
  const ack = Buffer.from([0x00, 0x05, packetId >> 8, packetId & 0xff, 0x01, avlPacketId, count]);
  return { deviceId: imei, records, reply: ack };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  return ctx.transport === 'udp' ? decodeUdp(frame, ctx, session) : decodeTcp(frame, ctx, session);
}

// ---------------------------------------------------------------------------------------------
// Framer: 0xFF keep-alive, IMEI packet (u16 length), or AVL packet (8-byte header + data + 4-byte CRC)

function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 1) return null;
      if (buf[0] === 0xff) return { frame: buf.subarray(0, 1), consumed: 1 };
      if (buf.length < 2) return null;
      const idLength = buf.readUInt16BE(0);
      if (idLength > 0) {
        if (idLength > 64) throw new FrameError(`bad IMEI length ${idLength}`);
        return buf.length >= idLength + 2 ? { frame: buf.subarray(0, idLength + 2), consumed: idLength + 2 } : null;
      }
      if (buf.length < 4) return null;
      if (buf.readUInt16BE(2) !== 0) throw new FrameError('bad preamble');
      if (buf.length < 8) return null;
      const size = buf.readUInt32BE(4) + 12;
      if (size > MAX_FRAME) throw new FrameError(`frame too long: ${size}`);
      return buf.length >= size ? { frame: buf.subarray(0, size), consumed: size } : null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Encoder: Codec 12 command (type 0x05)

/** `00000000 | u32 length | 0C 01 type | u32 size | body | 01 | u32 CRC-16/IBM of codec..quantity`. */
function codec12(type: number, body: Buffer): Buffer {
  const data = Buffer.concat([Buffer.from([CODEC_12, 0x01, type]), u32(body.length), body, Buffer.from([0x01])]);
  return Buffer.concat([u32(0), u32(data.length), data, u32(crc16Ibm(data))]);
}

const isHex = (s: string) => /^([0-9a-fA-F]{2})+$/.test(s);
const text = (s: string) => Buffer.from(s, 'latin1');

const COMMANDS: Record<string, (attrs: Command['attributes']) => Buffer> = {
  custom: (a) => {
    const data = String(a.data ?? '');
    return isHex(data) ? Buffer.from(data, 'hex') : text(data);
  },
  engineStop: () => text('setdigout 1'),
  engineResume: () => text('setdigout 0'),
  // setdigout takes one character per output: '?' leaves an output unchanged
  outputControl: (a) => {
    const index = Number(a.index ?? 1);
    if (!Number.isInteger(index) || index < 1 || index > 8) throw new Error('outputControl: index 1..8');
    return text(`setdigout ${'?'.repeat(index - 1)}${Number(a.data) ? 1 : 0}`);
  },
  positionSingle: () => text('getrecord'),
  getVersion: () => text('getver'),
  rebootDevice: () => text('cpureset'),
  // Chat text travels as a Codec 12 text message; the device hands it to its serial/display accessory.
  message: (a) => text(String(a.message ?? '')),
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`teltonika: unsupported command ${command.type}`);
  return codec12(0x05, build(command.attributes));
}

export const protocol: Protocol = {
  name: 'teltonika',
  defaultPort: 5027,
  // An IMEI packet answered 0x00 means: not accepted (the device then keeps its data and retries later).
  refuse: () => Buffer.from([0x00]),
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: true,
  commandAcks: true,
  encode,
};
