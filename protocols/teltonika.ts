/**
 * Teltonika FM/FMB/FMC/GH trackers.
 * TCP: an IMEI packet (u16 length + ASCII IMEI, answered 0x01), then AVL packets
 * `00000000 | u32 data length | codec | count | records | count | u32 CRC-16/IBM`, answered with the
 * accepted record count as u32. UDP: `u16 length | u16 packet id | 01 | avl packet id | u16 + IMEI | codec ...`,
 * answered `0005 | packet id | 01 | avl packet id | count`.
 * Codecs: 8, 8 Extended (0x8E), 16 (AVL data), 7 (GH3000), 12 (commands/replies, camera), 13 and 14 (replies).
 */
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { Reader, crc16Ibm } from './binary.ts';
import { Alarm, Attr, indexed } from './attributes.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Cell,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const CODEC_GH3000 = 0x07;
const CODEC_8 = 0x08;
const CODEC_8E = 0x8e;
const CODEC_12 = 0x0c;
const CODEC_13 = 0x0d;
const CODEC_14 = 0x0e;
const CODEC_16 = 0x10;

const MAX_FRAME = 65536;
/** Largest photo we assemble from camera chunks; bigger announcements are ignored. */
const PHOTO_MAX = 1 << 20;
const PHOTO_CHUNK = 2048;

type Attrs = Record<string, AttrValue>;

// ---------------------------------------------------------------------------------------------
// IO element values

// IO values are read in place (buffer, offset, length): no slice per element, the hot path of every record.

/** Unsigned big-endian value of an IO element (1, 2, 4 or 8 bytes). */
function uval(b: Buffer, o: number, n: number): number {
  if (o + n > b.length) throw new DecodeError('IO value past the end');
  if (n === 1) return b[o];
  if (n === 2) return (b[o] << 8) | b[o + 1];
  if (n === 4) return b.readUInt32BE(o);
  return n <= 6 ? (n ? b.readUIntBE(o, n) : 0) : b.readUInt32BE(o) * 4294967296 + b.readUInt32BE(o + 4);
}
function sval(b: Buffer, o: number, n: number): number {
  if (o + n > b.length) throw new DecodeError('IO value past the end');
  if (n === 1) return (b[o] << 24) >> 24;
  if (n === 2) return b.readInt16BE(o);
  if (n === 4) return b.readInt32BE(o);
  return n <= 6 ? (n ? b.readIntBE(o, n) : 0) : Number(b.readBigInt64BE(o));
}
/** Raw value of an element nobody named: 8-byte values stay exact as decimal strings when too large. */
function rawval(b: Buffer, o: number, n: number): AttrValue {
  if (n !== 8) return uval(b, o, n);
  if (o + 8 > b.length) throw new DecodeError('IO value past the end');
  const hi = b.readInt32BE(o);
  if (hi >= -0x200000 && hi < 0x200000) return hi * 4294967296 + b.readUInt32BE(o + 4);
  return b.readBigInt64BE(o).toString();
}

type IoHandler = (b: Buffer, o: number, n: number, a: Attrs) => void;
const num = (key: string, div = 1, signed = false): IoHandler =>
  signed ? (b, o, n, a) => void (a[key] = sval(b, o, n) / div) : (b, o, n, a) => void (a[key] = uval(b, o, n) / div);
const flag = (key: string): IoHandler => (b, o, n, a) => {
  a[key] = uval(b, o, n) > 0;
};
function addAlarm(a: Attrs, alarm: string): void {
  a[Attr.alarm] = a[Attr.alarm] ? `${a[Attr.alarm]},${alarm}` : alarm;
}
const alarmIf = (alarm: string): IoHandler => (b, o, n, a) => {
  if (uval(b, o, n) > 0) addAlarm(a, alarm);
};

/** Model families the IO id meanings depend on. `fmb`: FMB/FMC/FMM... (also assumed when the model is unknown). */
type Family = 'any' | 'fmb' | 'fmbNot6' | 'fm6' | 'fmb003';
const FAMILY: Record<Family, (model: string | undefined) => boolean> = {
  any: () => true,
  fmb: (m) => m === undefined || /^(FM[B-Z]...|MTB100|MSP500)$/.test(m),
  fmbNot6: (m) => FAMILY.fmb(m) && !FAMILY.fm6(m),
  fm6: (m) => m !== undefined && /^FM.6..$/.test(m),
  fmb003: (m) => m === 'FMB003',
};

