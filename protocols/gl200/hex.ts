/** GL200 binary formats: HEX (B) reports and Protocol Pro (C). */
import { Attr } from '../attributes.ts';
import { Reader, crc16CcittFalse } from '../binary.ts';
import type { DecodeContext, DecodeResult, DeviceRecord } from '../types.ts';
import { bad, newRecord } from './fields.ts';

// ---------------------------------------------------------------------------------------------
// HEX format (B)
// ---------------------------------------------------------------------------------------------

/** 8-byte unique id: each byte holds two decimal digits (the last one digit), or a NUL-padded name. */
function readUniqueId(r: Reader): string {
  const b = r.bytes(8);
  if (b.every((x, k) => (k < 7 ? x <= 99 : x <= 9))) {
    return [...b.subarray(0, 7)].map((x) => String(x).padStart(2, '0')).join('') + String(b[7]);
  }
  return b.toString('latin1').replace(/\0+$/, '');
}

function readBinaryTime(r: Reader): number {
  const [y, mo, d, h, mi, s] = [r.u16(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/** MCC/MNC go on the wire as BCD digits (0x0268 = 268). */
function bcdNumber(x: number): number {
  const s = x.toString(16);
  return /^\d+$/.test(s) ? Number(s) : x;
}

/** One HEX location: hdop, speed(0.1 km/h, 3 bytes), course, altitude, lon, lat (1e-6), time, cell. */
function readBinaryLocation(r: Reader, rec: DeviceRecord): void {
  const hdop = r.u8();
  rec.hdop = hdop;
  rec.valid = hdop > 0;
  rec.speed = r.u16() + r.u8() / 10; // whole km/h, then tenths
  rec.course = r.u16();
  rec.altitude = r.i16();
  rec.lng = r.i32() * 1e-6;
  rec.lat = r.i32() * 1e-6;
  rec.time = readBinaryTime(r);
  const [mcc, mnc, lac, cid] = [r.u16(), r.u16(), r.u16(), r.u16()];
  rec.cells = [{ mcc: bcdNumber(mcc), mnc: bcdNumber(mnc), lac, cid }];
  r.u8(); // reserved
}

interface BinaryHead {
  type: number;
  id: string;
  battery: number;
  power: number;
  satellites: number;
}

function readRspHead(r: Reader, withIndex: boolean, geo: boolean): BinaryHead {
  const type = r.u8();
  r.skip(4 + 2 + 1 + 2 + 2); // mask, length, device type, protocol version, firmware version
  const id = readUniqueId(r);
  const battery = r.u8();
  const power = r.u16();
  if (geo) r.skip(2);
  r.u8(); // motion status
  const satellites = r.u8();
  if (withIndex) r.u8();
  return { type, id, battery, power, satellites };
}

const RSP_GEO = 8;
const RSP_LCB = 3;
const RSP_COMPRESSED = 100;

function headAttributes(rec: DeviceRecord, h: BinaryHead): void {
  rec.attributes[Attr.batteryLevel] = h.battery;
  rec.attributes[Attr.power] = h.power / 1000;
  rec.satellites = h.satellites;
}

/** `+RSP/+BSP`: position reports, plain or compressed (type 100). */
function decodeRsp(r: Reader): DecodeResult {
  const type = r.peekU8();
  const h = readRspHead(r, type !== RSP_COMPRESSED, type === RSP_GEO);
  if (type === RSP_LCB) {
    r.u8(); // phone number length
    for (let b = r.u8(); (b & 0x0f) !== 0x0f && (b & 0xf0) !== 0xf0; b = r.u8());
  }
  const records = type === RSP_COMPRESSED ? decodeCompressed(r) : [];
  if (type !== RSP_COMPRESSED) {
    const count = r.u8();
    for (let n = 0; n < count; n++) {
      const rec = newRecord();
      headAttributes(rec, h);
      readBinaryLocation(r, rec);
      records.push(rec);
    }
  }
  return { deviceId: h.id, records };
}

/** Unsigned bit field `[from, from+len)` counted from the most significant end of a `width`-bit value. */
function bits(value: number, width: number, from: number, len: number): number {
  return Math.floor(value / 2 ** (width - from - len)) % 2 ** len;
}
function signedBits(value: number, width: number, from: number, len: number): number {
  const x = bits(value, width, from, len);
  return x >= 2 ** (len - 1) ? x - 2 ** len : x;
}

/**
 * Compressed track: a full point (tag 1: 2-bit tag, 1-bit fix, 12-bit speed, 9-bit course, lon, lat,
 * time on the first point) then deltas (tag 2: 7-bit speed, 7-bit course, 12-bit lon, 11-bit lat),
 * one second apart; any other tag is a one-byte placeholder.
 */
function decodeCompressed(r: Reader): DeviceRecord[] {
  const count = r.u16();
  const records: DeviceRecord[] = [];
  let speed = 0, course = 0, lat = 0, lng = 0, time = 0;
  for (let n = 0; n < count; n++) {
    if (time > 0) time += 1;
    const tag = r.peekU8() >> 6;
    if (tag === 1) {
      const b = r.u24();
      speed = bits(b, 24, 3, 12);
      course = bits(b, 24, 15, 9);
      lng = r.i32();
      lat = r.i32();
      if (time === 0) time = r.u32();
    } else if (tag === 2) {
      const b = r.uint(5);
      speed += signedBits(b, 40, 3, 7);
      course += signedBits(b, 40, 10, 7);
      lng += signedBits(b, 40, 17, 12);
      lat += signedBits(b, 40, 29, 11);
    } else {
      r.u8();
      continue;
    }
    records.push({ time: time * 1000, valid: true, speed: speed * 0.1, course, lat: lat * 1e-6, lng: lng * 1e-6, attributes: {} });
  }
  return records;
}

/** Extra bytes some `+EVT` types insert before the location (event type -> bytes). */
const EVT_EXTRA: Record<number, number> = {
  6: 2, // BPL backup battery voltage
  13: 4, 14: 4, // IGN / IGF duration
  15: 3, // UPD code, retry
  17: 4, // IDF idling duration
  21: 5, // GSS signal status + reserved
  23: 1, // CRA crash counter
  25: 2, // DOS
  26: 12, // GES geofence id, enable, mode, radius, interval
  31: 2, // GPJ jamming value, state
  33: 1, // JDS jamming state
  34: 3, // UPC command id, result
  35: 1, // RMD roaming state
  45: 7, 46: 7, // VGN / VGF reserved, report type, duration
};

/** `+EVT/+BVT`: one event with its location. */
function decodeEvt(r: Reader): DecodeResult {
  const h = readRspHead(r, false, false);
  const rec = newRecord();
  headAttributes(rec, h);
  rec.attributes.event = h.type;
  r.skip(EVT_EXTRA[h.type] ?? 0);
  r.u8(); // count
  readBinaryLocation(r, rec);
  return { deviceId: h.id, records: [rec] };
}

/** `+INF/+BNF`: device information; only the header fields are fixed across models. */
function decodeBinaryInf(r: Reader, frame: Buffer): DecodeResult {
  const type = r.u8();
  r.skip(2 + 2); // mask, length
  const id = readUniqueId(r);
  r.skip(1 + 2); // device type, protocol version
  const rec = newRecord();
  rec.attributes.versionFw = String(r.u16());
  rec.attributes.type = `INF${type}`;
  const t = new Reader(frame, frame.length - 13);
  const time = readBinaryTime(t);
  if (Number.isFinite(time)) rec.time = time;
  return { deviceId: id, records: [rec] };
}

export function decodeHex(frame: Buffer): DecodeResult {
  const r = new Reader(frame);
  const header = r.ascii(4);
  if (frame.length < 15 || frame[frame.length - 2] !== 0x0d || frame[frame.length - 1] !== 0x0a) bad('bad HEX trailer');
  if (crc16CcittFalse(frame, 4, frame.length - 4) !== frame.readUInt16BE(frame.length - 4)) bad('bad HEX checksum');
  switch (header) {
    case '+RSP':
    case '+BSP':
      return decodeRsp(r);
    case '+EVT':
    case '+BVT':
      return decodeEvt(r);
    case '+INF':
    case '+BNF':
      return decodeBinaryInf(r, frame);
    case '+HBD': {
      r.skip(1 + 1 + 1 + 2 + 2); // mask, length, device type, protocol version, firmware version
      return { deviceId: readUniqueId(r) };
    }
    default:
      return {}; // command acknowledgements and other headers carry nothing to store
  }
}

// ---------------------------------------------------------------------------------------------
// Protocol Pro (C)
// ---------------------------------------------------------------------------------------------

/** CRC-8 poly 0x31, init 0xFF, over header..count. */
function crc8(buf: Buffer, end: number): number {
  let crc = 0xff;
  for (let i = 0; i < end; i++) {
    crc ^= buf[i];
    for (let b = 0; b < 8; b++) crc = crc & 0x80 ? ((crc << 1) ^ 0x31) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

/** 1 or 2 byte integer: high bit set means two bytes. */
function varint(r: Reader): number {
  const b = r.u8();
  return b & 0x80 ? ((b & 0x7f) << 8) | r.u8() : b;
}

/** IMEI as packed BCD with the leading nibble dropped. */
const proImei = (r: Reader) => r.hex(8).slice(1);

/** Data id 82: full location. */
function readProLocation(r: Reader, rec: DeviceRecord): void {
  const fix = r.u8();
  rec.lng = r.i32() * 1e-6;
  rec.lat = r.i32() * 1e-6;
  rec.time = r.u32() * 1000;
  rec.speed = r.u16() * 0.1;
  const hdop = r.u8();
  if (hdop !== 0xff) rec.hdop = hdop * 0.1;
  rec.course = r.u16();
  const alt = r.u24();
  rec.altitude = (alt >= 0x800000 ? alt - 0x1000000 : alt) * 0.1;
  rec.satellites = r.u8();
  rec.valid = ((fix >> 2) & 3) === 2;
}

export function decodePro(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const heartbeat = frame[1] === 0x10;
  const length = heartbeat ? frame[2] : frame.readUInt16BE(2);
  if (length !== frame.length || frame[length - 1] !== 0x24) bad('bad Pro frame length or tail');
  if (crc8(frame, length - 2) !== frame[length - 2]) bad('bad Pro checksum');
  r.skip(heartbeat ? 3 : 4);
  if (heartbeat) return { deviceId: proImei(r) };
  if (r.u8() & 0x80) r.skip(2); // frame count, frame number of a multi-packet report
  const deviceId = proImei(r);
  r.skip(2 + 2 + 1); // device type, protocol version, custom version
  r.skip(r.u8()); // reserved field
  const records: DeviceRecord[] = [];
  const end = length - 4;
  while (r.pos < end) {
    const start = r.pos;
    const recordEnd = start + varint(r);
    if (recordEnd > end || recordEnd <= start) bad('bad Pro record length');
    const rec = newRecord();
    rec.time = r.u32() * 1000;
    r.u16(); // record count number
    rec.attributes.type = r.u8();
    rec.attributes.event = r.u8();
    while (r.pos < recordEnd) {
      const id = varint(r);
      const len = varint(r);
      const data = new Reader(frame, r.pos, r.pos + len);
      r.skip(len);
      if (id === 82 && len >= 22) readProLocation(data, rec);
    }
    if (frame[0] === 0x2d) rec.attributes[Attr.archive] = true;
    records.push(rec);
  }
  const count = frame.toString('hex', length - 4, length - 2).toUpperCase();
  return { deviceId, records, reply: ctx.config.ack ? Buffer.from(`+SACK:${count}$`, 'latin1') : undefined };
}