/** IO id -> (family, handler). The first entry whose family matches the model wins; else `io<id>` raw. */
const IO: Array<[number, Family, IoHandler]> = [
  [1, 'any', flag(indexed.in(1))],
  [2, 'any', flag(indexed.in(2))],
  [3, 'any', flag(indexed.in(3))],
  [4, 'any', flag(indexed.in(4))],
  [9, 'fmb', num(indexed.adc(1), 1000)],
  [10, 'fmb', num(indexed.adc(2), 1000)],
  [11, 'fmb', (b, o, n, a) => { a[Attr.iccid] = n === 8 ? b.readBigUInt64BE(o).toString() : String(uval(b, o, n)); }],
  [12, 'fmb', num(Attr.fuelUsed, 1000)],
  [13, 'fmb', num(Attr.fuelConsumption, 100)],
  [16, 'any', num(Attr.odometer)],
  [17, 'any', num('axisX', 1, true)],
  [18, 'any', num('axisY', 1, true)],
  [19, 'any', num('axisZ', 1, true)],
  [21, 'any', num(Attr.rssi)],
  [25, 'any', num('bleTemp1', 100, true)],
  [26, 'any', num('bleTemp2', 100, true)],
  [27, 'any', num('bleTemp3', 100, true)],
  [28, 'any', num('bleTemp4', 100, true)],
  [30, 'fmb', num('faultCount')],
  [31, 'fmb', num(Attr.engineLoad)],
  [32, 'fmb', num(Attr.coolantTemp, 1, true)],
  [36, 'fmb', num(Attr.rpm)],
  [43, 'fmb', num('milDistance')],
  [57, 'fmb', num('hybridBatteryLevel', 1, true)],
  [66, 'any', num(Attr.power, 1000)],
  [67, 'any', num(Attr.battery, 1000)],
  [68, 'fmb', num('batteryCurrent', 1000)],
  [72, 'fmb', num(indexed.temp(1), 10, true)],
  [73, 'fmb', num(indexed.temp(2), 10, true)],
  [74, 'fmb', num(indexed.temp(3), 10, true)],
  [75, 'fmb', num(indexed.temp(4), 10, true)],
  // iButton: the key's bytes arrive least significant first
  [78, 'any', (b, o, n, a) => {
    if (n === 8 && b.readBigUInt64LE(o) !== 0n) a[Attr.driverUniqueId] = b.readBigUInt64LE(o).toString(16).toUpperCase().padStart(16, '0');
  }],
  [80, 'fmbNot6', num('dataMode')],
  [81, 'fmbNot6', num(Attr.obdSpeed)],
  [82, 'fmbNot6', num(Attr.throttle)],
  [83, 'fmbNot6', num(Attr.fuelUsed, 10)],
  [84, 'fmbNot6', num(Attr.fuel, 10)],
  [85, 'fmbNot6', num(Attr.rpm)],
  [87, 'fmbNot6', num('obdOdometer')],
  [89, 'fmbNot6', num(Attr.fuelLevel)],
  [107, 'fmb', num(Attr.fuelUsed, 10)],
  [110, 'fmb', num(Attr.fuelConsumption, 10)],
  [113, 'fmb', num(Attr.batteryLevel)],
  [115, 'fmb', num('engineTemp', 10, true)],
  [175, 'fmb', (b, o, n, a) => addAlarm(a, uval(b, o, n) > 0 ? Alarm.geofenceEnter : Alarm.geofenceExit)],
  [179, 'any', flag(indexed.out(1))],
  [180, 'any', flag(indexed.out(2))],
  [181, 'any', num('pdop', 10)],
  [182, 'any', num('hdop', 10)],
  [199, 'any', num('tripOdometer')],
  [200, 'fmb', num('sleepMode')],
  [205, 'fmb', num('cid2g')],
  [206, 'fmb', num('lac')],
  [236, 'any', alarmIf(Alarm.general)],
  [239, 'any', flag(Attr.ignition)],
  [240, 'any', flag(Attr.motion)],
  [241, 'any', num(Attr.operator)],
  [246, 'fmb', alarmIf(Alarm.tow)],
  [247, 'fmb', alarmIf(Alarm.accident)],
  [249, 'fmb', alarmIf(Alarm.jamming)],
  [251, 'fmb', alarmIf(Alarm.idle)],
  [252, 'fmb', alarmIf(Alarm.powerCut)],
  [253, 'any', (b, o, n, a) => {
    const alarm = [undefined, Alarm.hardAcceleration, Alarm.hardBraking, Alarm.hardCornering][uval(b, o, n)];
    if (alarm) addAlarm(a, alarm);
  }],
  [389, 'fmb003', (b, o, n, a) => { a.obdOdometer = uval(b, o, n) * 1000; }],
  [636, 'fmb', num('cid4g')],
  [662, 'fmb', flag(Attr.door)],
  ...[1, 2, 3, 4].map((i): [number, Family, IoHandler] => [700 + i, 'fm6', num(`bleTemp${i}`, 100, true)]),
  ...[1, 2, 3, 4, 5, 6].map((i): [number, Family, IoHandler] => [10643 + i, 'fmb', num(`tempProbe${i}`, 100, true)]),
  ...[1, 2, 3, 4].map((i): [number, Family, IoHandler] => [10799 + i, 'fmb', num(`eyeTemp${i}`, 100, true)]),
  ...[1, 2, 3, 4].map((i): [number, Family, IoHandler] => [10831 + i, 'fmb', num(`eyeRoll${i}`, 1, true)]),
];
const IO_BY_ID = new Map<number, Array<[Family, IoHandler]>>();
for (const [id, family, h] of IO) IO_BY_ID.set(id, [...(IO_BY_ID.get(id) ?? []), [family, h]]);

/** GH3000 personal trackers number their IO elements differently. */
const IO_GH3000: Map<number, IoHandler> = new Map<number, IoHandler>([
  [1, num(Attr.batteryLevel)],
  [2, flag('usbConnected')],
  [5, num('uptime')],
  [20, num('hdop', 10)],
  [21, num('vdop', 10)],
  [22, num('pdop', 10)],
  [67, num(Attr.battery, 1000)],
  [221, num('button')],
  [222, alarmIf(Alarm.sos)],
  [240, flag(Attr.motion)],
  [244, flag('roaming')],
]);

/** The IO table of a model, resolved once per model (the family rules are regexes: not per element). */
const TABLES = new Map<string | undefined, Map<number, IoHandler>>();
function ioTable(codec: number, model: string | undefined): Map<number, IoHandler> {
  if (codec === CODEC_GH3000) return IO_GH3000;
  let t = TABLES.get(model);
  if (!t) {
    t = new Map();
    for (const [id, handlers] of IO_BY_ID) {
      const h = handlers.find(([family]) => FAMILY[family](model))?.[1];
      if (h) t.set(id, h);
    }
    if (TABLES.size < 64) TABLES.set(model, t);
  }
  return t;
}

/** `io<id>` names, made once per id. */
const IO_KEYS: string[] = [];
const ioKey = (id: number) => (IO_KEYS[id] ??= indexed.io(id));

function decodeIo(table: Map<number, IoHandler>, id: number, b: Buffer, o: number, n: number, a: Attrs): void {
  const h = table.get(id);
  if (h) h(b, o, n, a);
  else a[ioKey(id)] = rawval(b, o, n);
}

// ---------------------------------------------------------------------------------------------
// Variable-length (Codec 8 Extended) elements

/** BLE beacon list (id 385): iBeacon or Eddystone entries, each with RSSI and optional battery/temperature. */
function decodeBeacons(data: Reader, a: Attrs): void {
  data.u8(); // data part
  for (let i = 1; data.remaining > 0; i++) {
    const flags = data.u8();
    const p = `beacon${i}`;
    if (flags >> 4 > 0) {
      a[`${p}Uuid`] = data.hex(16);
      a[`${p}Major`] = data.u16();
      a[`${p}Minor`] = data.u16();
    } else {
      a[`${p}Namespace`] = data.hex(10);
      a[`${p}Instance`] = data.hex(6);
    }
    a[`${p}Rssi`] = data.i8();
    if (flags & 0x02) a[`${p}Battery`] = data.u16() / 100;
    if (flags & 0x04) a[`${p}Temp`] = data.u16();
  }
}

/** EYE sensor / BLE tag parameters inside ids 548, 10828, 10829, 10831, 11317: param id -> (value bytes) -> attributes. */
const TAG_PARAMS: Record<number, (v: Buffer, a: Attrs, p: string) => void> = {
  0: (v, a, p) => { a[`${p}Rssi`] = sval(v, 0, 1); },
  1: (v, a, p) => { a[`${p}Id`] = v.toString('hex'); },
  2: (v, a, p) => {
    const f = v.length ? v[0] : 0;
    if (f & 0x40) a[`${p}LowBattery`] = true;
    if (f & 0x80 && v.length > 1) a[`${p}Voltage`] = v[1] * 10 + 2000; // mV
  },
  5: (v, a, p) => { a[`${p}Name`] = v.toString('utf8').replace(/\0+$/, ''); }, // NUL-padded
  6: (v, a, p) => { a[`${p}Temp`] = sval(v, 0, 2); },
  7: (v, a, p) => { a[`${p}Humidity`] = uval(v, 0, 1); },
  8: (v, a, p) => { a[`${p}Magnet`] = uval(v, 0, 1) > 0; },
  9: (v, a, p) => { a[`${p}Motion`] = uval(v, 0, 1) > 0; },
  10: (v, a, p) => { a[`${p}MotionCount`] = uval(v, 0, 2); },
  11: (v, a, p) => { a[`${p}Pitch`] = sval(v, 0, 1); },
  12: (v, a, p) => { a[`${p}AngleRoll`] = sval(v, 0, 2); },
  13: (v, a, p) => { a[`${p}LowBattery`] = uval(v, 0, 1); },
  14: (v, a, p) => { a[`${p}Battery`] = uval(v, 0, 2); }, // mV
  15: (v, a, p) => { a[`${p}Mac`] = v.subarray(0, 6).toString('hex'); },
};

function decodeTags(data: Reader, a: Attrs): void {
  data.u8(); // header
  for (let i = 1; data.remaining > 0; i++) {
    const tag = new Reader(data.bytes(data.u8()));
    while (tag.remaining > 0) {
      const id = tag.u8();
      const value = tag.bytes(tag.u8());
      TAG_PARAMS[id]?.(value, a, `tag${i}`);
    }
  }
}

const TAG_IDS = new Set([548, 10828, 10829, 10831, 11317]);

function decodeVariable(id: number, data: Buffer, a: Attrs): void {
  if (id === 256 || id === 325) a[Attr.vin] = data.toString('latin1');
  else if (id === 281) a[Attr.dtcs] = data.toString('latin1').replace(/,/g, ' ');
  else if (id === 385) decodeBeacons(new Reader(data), a);
  else if (TAG_IDS.has(id)) decodeTags(new Reader(data), a);
  else a[indexed.io(id)] = data.toString('hex');
}

// ---------------------------------------------------------------------------------------------
// Location records

interface Session {
  last?: LastFix;
  photo?: { id: number; size: number; chunks: Buffer[]; received: number };
}

/** A record that carries no location of its own gets the connection's last known one, marked not valid. */
const withLastLocation = withLastFix;
const remember = (rec: DeviceRecord, session: Session) => rememberFix(session, rec);

/** Cell from the LAC/CID IO elements, with MCC/MNC taken from the operator code when it has one. */
function decodeNetwork(rec: DeviceRecord): void {
  const a = rec.attributes;
  const lac = a.lac;
  const cid = a.cid2g ?? a.cid4g;
  if (lac === undefined && cid === undefined) return; // most records: no delete, which would slow the object down
  delete a.lac;
  delete a.cid2g;
  delete a.cid4g;
  if (typeof lac !== 'number' || typeof cid !== 'number' || !lac || !cid) return;
  const op = typeof a.operator === 'number' && a.operator >= 1000 ? String(a.operator) : '';
  const cell: Cell = { mcc: op ? Number(op.slice(0, 3)) : 0, mnc: op ? Number(op.slice(3)) : 0, lac, cid };
  rec.cells = [cell];
}

/** GH3000: compact time since 2007, then a mask of which location parts follow. */
function decodeGh3000Location(r: Reader, rec: DeviceRecord): number {
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
    const cell: Cell = { mcc: 0, mnc: 0, lac: r.u16(), cid: r.u16() };
    if (mask & 0x40) cell.rssi = r.u8();
    if (mask & 0x80) {
      const op = String(r.u32());
      if (op.length > 3) Object.assign(cell, { mcc: Number(op.slice(0, 3)), mnc: Number(op.slice(3)) });
    }
    rec.cells = [cell];
  } else {
    if (mask & 0x40) rec.attributes[Attr.rssi] = r.u8();
    if (mask & 0x80) rec.attributes[Attr.operator] = r.u32();
  }
  return globalMask;
}

function decodeAvlLocation(r: Reader, rec: DeviceRecord, codec: number): void {
  rec.time = r.u32() * 4294967296 + r.u32();
  rec.attributes.priority = r.u8();
  rec.lng = r.i32() / 1e7;
  rec.lat = r.i32() / 1e7;
  rec.altitude = r.i16();
  rec.course = r.u16();
  rec.satellites = r.u8();
  rec.valid = rec.satellites !== 0;
  rec.speed = r.u16(); // km/h
  rec.attributes[Attr.event] = codec === CODEC_8E || codec === CODEC_16 ? r.u16() : r.u8();
  if (codec === CODEC_16) rec.attributes.generation = r.u8();
  if (codec === CODEC_8E) r.u16();
  else r.u8(); // total IO count
}

function decodeLocation(r: Reader, codec: number, ctx: DecodeContext): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  const model = typeof ctx.config.modelOverride === 'string' ? ctx.config.modelOverride : undefined;
  const wide = codec === CODEC_8E; // counts and ids on 2 bytes
  const wideId = wide || codec === CODEC_16;

  let globalMask = 0x0f;
  if (codec === CODEC_GH3000) globalMask = decodeGh3000Location(r, rec);
  else decodeAvlLocation(r, rec, codec);

  const table = ioTable(codec, model);
  for (let i = 0; i < 3; i++) {
    if (!(globalMask & (2 << i))) continue;
    const size = 1 << i;
    for (let n = wide ? r.u16() : r.u8(); n > 0; n--) {
      const ioId = wideId ? r.u16() : r.u8();
      decodeIo(table, ioId, r.buf, r.skip(size).pos - size, size, a);
    }
  }
  if (codec !== CODEC_GH3000) {
    for (let n = wide ? r.u16() : r.u8(); n > 0; n--) {
      const ioId = wideId ? r.u16() : r.u8();
      decodeIo(table, ioId, r.buf, r.skip(8).pos - 8, 8, a);
    }
  }
  if (ctx.config.extended === true) {
    for (let n = wide ? r.u16() : r.u8(); n > 0; n--) {
      const ioId = wideId ? r.u16() : r.u8();
      a[indexed.io(ioId)] = r.hex(16);
    }
  }
  if (codec === CODEC_8E) {
    for (let n = r.u16(); n > 0; n--) {
      const ioId = r.u16();
      decodeVariable(ioId, r.bytes(r.u16()), a);
    }
  }
  decodeNetwork(rec);
  if (model && FAMILY.fm6(model) && typeof a.io195 === 'number' && typeof a.io196 === 'number') {
    const id = Buffer.alloc(16);
    id.writeBigInt64BE(BigInt(a.io195), 0);
    id.writeBigInt64BE(BigInt(a.io196), 8);
    a[Attr.driverUniqueId] = id.toString('latin1');
  }
  return rec;
}

// ---------------------------------------------------------------------------------------------
// Codec 12/13/14: text and binary replies, camera

/** Printable as the device means it: ASCII 0x20..0x7f plus CR/LF. */
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

function decodeData(r: Reader, ctx: DecodeContext, session: Session): { records: DeviceRecord[]; reply?: Buffer; count: number } {
  const codec = r.u8();
  const count = r.u8();
  const records: DeviceRecord[] = [];
  let reply: Buffer | undefined;
  for (let i = 0; i < count; i++) {
    let rec: DeviceRecord = { attributes: {} };
    if (codec === CODEC_12) {
      const type = r.u8();
      if (type === 0x0d) {
        reply = decodeCamera(r, session, rec) ?? reply;
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
    } else if (codec === CODEC_8 || codec === CODEC_8E || codec === CODEC_16 || codec === CODEC_GH3000) {
      rec = decodeLocation(r, codec, ctx);
    } else {
      throw new DecodeError(`unknown codec 0x${codec.toString(16)}`);
    }
    if (rec.lat !== undefined) remember(rec, session);
    else if (Object.keys(rec.attributes).length) withLastLocation(rec, session);
    else continue;
    records.push(rec);
  }
  return { records, reply, count: codec === CODEC_12 || codec === CODEC_13 || codec === CODEC_14 ? -1 : count };
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

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
  return { records, reply: count >= 0 ? u32(count) : reply };
}

function decodeUdp(frame: Buffer, ctx: DecodeContext, session: Session): DecodeResult {
  const r = new Reader(frame);
  r.u16(); // length
  const packetId = r.u16();
  r.u8(); // packet type
  const avlPacketId = r.u8();
  const imei = r.ascii(r.u16());
  if (!/^[0-9]{1,20}$/.test(imei)) throw new DecodeError('bad IMEI');
  const { records, reply, count } = decodeData(r, { ...ctx, deviceId: imei }, session);
  if (count < 0) return { deviceId: imei, records, reply };
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
  encode,
};
