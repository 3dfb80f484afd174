/**
 * JT/T 808 (Huabao and the many devices that speak it), plus the vendor extensions seen in the field.
 *
 * Frame: 0x7e | msgId u16 | attributes u16 | [version u8] | terminal phone (6 BCD, 10 in 2019) | serial u16
 *        | [packet total u16, packet no u16] | body | xor checksum | 0x7e, with 0x7e/0x7d escaped as
 *        7d 02 / 7d 01 between the delimiters. A few devices use 0xe7 as delimiter with a 7-byte id.
 * Times are BCD in the terminal's zone (GMT+8 by default, `config.timezone` overrides).
 * Some devices also send plain text frames in parentheses, e.g. `(id,1,001,BASE,2,TIME)`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, xorSum } from './binary.ts';
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

const MSG = {
  terminalResponse: 0x0001,
  heartbeat: 0x0002,
  logout: 0x0003,
  register: 0x0100,
  auth: 0x0102,
  parameterQueryResponse: 0x0104,
  terminalAttributes: 0x0107,
  timeSyncRequest: 0x0109,
  location: 0x0200,
  locationQueryResponse: 0x0201,
  locationBatch2: 0x0210,
  heartbeat2: 0x0506,
  commandResponse: 0x0701,
  driverIdentity: 0x0702,
  locationBatch: 0x0704,
  transparent: 0x0900,
  timezoneSync: 0x1007,
  textResponse: 0x1300,
  acceleration: 0x2070,
  location2: 0x5501,
  location2Blind: 0x5502,
  reportText: 0x6006,
  photo: 0x8888,
  // platform -> terminal
  generalResponse: 0x8001,
  generalResponse2: 0x4401,
  registerResponse: 0x8100,
  setParameters: 0x8103,
  terminalControl: 0x8105,
  timeSyncResponse: 0x8109,
  locationQuery: 0x8201,
  sendText: 0x8300,
  transparentDown: 0x8900,
  oilControl: 0xa006,
} as const;

/** Messages the platform acknowledges with a general response (0x8001) and nothing else to decode. */
const ACK_ONLY = new Set<number>([MSG.auth, MSG.heartbeat2, MSG.photo, MSG.logout, MSG.timezoneSync]);

const PADLOCK_MODELS = new Set(['G-360P', 'G-508P']);
const AOVX_MODELS = new Set(['AL300', 'GL100']);
const JC_MODELS = new Set(['JC371', 'JC181', 'JC182', 'JC450', 'JC451']);
const MV_MODELS = new Set(['MV810G', 'MV710G']);

const MAX_FRAME = 4096; // body length is 10 bits; escaping can at most double it
const MAX_GARBAGE = 1024; // bytes tolerated before a start marker (some devices prefix "$$")

// ---------------------------------------------------------------------------------------------
// Framer

const isStart = (b: number) => b === 0x7e || b === 0xe7 || b === 0x28; // '(' starts a text frame

/** Un-escape the bytes between (and including) the delimiters. An invalid pair is kept as is. */
function unescape(buf: Buffer, start: number, end: number): Buffer {
  const alt = buf[start] === 0xe7;
  const out = Buffer.allocUnsafe(end - start + 1);
  let n = 0;
  for (let i = start; i <= end; i++) {
    const b = buf[i];
    const ext = i < end ? buf[i + 1] : -1;
    let v = -1;
    if (!alt && b === 0x7d) v = ext === 0x01 ? 0x7d : ext === 0x02 ? 0x7e : -1;
    else if (alt && b === 0xe6) v = ext === 0x01 ? 0xe6 : ext === 0x02 ? 0xe7 : -1;
    else if (alt && b === 0x3e) v = ext === 0x01 ? 0x3e : ext === 0x02 ? 0x3d : -1;
    if (v >= 0) {
      out[n++] = v;
      i++;
    } else out[n++] = b;
  }
  return out.subarray(0, n);
}

function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      // skip junk, and a lone closing delimiter left over from a frame we joined half-way
      while (start < buf.length && (!isStart(buf[start]) || (buf[start] !== 0x28 && buf[start + 1] === buf[start]))) start++;
      if (start > MAX_GARBAGE) throw new FrameError('jt808: no frame start');
      if (start + 1 >= buf.length) return null;
      const delimiter = buf[start] === 0x28 ? 0x29 : buf[start];
      const end = buf.indexOf(delimiter, start + 1);
      if (end < 0) {
        if (buf.length - start > MAX_FRAME) throw new FrameError('jt808: frame too long');
        return null;
      }
      const frame = delimiter === 0x29 ? buf.subarray(start, end + 1) : unescape(buf, start, end);
      return { frame, consumed: end + 1 };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const bit = (value: number, n: number) => Math.floor(value / 2 ** n) % 2 === 1;
const bcd = (b: number) => (b >> 4) * 10 + (b & 0x0f);
/** Trim control characters and spaces at both ends (a loop: a regex would go quadratic on long blanks). */
function trimJava(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}
function stripNul(s: string): string {
  let b = s.length;
  while (b > 0 && s.charCodeAt(b - 1) === 0) b--;
  return s.slice(0, b);
}

const gbk = new TextDecoder('gbk');
const utf16be = new TextDecoder('utf-16be');

function newRecord(time?: number): DeviceRecord {
  return { time, attributes: {} };
}
function set(rec: DeviceRecord, key: string, value: AttrValue): void {
  rec.attributes[key] = value;
}
/** Alarms accumulate comma-separated, in the order the message states them. */
function addAlarm(rec: DeviceRecord, alarm: string): void {
  const prev = rec.attributes[Attr.alarm];
  rec.attributes[Attr.alarm] = prev === undefined ? alarm : `${prev},${alarm}`;
}

/** Terminal clock offset, ms. JT/T 808 devices report Beijing time unless configured otherwise. */
function zoneOffset(config: Record<string, unknown>): number {
  const tz = config.timezone;
  if (typeof tz === 'number') return tz * 3600e3;
  const m = typeof tz === 'string' ? /([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(tz) : null;
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600e3 + Number(m[3] ?? 0) * 60e3);
  return tz === 'UTC' || tz === 'GMT' ? 0 : 8 * 3600e3;
}

/** yy MM dd HH mm ss, BCD, in the terminal's zone. */
function readDate(r: Reader, offset: number): number {
  const [y, mo, d, h, mi, s] = [...r.bytes(6)].map(bcd);
  return Date.UTC(2000 + y, mo - 1, d, h, mi, s) - offset;
}

function luhn(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** The terminal id: BCD phone number, or (devices that put a binary IMEI there) the IMEI. */
function decodeId(id: Buffer): string {
  const hex = id.toString('hex');
  if (/^[0-9]+$/.test(hex)) return hex;
  const imei = String(id.readUInt16BE(0) * 2 ** 32 + id.readUInt32BE(2));
  return imei + luhn(imei);
}

// ---------------------------------------------------------------------------------------------
// Outgoing messages

function escape(buf: Buffer, delimiter: number): Buffer {
  const out: number[] = [];
  for (const b of buf) {
    if (delimiter === 0x7e && (b === 0x7e || b === 0x7d)) out.push(0x7d, b === 0x7d ? 0x01 : 0x02);
    else if (delimiter === 0xe7 && (b === 0xe7 || b === 0xe6)) out.push(0xe6, b === 0xe6 ? 0x01 : 0x02);
    else if (delimiter === 0xe7 && (b === 0x3e || b === 0x3d)) out.push(0x3e, b === 0x3e ? 0x01 : 0x02);
    else out.push(b);
  }
  return Buffer.from(out);
}

interface Envelope {
  id: Buffer;
  delimiter?: number;
  version?: number;
  /** 1-byte serial (0x4401 replies to 0x5501 reports). */
  shortIndex?: boolean;
}

function formatMessage(type: number, body: Buffer, env: Envelope): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE((body.length & 0x3ff) | (env.version !== undefined ? 0x4000 : 0), 2);
  const version = env.version !== undefined ? Buffer.from([env.version]) : Buffer.alloc(0);
  const serial = env.shortIndex ? Buffer.from([1]) : Buffer.alloc(2);
  const content = Buffer.concat([head, version, env.id, serial, body]);
  const delimiter = env.delimiter ?? 0x7e;
  const d = Buffer.from([delimiter]);
  return Buffer.concat([d, escape(Buffer.concat([content, Buffer.from([xorSum(content)])]), delimiter), d]);
}

function generalResponse(h: Header, type = h.type): Buffer {
  const body = Buffer.alloc(5);
  body.writeUInt16BE(h.index, 0);
  body.writeUInt16BE(type, 2);
  body[4] = 0; // success
  return formatMessage(MSG.generalResponse, body, h);
}

// ---------------------------------------------------------------------------------------------
// Header

interface Header extends Envelope {
  type: number;
  attribute: number;
  bodyLength: number;
  index: number;
  uniqueId: string;
  /** Reader over the body (checksum and end delimiter excluded). */
  r: Reader;
}

function readHeader(frame: Buffer): Header {
  const delimiter = frame[0];
  if (frame.length < 15 || frame[frame.length - 1] !== delimiter) throw new DecodeError('jt808: bad frame');
  const r = new Reader(frame, 1, frame.length - 2);
  const type = r.u16();
  const attribute = r.u16();
  const bodyLength = attribute & 0x3ff;
  const shortIndex = type === MSG.location2 || type === MSG.location2Blind;
  // Bit 14 announces the 2019 header, but some 2013 devices set it too: trust the frame length.
  const legacy = frame.length === 15 + bodyLength + (shortIndex ? -1 : 0);
  const version = attribute & 0x4000 && !legacy ? r.u8() : undefined;
  const id = r.bytes(version !== undefined ? 10 : delimiter === 0xe7 ? 7 : 6);
  const index = shortIndex ? r.u8() : r.u16();
  if (attribute & 0x2000 && type !== MSG.location2 && type !== MSG.location2Blind) r.skip(4); // sub-package numbers
  return { delimiter, type, attribute, bodyLength, version, id, index, uniqueId: decodeId(id), r, shortIndex };
}

// ---------------------------------------------------------------------------------------------
// Location report (0x0200) with its additional information items

interface Item {
  r: Reader;
  rec: DeviceRecord;
  len: number;
  end: number;
  /** End of the enclosing body (the 0x80 OBD block runs to it). */
  bodyEnd: number;
  model?: string;
  cells: Cell[];
  id: number;
}
type ItemDecoder = (c: Item) => void;

type AlarmBits = Array<[number[], string]>;
const PADLOCK_ALARMS: AlarmBits = [[[0, 4], Alarm.removing], [[1], Alarm.tampering]];
const AOVX_ALARMS: AlarmBits = [[[16], Alarm.movement]];
/** JT/T 808 alarm flag bits (table 24 of the standard) and the alarms they raise. */
const STANDARD_ALARMS: AlarmBits = [
  [[0], Alarm.sos],
  [[1], Alarm.overspeed],
  [[2], Alarm.fatigueDriving],
  [[5, 6], Alarm.gpsAntennaCut],
  [[4, 9, 10, 11], Alarm.fault],
  [[7, 18], Alarm.lowBattery],
  [[8], Alarm.powerOff],
  [[15], Alarm.vibration],
  [[16, 17], Alarm.tampering],
  [[19], Alarm.parking],
  [[20], Alarm.geofence],
  [[26], Alarm.general],
  [[28], Alarm.movement],
  [[29, 30], Alarm.accident],
];
const VL300_ALARMS = STANDARD_ALARMS.slice(0, -1); // its bits 29/30 mean something else

function alarmsFromFlags(rec: DeviceRecord, model: string | undefined, value: number): void {
  if (!value) return;
  const table = PADLOCK_MODELS.has(model ?? '') ? PADLOCK_ALARMS
    : AOVX_MODELS.has(model ?? '') ? AOVX_ALARMS
      : model === 'VL300' ? VL300_ALARMS : STANDARD_ALARMS;
  for (const [bits, alarm] of table) if (bits.some((b) => bit(value, b))) addAlarm(rec, alarm);
}

/** Status word and coordinates (shared by 0x0200 and the 0x0900 vendor reports). */
function decodeCoordinates(r: Reader, rec: DeviceRecord, model?: string): void {
  const status = r.u32();
  set(rec, Attr.ignition, bit(status, 0));
  if (model === 'G1C Pro') set(rec, Attr.motion, bit(status, 4));
  set(rec, Attr.blocked, bit(status, 10));
  if (MV_MODELS.has(model ?? '')) set(rec, Attr.door, bit(status, 16));
  set(rec, Attr.charge, bit(status, 26));
  rec.valid = bit(status, 1);
  const lat = r.u32() / 1e6;
  const lng = r.u32() / 1e6;
  rec.lat = bit(status, 2) ? -lat : lat;
  rec.lng = bit(status, 3) ? -lng : lng;
}

/** Fixed-point pair: signed integer part, then 1/255 fractions. */
function customDouble(r: Reader): number {
  const b1 = r.i8();
  const b2 = r.u8();
  return (b1 < 0 ? -1 : 1) * (Math.abs(b1) + b2 / 255);
}

const signedMagnitude = (v: number) => (v & 0x8000 ? -(v & 0x7fff) : v & 0x7fff);

/** `$OBD-RT,power,rpm,speed,throttle,load,coolant,instant,average,trip,odometer,tripFuel,fuelUsed`. */
const OBD_RT_FIELDS = [Attr.power, Attr.rpm, 'obdSpeed', Attr.throttle, Attr.engineLoad, Attr.coolantTemp,
  Attr.fuelConsumption, Attr.fuelConsumption, 'tripOdometer', 'obdOdometer', 'tripFuelUsed', Attr.fuelUsed];

function decodeObdRt(rec: DeviceRecord, text: string): void {
  const values = text.split(',');
  OBD_RT_FIELDS.forEach((key, i) => {
    const v = values[i + 1];
    if (v !== undefined && v !== '' && Number.isFinite(Number(v))) set(rec, key, Number(v));
  });
}

/** Items of the 0x80 OBD block: id -> (reader -> value) under a fixed name. */
const OBD_ITEMS: Record<number, [string, (r: Reader, len: number) => AttrValue]> = {
  0x01: [Attr.odometer, (r) => r.u32() * 100],
  0x02: [Attr.fuel, (r) => r.u16() / 10],
  0x03: ['obdSpeed', (r) => r.u16() / 10],
  0x56: [Attr.batteryLevel, (r) => (r.skip(1), r.u8())],
  0x61: [Attr.power, (r) => r.u16() / 100],
  0x69: [Attr.battery, (r) => r.u16() / 100],
  0x80: ['obdSpeed', (r) => r.u8()],
  0x81: [Attr.rpm, (r) => r.u16()],
  0x82: [Attr.power, (r) => r.u16() / 10],
  0x83: [Attr.engineLoad, (r) => r.u8()],
  0x84: [Attr.coolantTemp, (r) => r.u8() - 40],
  0x85: [Attr.fuelConsumption, (r) => r.u16()],
  0x86: ['intakeTemp', (r) => r.u8() - 40],
  0x87: ['intakeFlow', (r) => r.u16()],
  0x88: ['intakePressure', (r) => r.u8()],
  0x89: [Attr.throttle, (r) => r.u8()],
  0x8b: [Attr.vin, (r) => r.ascii(17)],
  0x8c: ['obdOdometer', (r) => r.u32() * 100],
  0x8d: ['tripOdometer', (r) => r.u16() * 1000],
  0x8e: [Attr.fuel, (r) => r.u8()],
  0xa0: [Attr.dtcs, (r, len) => r.ascii(len).replace(/,/g, ' ')],
  0xcc: [Attr.iccid, (r) => r.ascii(20)],
};

function decodeObdBlock(c: Item): void {
  const { rec } = c;
  const r = new Reader(c.r.buf, c.r.pos, c.bodyEnd); // the block runs to the end of the report
  c.end = c.bodyEnd;
  r.skip(1); // content flag
  while (r.pos + 2 <= c.bodyEnd) {
    const id = r.u8();
    const len = r.u8();
    const end = r.pos + len;
    const item = OBD_ITEMS[id];
    if (item) set(rec, item[0], item[1](r, len));
    r.pos = Math.max(r.pos, Math.min(end, c.bodyEnd));
  }
}

/** 0xEB as a list of u16-length, u16-type sub-items (battery, ICCID, alarms...). */
const EB_ITEMS: Record<number, (r: Reader, rec: DeviceRecord, len: number, cells: Cell[]) => void> = {
  0x0001: (r, rec) => set(rec, 'fuel1', r.u16() / 10),
  0x0023: (r, rec) => {
    const v = Number(r.ascii(6));
    if (Number.isFinite(v)) set(rec, 'fuel2', v);
  },
  0x002d: (r, rec, len) => (len === 6 ? set(rec, Attr.power, r.u32() / 1000) : set(rec, Attr.battery, r.u16() / 1000)),
  0x0089: (r, rec) => {
    const v = r.u32();
    if (!bit(v, 0)) addAlarm(rec, Alarm.powerOff);
    if (!bit(v, 12)) addAlarm(rec, Alarm.removing);
  },
  0x00b2: (r, rec) => set(rec, Attr.iccid, r.hex(10).replace(/f+$/, '')),
  0x00c5: (r, rec) => {
    const v = r.u32();
    if (!bit(v, 6)) addAlarm(rec, Alarm.vibration);
    const motion = Math.floor(v / 2 ** 23) % 4;
    if (motion <= 1) set(rec, Attr.motion, motion === 0);
  },
  0x00c6: (r, rec) => {
    const v = r.u8();
    if (v === 0x03 || v === 0x04) set(rec, Attr.alarm, Alarm.lowBattery);
    set(rec, 'batteryAlarm', v);
  },
  0x00ce: (r, rec) => set(rec, Attr.power, r.u16() / 100),
  0x00d8: (r, _rec, _len, cells) => cells.push({ mcc: r.u16(), mnc: r.u8(), lac: r.u16(), cid: r.u32() }),
  0x00a8: (r, rec) => set(rec, Attr.batteryLevel, r.u8()),
  0x00e1: (r, rec) => set(rec, Attr.batteryLevel, r.u8()),
};

const isPrintable = (b: Buffer) => b.every((x) => x >= 0x20 && x < 0x7f);

function decodeEb({ r, rec, len, end, cells }: Item): void {
  if (len >= 3 && r.buf.readUInt16BE(r.pos) > 200 && (len - 3) % 5 === 0) {
    const mcc = r.u16();
    const mnc = r.u8();
    while (r.pos < end) cells.push({ mcc, mnc, lac: r.u16(), cid: r.u16(), rssi: r.u8() });
  } else if (isPrintable(r.buf.subarray(r.pos, end))) {
    set(rec, 'timezone', r.ascii(len));
  } else {
    while (r.pos < end) {
      const subLen = r.u16();
      const subEnd = r.pos + subLen;
      const type = r.u16();
      EB_ITEMS[type]?.(r, rec, subLen, cells);
      r.pos = subEnd;
    }
  }
}

/** JC (Jimi dashcam) 0xE8: a typed status block or an alarm code. */
const JC_ALARMS: Record<number, string> = {
  0x0001: Alarm.fault,
  0x0400: Alarm.hardAcceleration, 0x0412: Alarm.hardAcceleration,
  0x0401: Alarm.hardBraking, 0x0413: Alarm.hardBraking,
  0x0402: Alarm.hardCornering, 0x0414: Alarm.hardCornering,
  0x0403: Alarm.overspeed,
  0x0405: Alarm.accident, 0x0416: Alarm.accident, 0x0417: Alarm.accident,
  0x0406: Alarm.vibration,
  0x0407: Alarm.tow,
  0x0408: Alarm.geofenceEnter,
  0x0409: Alarm.geofenceExit,
  0x040c: Alarm.door,
  0x0415: Alarm.laneChange,
  0x0c01: Alarm.sos,
  0x0c02: Alarm.lowPower,
  0x0c05: Alarm.general,
  0x0c0e: Alarm.powerCut,
  0x0c0f: Alarm.lowBattery,
  0x0c10: Alarm.powerOff,
  0x0c12: Alarm.tampering,
};

const JC_STATUS: Record<number, (r: Reader, rec: DeviceRecord) => void> = {
  0x0001: (r, rec) => set(rec, Attr.battery, r.u16() / 100),
  0x0002: (r, rec) => set(rec, 'dataUsage', r.u32()),
  0x0003: (r, rec) => set(rec, Attr.batteryLevel, r.u8()),
  0x0004: (r, rec) => set(rec, Attr.charge, r.u8() === 0),
  0x0005: (r, rec) => set(rec, Attr.iccid, r.hex(10).substring(0, 19)),
  0x0007: (r, rec) => (rec.hdop = r.u16() / 10),
  0x2001: (r, rec) => set(rec, Attr.power, r.u16() / 10),
};

function decodeJc({ r, rec, end }: Item): void {
  const type = r.u16();
  if (type === 0x2002) {
    r.skip(1);
    set(rec, 'uploadMode', r.u8());
    set(rec, 'buffered', r.u8() === 1);
  } else if (type === 0x2003) {
    r.skip(1);
    set(rec, Attr.charge, r.u8() === 1);
    const level = r.u8();
    if (level >= 1 && level <= 6) set(rec, Attr.batteryLevel, Math.floor((level * 100) / 6));
    set(rec, Attr.battery, r.u16() / 100);
    set(rec, Attr.rssi, r.u8());
    set(rec, Attr.power, r.u16() / 100);
  } else if (type === 0x2005) {
    r.skip(1);
    while (r.pos < end) {
      const id = r.u16();
      const len = r.u8();
      const start = r.pos;
      const statusEnd = start + len;
      JC_STATUS[id]?.(r, rec);
      r.pos = Math.max(start, statusEnd);
    }
  } else if (type === 0x0c03 || type === 0x0c04) {
    set(rec, Attr.ignition, type === 0x0c03);
  } else if (JC_ALARMS[type]) {
    addAlarm(rec, JC_ALARMS[type]);
  }
}

/** Non-AOVX 0xF3: OBD items with u16 type and u8 length. */
const F3_OBD: Record<number, [string, (r: Reader, len: number) => AttrValue | undefined]> = {
  0x0002: ['obdSpeed', (r) => r.u16() / 10],
  0x0003: [Attr.rpm, (r) => r.u16()],
  0x0004: [Attr.power, (r) => r.u16() / 1000],
  0x0005: ['obdOdometer', (r) => r.u32() * 100],
  0x0007: [Attr.fuelConsumption, (r) => r.u16() / 10],
  0x0008: [Attr.engineLoad, (r) => r.u16() / 10],
  0x0009: [Attr.coolantTemp, (r) => r.u16() - 40],
  0x000b: ['intakePressure', (r) => r.u16()],
  0x000c: ['intakeTemp', (r) => r.u16() - 40],
  0x000d: ['intakeFlow', (r) => r.u16()],
  0x000e: [Attr.throttle, (r) => Math.floor((r.u16() * 100) / 255)],
  0x0050: [Attr.vin, (r) => stripNul(r.ascii(17))],
  0x0051: ['cvn', (r, len) => (len > 0 ? r.hex(len) : undefined)],
  0x0052: ['calid', (r, len) => (len > 0 ? stripNul(r.ascii(len)) : undefined)],
  0x0100: ['tripOdometer', (r) => r.u16() / 10],
  0x0102: ['tripFuel', (r) => r.u16() / 10],
  0x0112: ['hardAccelerationCount', (r) => r.u16()],
  0x0113: ['hardDecelerationCount', (r) => r.u16()],
  0x0114: ['hardCorneringCount', (r) => r.u16()],
};

function decodeF3({ r, rec, end, model }: Item): void {
  if (AOVX_MODELS.has(model ?? '')) {
    // BLE tags; the mask says which optional fields follow each MAC + RSSI
    const mask = r.u8();
    for (let i = 1; r.pos < end; i++) {
      set(rec, `tag${i}Mac`, r.hex(6));
      set(rec, `tag${i}Rssi`, r.i8());
      if (bit(mask, 0)) set(rec, `tag${i}Name`, trimJava(r.ascii(10)));
      if (bit(mask, 1)) r.skip(2); // firmware version
      if (bit(mask, 2)) set(rec, `tag${i}Battery`, r.u16() / 1000);
      if (bit(mask, 3)) set(rec, `tag${i}Temp`, r.i16() / 10);
      if (bit(mask, 4)) set(rec, `tag${i}Humidity`, r.i16() / 10);
      if (bit(mask, 5)) r.skip(6); // accelerometer
      if (bit(mask, 6)) r.skip(2);
      if (bit(mask, 7)) r.skip(2);
    }
    return;
  }
  while (r.pos + 3 <= end) {
    const type = r.u16();
    const len = r.u8();
    const subEnd = r.pos + len;
    const item = F3_OBD[type];
    const value = item ? item[1](r, len) : undefined;
    if (item && value !== undefined) set(rec, item[0], value);
    r.pos = subEnd;
  }
}

function decodeF6({ r, rec, len, model }: Item): void {
  const aovx = AOVX_MODELS.has(model ?? '');
  if (!aovx && len === 2) return set(rec, 'airPressure', r.u16());
  if (!aovx && len === 8) return set(rec, 'imei', r.hex(8).substring(1));
  const event = r.u8();
  set(rec, Attr.event, event);
  if (event === 2) set(rec, Attr.motion, true);
  const mask = r.u8();
  if (bit(mask, 0)) set(rec, 'lightSensor', r.u16());
  if (bit(mask, 1)) set(rec, indexed.temp(1), r.i16() / 10);
  if (bit(mask, 2)) set(rec, 'humidity', r.i16() / 10);
  if (bit(mask, 3)) set(rec, 'gSensor', `[${r.i16()},${r.i16()},${r.i16()}]`);
  if (bit(mask, 4)) r.skip(10); // threshold configuration
  if (bit(mask, 5)) set(rec, 'airPressure', r.u16());
}

function decodeBatteryOrCells(c: Item): void {
  const { r, rec, len, id, end, cells } = c;
  if (len === 1) {
    const level = r.u8();
    if (level === 0xff) set(rec, Attr.charge, true);
    else set(rec, Attr.batteryLevel, level);
  } else if (id === 0xe1 && len >= 12 && (len - 4) % 8 === 0) {
    const mcc = r.u16();
    const mnc = r.u16();
    while (r.pos < end) {
      const lac = r.u24();
      const cid = r.u32();
      const rssi = r.u8();
      if (lac > 0 && lac <= 0xffff && cid <= 0xfffffff) cells.push({ mcc, mnc, lac, cid, rssi });
    }
  } else if (id === 0xe1 && len === 2) {
    set(rec, Attr.power, r.u16() / 10);
  } else {
    set(rec, Attr.driverUniqueId, String(r.u32()));
  }
}

function decodeLock(r: Reader, rec: DeviceRecord, len: number): void {
  set(rec, 'lockCommand', r.u8());
  if (len >= 5 && len <= 6) set(rec, 'lockCard', r.u32());
  else if (len >= 7) set(rec, 'lockPassword', r.ascii(6));
  if (len % 2 === 0) set(rec, 'unlockResult', r.u8());
}

const HARD_DRIVING = [Alarm.hardAcceleration, Alarm.hardBraking, Alarm.hardCornering, Alarm.accident, Alarm.tampering];

/** Additional information items of a location report, by id. */
const ITEMS: Record<number, ItemDecoder> = {
  0x01: ({ r, rec }) => set(rec, Attr.odometer, r.u32() * 100), // 0.1 km
  0x02: ({ r, rec }) => {
    const v = r.u16();
    set(rec, Attr.fuel, v & 0x8000 ? v & 0x7fff : v / 10);
  },
  0x06: ({ r, rec }) => set(rec, Attr.batteryLevel, r.u8()),
  0x0b: ({ r, rec, len }) => decodeLock(r, rec, len),
  0x14: ({ r, rec }) => set(rec, 'videoAlarm', r.u32()),
  0x25: ({ r, rec }) => set(rec, Attr.input, r.u32()),
  0x2b: ({ r, rec }) => {
    set(rec, indexed.adc(1), r.u16() / 100);
    set(rec, indexed.adc(2), r.u16() / 100);
  },
  0x30: ({ r, rec }) => set(rec, Attr.rssi, r.u8()),
  0x31: ({ r, rec }) => {
    rec.satellites = r.u8();
    set(rec, 'sat', rec.satellites);
  },
  0x33: ({ r, rec, len }) => {
    if (len === 1) return set(rec, 'mode', r.u8());
    const text = r.ascii(len);
    const volts = text.startsWith('*M00') ? Number(text.substring(10, 13)) : NaN;
    if (Number.isFinite(volts)) set(rec, Attr.battery, volts / 100);
  },
  0x51: ({ r, rec, len }) => {
    if (len !== 2 && len !== 16) return;
    for (let i = 1; i <= len / 2; i++) {
      const v = r.u16();
      if (v !== 0xffff) set(rec, indexed.temp(i), signedMagnitude(v) / 10);
    }
  },
  0x56: ({ r, rec }) => set(rec, Attr.batteryLevel, r.u8() * 10),
  0x57: ({ r, rec, model }) => {
    const a = r.u16();
    if (bit(a, 8)) addAlarm(rec, Alarm.hardAcceleration);
    if (bit(a, 9)) addAlarm(rec, Alarm.hardBraking);
    if (bit(a, 10)) addAlarm(rec, Alarm.hardCornering);
    r.skip(2); // external switch state
    if (bit(r.u32(), 16) && MV_MODELS.has(model ?? '')) addAlarm(rec, Alarm.door);
  },
  0x60: ({ r, rec }) => {
    const event = r.u16();
    set(rec, Attr.event, event);
    if (event >= 0x61 && event <= 0x66) set(rec, Attr.driverUniqueId, r.skip(6).ascii(8));
  },
  0x63: ({ r, rec, len }) => {
    for (let i = 1; i <= Math.floor(len / 11); i++) {
      set(rec, `lock${i}Id`, r.hex(6));
      set(rec, `lock${i}Battery`, r.u16() / 1000);
      set(rec, `lock${i}Seal`, r.u8() === 0x31);
      r.skip(2); // physical state, rssi
    }
  },
  0x64: ({ r, rec, len, end, id }) => {
    set(rec, id === 0x64 ? 'adasAlarm' : 'dmsAlarm', r.skip(5).u8());
    if (len >= 47) set(rec, 'alarmLabel', ((r.pos = end - 16), r.hex(16)));
  },
  0x67: ({ r, rec }) => set(rec, 'password', r.ascii(8)),
  0x68: ({ r, rec }) => set(rec, Attr.batteryLevel, r.u16() / 100),
  0x69: ({ r, rec }) => set(rec, Attr.battery, r.u16() / 100),
  0x70: ({ r, rec }) => {
    const a = { 0x01: Alarm.hardAcceleration, 0x02: Alarm.hardBraking, 0x03: Alarm.hardCornering, 0x16: Alarm.accident }[r.skip(5).u8()];
    if (a) addAlarm(rec, a);
  },
  0x77: ({ r, rec, end }) => {
    while (r.pos < end) {
      const i = r.u8();
      set(rec, `tire${i}SensorId`, r.hex(3));
      set(rec, `tire${i}Pressure`, (r.u16() & 0x3ff) / 40);
      set(rec, `tire${i}Temp`, r.u8() - 50);
      set(rec, `tire${i}Status`, r.u8());
    }
  },
  0x80: decodeObdBlock,
  0x82: ({ r, rec }) => set(rec, Attr.power, r.u16() / 10),
  0x91: ({ r, rec }) => {
    set(rec, Attr.battery, r.u16() / 10);
    set(rec, Attr.rpm, r.u16());
    set(rec, 'obdSpeed', r.u8());
    set(rec, Attr.throttle, Math.floor((r.u8() * 100) / 255));
    set(rec, Attr.engineLoad, Math.floor((r.u8() * 100) / 255));
    set(rec, Attr.coolantTemp, r.u8() - 40);
    set(rec, Attr.fuelConsumption, r.skip(2).u16() / 100);
    set(rec, Attr.fuelUsed, r.skip(8).u16() / 100);
  },
  0x94: ({ r, rec, len }) => len > 0 && set(rec, Attr.vin, r.ascii(len)),
  0xac: ({ r, rec }) => set(rec, Attr.odometer, r.u32()),
  0xbc: ({ r, rec, len }) => set(rec, 'driver', trimJava(r.ascii(len))),
  0xbd: ({ r, rec, len }) => set(rec, Attr.driverUniqueId, r.ascii(len)),
  0xd0: ({ r, rec }) => bit(r.u32(), 3) && addAlarm(rec, Alarm.vibration),
  0xd3: ({ r, rec }) => set(rec, Attr.power, r.u16() / 10),
  0xd4: decodeBatteryOrCells,
  0xd5: ({ r, rec, len }) => {
    if (len === 2) return set(rec, Attr.battery, r.u16() / 100);
    const count = r.u8();
    for (let i = 1; i <= count; i++) {
      set(rec, `lock${i}Id`, r.hex(5));
      set(rec, `lock${i}Card`, r.hex(5));
      set(rec, `lock${i}Battery`, r.u8());
      set(rec, `lock${i}Locked`, !bit(r.u16(), 5));
    }
  },
  0xda: ({ r, rec, len }) => {
    if (len < 3) return;
    const s = r.skip(2).u8(); // after the string-cut count
    set(rec, 'string', bit(s, 0));
    set(rec, Attr.motion, bit(s, 2));
    set(rec, 'cover', bit(s, 3));
  },
  0xe2: ({ r, rec, model }) => model !== 'DT800' && set(rec, Attr.fuel, r.u32() / 10),
  0xe3: ({ r, rec }) => {
    set(rec, Attr.batteryLevel, r.skip(1).u8());
    set(rec, Attr.battery, r.u16() / 100);
  },
  0xe4: ({ r, rec }) => {
    if (r.u8() === 0) set(rec, Attr.charge, true);
    set(rec, Attr.batteryLevel, r.u8());
  },
  0xe5: ({ r, rec, len }) => len === 1 && set(rec, Attr.motion, r.u8() === 1),
  0xe6: ({ r, rec, len, end }) => {
    if (len >= 7 && r.buf.toString('latin1', r.pos, r.pos + 7) === '$OBD-RT') return decodeObdRt(rec, r.ascii(len));
    if (len < 11 || len % 11 !== 0) return;
    while (r.pos < end) {
      const i = r.u8();
      r.skip(6); // sensor MAC
      set(rec, indexed.temp(i), customDouble(r));
      set(rec, `humidity${i}`, customDouble(r));
    }
  },
  0xe7: ({ r, rec, len }) => {
    if (len !== 8) return;
    const a = r.u16();
    if (bit(a, 0)) addAlarm(rec, Alarm.vibration);
    if (a & 0x0e) addAlarm(rec, Alarm.sos);
  },
  0xe8: (c) => (JC_MODELS.has(c.model ?? '') ? decodeJc(c) : c.len > 0 && set(c.rec, 'lockStatus', c.r.uint(Math.min(c.len, 3)))),
  0xea: ({ r, rec, len, end }) => {
    if (len <= 2) return;
    r.skip(1); // extended info type
    while (r.pos + 2 <= end) {
      const type = r.u8();
      const subEnd = r.pos + r.u8();
      if (subEnd > end) break;
      if (type === 0x11) {
        set(rec, 'externalAlarms', r.u16());
        set(rec, 'alarmThresholdType', r.u8());
      } else if (type === 0x13) set(rec, 'externalIlluminance', r.u16());
      else if (type === 0x14) set(rec, 'externalAirPressure', r.u16());
      else if (type === 0x15) set(rec, 'externalHumidity', r.u16() / 10);
      else if (type === 0x16) set(rec, 'externalTemp', r.u16() / 10 - 50);
      r.pos = subEnd;
    }
  },
  0xeb: decodeEb,
  0xed: ({ r, rec, len }) => set(rec, 'card', trimJava(r.ascii(len))),
  0xee: ({ r, rec, len }) => {
    if (len !== 6) return;
    set(rec, Attr.rssi, r.u8());
    set(rec, Attr.power, r.u16() / 1000);
    set(rec, Attr.battery, r.u16() / 1000);
    rec.satellites = r.u8();
    set(rec, 'sat', rec.satellites);
  },
  0xf0: ({ r, end, cells }) => {
    while (r.pos < end) {
      const mcc = r.u16();
      const mnc = r.u16();
      const cid = r.u32();
      const lac = r.u32();
      cells.push({ mcc, mnc, lac, cid, rssi: r.u8() });
    }
  },
  0xf1: ({ r, rec }) => set(rec, Attr.power, r.u32() / 1000),
  0xf2: ({ r, rec, len }) => set(rec, 'versionFw', r.ascii(len)),
  0xf3: decodeF3,
  0xf5: ({ r, rec, len }) => len === 2 && set(rec, 'illuminance', r.u16()),
  0xf6: decodeF6,
  0xf7: ({ r, rec, len }) => {
    if (len === 2) return set(rec, 'humidity', r.u16() / 10);
    set(rec, Attr.battery, r.u32() / 1000);
    if (len >= 5 && [2, 3].includes(r.u8())) set(rec, Attr.charge, true);
    if (len >= 6) set(rec, Attr.batteryLevel, r.u8());
  },
  0xf8: ({ r, rec, model }) => {
    if (AOVX_MODELS.has(model ?? '')) set(rec, Attr.iccid, r.skip(9).hex(10));
    else if (model === 'C5' || model === 'C5L') set(rec, Attr.steps, r.u16());
    else set(rec, indexed.temp(2), r.u16() / 10 - 50);
  },
  0xf9: ({ r, rec }) => {
    const mask = r.u16();
    if (bit(mask, 0)) r.skip(4); // GNSS age
    if (bit(mask, 1)) r.skip(4); // ACC on time
    if (bit(mask, 2)) rec.hdop = r.u16() / 10;
    if (bit(mask, 3)) r.skip(6); // GNSS time
    if (bit(mask, 5)) r.skip(8); // sampling and report interval
    if (bit(mask, 6)) set(rec, indexed.temp(3), r.i16() / 10);
  },
  0xfb: ({ r, rec, len }) => set(rec, 'container', r.ascii(len)),
  0xfc: ({ r, rec }) => set(rec, 'geofence', r.u8()),
  0xfe: ({ r, rec, len, end }) => {
    if (len === 1) return set(rec, Attr.batteryLevel, r.u8());
    if (len === 2) return set(rec, Attr.power, r.u16() / 10);
    if (len === 4) return set(rec, Attr.odometer, r.u32());
    if (r.u8() === 0x7c) {
      while (r.pos + 2 <= end) {
        const type = r.u8();
        const subEnd = r.pos + r.u8();
        if (type === 0x01) {
          const a = r.u32();
          HARD_DRIVING.forEach((alarm, b) => bit(a, b) && addAlarm(rec, alarm));
        }
        r.pos = subEnd;
      }
    }
    if (r.pos < end) set(rec, Attr.batteryLevel, r.u8());
  },
};
ITEMS[0xa7] = ITEMS[0x2b];
ITEMS[0x65] = ITEMS[0x64];
ITEMS[0xe1] = ITEMS[0xe9] = decodeBatteryOrCells;
ITEMS[0xec] = ITEMS[0xf4] = () => {}; // Wi-Fi scans: not carried by records

interface LocationContext {
  model?: string;
  offset: number;
}

/** Basic 28-byte location block followed by additional information items up to `r.end`. */
function decodeLocation(r: Reader, lc: LocationContext): DeviceRecord {
  const rec = newRecord();
  alarmsFromFlags(rec, lc.model, r.u32());
  decodeCoordinates(r, rec, lc.model);
  rec.altitude = r.i16();
  rec.speed = r.u16() / 10; // 0.1 km/h
  rec.course = r.u16();
  rec.time = readDate(r, lc.offset);
  if (r.remaining === 18) {
    // fixed trailer of some devices instead of items
    set(rec, Attr.odometer, r.skip(4).u32() * 1000);
    set(rec, Attr.battery, r.u16() / 10);
    set(rec, Attr.rssi, r.skip(4).u8());
    return rec;
  }
  const cells: Cell[] = [];
  while (r.remaining >= 2) {
    const id = r.u8();
    const len = r.u8();
    const end = r.pos + len;
    if (end > r.end) break;
    // each item reads through its own bounded reader: a vendor item we misread is dropped, not the fix
    const item: Item = { r: new Reader(r.buf, r.pos, end), rec, len, end, bodyEnd: r.end, model: lc.model, cells, id };
    try {
      ITEMS[id]?.(item);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
    }
    r.pos = item.end;
  }
  if (cells.length) rec.cells = cells;
  return rec;
}

function decodeBatch(h: Header, lc: LocationContext): DeviceRecord[] {
  const { r } = h;
  let archive = false;
  if (h.type === MSG.locationBatch) archive = r.skip(2).u8() > 0; // count, then 0 = normal, 1 = blind-spot
  const records: DeviceRecord[] = [];
  while (r.remaining > 0) {
    const length = h.type === MSG.locationBatch2 ? r.u8() : r.u16();
    const at = r.pos;
    r.skip(length);
    const rec = decodeLocation(new Reader(r.buf, at, at + length), lc);
    if (archive) set(rec, Attr.archive, true);
    records.push(rec);
  }
  return records;
}

// ---------------------------------------------------------------------------------------------
// 0x5501 / 0x5502: JT701-style report (BCD date and ddmm coordinates)

function bcdDigits(r: Reader, digits: number): number {
  let v = 0;
  for (let i = 0; i < digits >> 1; i++) {
    const b = r.u8();
    v = v * 100 + (b >> 4) * 10 + (b & 0x0f);
  }
  if (digits % 2) v = v * 10 + (r.peekU8() >> 4); // half byte: the rest of it holds flags
  return v;
}
const ddmm = (raw: number) => Math.floor(raw / 1e6) + (raw % 1e6) / 1e4 / 60;

function decodeLocation2(h: Header, ctx: DecodeContext): DeviceRecord {
  const { r } = h;
  const rec = newRecord();
  const [d, mo, y, hh, mi, s] = [...r.bytes(6)].map(bcd);
  rec.time = Date.UTC(2000 + y, mo - 1, d, hh, mi, s);
  const lat = ddmm(bcdDigits(r, 8));
  const lng = ddmm(bcdDigits(r, 9));
  const flags = r.u8();
  rec.lat = flags & 0x02 ? lat : -lat;
  rec.lng = flags & 0x04 ? lng : -lng;
  rec.speed = bcd(r.u8()) * 1.852; // knots
  rec.course = r.u8() * 2;
  rec.valid = h.type !== MSG.location2Blind;
  set(rec, Attr.rssi, r.u8());
  rec.satellites = r.u8();
  set(rec, 'sat', rec.satellites);
  set(rec, Attr.odometer, r.u32() * 1000);
  const battery = r.u8();
  if (battery <= 100) set(rec, Attr.batteryLevel, battery);
  else if (battery === 0xaa || battery === 0xab) set(rec, Attr.charge, true);
  const cid = r.u32();
  const lac = r.u16();
  const product = r.u8();
  const status = r.u16();
  const alarm = r.u16();
  if (product === 1 || product === 2) {
    if (bit(alarm, 0)) addAlarm(rec, Alarm.lowPower);
  } else if (product === 3) {
    set(rec, Attr.blocked, bit(status, 5));
    const bits = [Alarm.overspeed, Alarm.lowPower, Alarm.vibration, Alarm.lowBattery, '', Alarm.geofenceEnter, Alarm.geofenceExit];
    bits.forEach((a, b) => a && bit(alarm, b) && addAlarm(rec, a));
  }
  set(rec, Attr.status, status);
  let mcc = Number(ctx.config.mcc ?? 0);
  let mnc = Number(ctx.config.mnc ?? 0);
  while (r.remaining >= 2) {
    const id = r.u8();
    const len = r.u8();
    const end = r.pos + len;
    if (id === 0x02) rec.altitude = r.i16();
    else if (id === 0x10) set(rec, 'wakeSource', r.u8());
    else if (id === 0x0a && len === 3) [mcc, mnc] = [r.u16(), r.u8()];
    else if (id === 0x0b) decodeLock(r, rec, len);
    else if (id === 0x0c) {
      const [x, yy, z] = [r.u16(), r.u16(), r.u16()].map((v) => (v > 0x8000 ? v - 0x10000 : v));
      set(rec, 'tilt', `[${x},${yy},${z}]`);
    } else if (id === 0xfc) set(rec, 'geofence', r.u8());
    r.pos = Math.min(end, r.end);
  }
  if (cid > 0 && lac > 0) rec.cells = [{ mcc, mnc, lac, cid }];
  return rec;
}

// ---------------------------------------------------------------------------------------------
// 0x0900 transparent data (vendor payloads)

/** 0xF0 / 0x01 vehicle data items: id -> name and value. Unknown ids of 1, 2 or 4 bytes become io<id>. */
const F0_ITEMS: Record<number, [string, (r: Reader, len: number) => AttrValue]> = {
  0x0102: [Attr.odometer, (r) => r.u32() * 100],
  0x0528: [Attr.odometer, (r) => r.u32() * 100],
  0x0546: [Attr.odometer, (r) => r.u32() * 100],
  0x0103: [Attr.fuel, (r) => r.u32() / 100],
  0x0111: ['fuelTemp', (r) => r.u8() - 40],
  0x012e: ['oilLevel', (r) => r.u16() / 10],
  0x052a: [Attr.fuel, (r) => r.u16() / 100],
  0x0105: [Attr.fuelUsed, (r) => r.u32() / 100],
  0x052c: [Attr.fuelUsed, (r) => r.u32() / 100],
  0x014a: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x0537: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x0538: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x0539: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x052b: [Attr.fuel, (r) => r.u8()],
  0x052d: [Attr.coolantTemp, (r) => r.u8() - 40],
  0x052e: ['airTemp', (r) => r.u8() - 40],
  0x0530: [Attr.power, (r) => r.u16() / 1000],
  0x0535: ['obdSpeed', (r) => r.u16() / 10],
  0x0536: [Attr.rpm, (r) => r.u16()],
  0x053d: ['intakePressure', (r) => r.u16() / 10],
  0x0544: ['liquidLevel', (r) => r.u8()],
  0x0547: [Attr.throttle, (r) => r.u8()],
  0x0548: [Attr.throttle, (r) => r.u8()],
  0xfeec: [Attr.vin, (r, len) => r.ascii(len)],
};

/** 0xF0 / 0x03 event ids. */
const F0_ALARMS: Record<number, string> = {
  0x01: Alarm.powerRestored, 0x02: Alarm.powerCut, 0x0e: Alarm.idle,
  0x1a: Alarm.hardAcceleration, 0x1b: Alarm.hardBraking, 0x1c: Alarm.hardCornering,
  0x1d: Alarm.laneChange, 0x1e: Alarm.laneChange, 0x1f: Alarm.laneChange,
  0x23: Alarm.fatigueDriving, 0x25: Alarm.overspeed,
  0x26: Alarm.accident, 0x27: Alarm.accident, 0x28: Alarm.accident,
  0x31: Alarm.door, 0x32: Alarm.door,
};

const F0_EVENTS: Record<number, string> = {
  51: Alarm.hardAcceleration, 52: Alarm.hardBraking, 53: Alarm.hardCornering, 54: Alarm.laneChange, 56: Alarm.accident,
};

function decodeF0(r: Reader, lc: LocationContext): DeviceRecord | undefined {
  const time = readDate(r, lc.offset);
  const rec = newRecord(time);
  if (r.u8() > 0) set(rec, Attr.archive, true);
  r.skip(1); // vehicle type
  const subtype = r.u8();
  if (subtype === 0x01) {
    for (let count = r.u8(); count > 0; count--) {
      const id = r.u16();
      const len = r.u8();
      const end = r.pos + len;
      const item = F0_ITEMS[id];
      if (item) set(rec, item[0], item[1](r, len));
      else if (len === 1 || len === 2 || len === 4) set(rec, indexed.io(id), r.uint(len));
      r.pos = end;
    }
  } else if (subtype === 0x02) {
    const codes: string[] = [];
    for (let count = r.u16(); count > 0; count--) {
      for (let n = r.skip(4).u16(); n > 0; n--) codes.push(trimJava(r.skip(8).ascii(r.u16())));
    }
    set(rec, Attr.dtcs, codes.join(' '));
  } else if (subtype === 0x03) {
    for (let count = r.u8(); count > 0; count--) {
      const alarm = F0_ALARMS[r.u8()];
      if (alarm) addAlarm(rec, alarm);
      r.skip(r.u8());
    }
  } else if (subtype === 0x04) {
    const property = r.u8();
    set(rec, 'tripNumber', r.u32());
    r.skip(6); // start time
    if (property === 0x02) {
      r.skip(6 + 8 + 8 + 1); // end time, start and end location, flags
      set(rec, 'idlingCount', r.u16());
      set(rec, 'idlingTime', r.u16());
      set(rec, 'tripOdometer', r.u16() * 100);
      set(rec, 'tripFuel', r.u16() / 100);
    }
    return rec;
  } else if (subtype === 0x0b) {
    if (r.u8() > 0) set(rec, Attr.vin, r.ascii(17));
    return rec;
  } else if (subtype === 0x15) {
    const event = r.i32();
    if (F0_EVENTS[event]) addAlarm(rec, F0_EVENTS[event]);
    else set(rec, Attr.event, event);
    return rec;
  } else {
    return undefined;
  }
  decodeCoordinates(r, rec, lc.model);
  return rec;
}

/** 0x53 BLE tag list / 0x54 sensor samples, after a basic location block. */
function decodeSensorReport(r: Reader, type: number, lc: LocationContext): DeviceRecord {
  const rec = newRecord();
  decodeCoordinates(r, rec, lc.model);
  rec.altitude = r.i16();
  rec.speed = r.u16() / 10;
  rec.course = r.u16();
  rec.time = readDate(r, lc.offset);
  if (type === 0x53) {
    r.skip(1); // total node count
    while (r.remaining > 0) {
      const i = r.u8() + 1;
      set(rec, `tag${i}Mac`, r.hex(6));
      set(rec, `tag${i}Rssi`, r.i8());
      set(rec, `tag${i}Data`, r.hex(r.u8()));
    }
    return rec;
  }
  while (r.remaining > 0) {
    const mask = r.u16();
    r.skip(6); // sample time
    if (bit(mask, 0)) set(rec, 'lightSensor', r.u16());
    if (bit(mask, 1)) {
      set(rec, Attr.deviceTemp, r.i16() / 10);
      set(rec, 'humidity', r.i16() / 10);
    }
    if (bit(mask, 2)) set(rec, indexed.temp(3), r.i16() / 10);
    if (bit(mask, 3)) r.skip(6); // acceleration
    if (bit(mask, 4)) set(rec, 'airPressure', r.u16());
  }
  return rec;
}

function decodeTransparent(r: Reader, lc: LocationContext, now: number): DeviceRecord | undefined {
  const type = r.u8();
  if (type === 0x40) {
    const rec = newRecord(now);
    const text = trimJava(r.ascii(r.remaining));
    if (text.startsWith('GTSL')) {
      const id = text.split('|')[4];
      if (id !== undefined) set(rec, Attr.driverUniqueId, id);
    } else if (text) set(rec, 'data', text);
    return Object.keys(rec.attributes).length ? rec : undefined;
  }
  if (type === 0x41) {
    const rec = newRecord(now);
    decodeObdRt(rec, trimJava(r.ascii(r.remaining)));
    return rec;
  }
  if (type === 0xf0) return decodeF0(r, lc);
  if (type === 0xff) {
    const rec = newRecord();
    rec.valid = true;
    rec.time = readDate(r, lc.offset);
    rec.lat = r.i32() / 1e6;
    rec.lng = r.i32() / 1e6;
    rec.altitude = r.i16();
    rec.speed = r.u16() / 10;
    rec.course = r.u16();
    return rec;
  }
  if (type === 0xf3) {
    const rec = newRecord(now);
    while (r.remaining > 2) {
      const subtype = r.u16();
      const end = r.pos + r.u16();
      if (subtype === 0x0002) set(rec, 'collision', r.u16() / 256 / 100);
      else if (subtype === 0x0006) rec.time = readDate(r, lc.offset);
      r.pos = Math.min(end, r.end);
    }
    return rec;
  }
  if (type === 0x53 || type === 0x54) return decodeSensorReport(r, type, lc);
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Other terminal messages

function decodeDriverIdentity(r: Reader, lc: LocationContext): DeviceRecord {
  const rec = newRecord();
  set(rec, 'cardStatus', r.u8());
  rec.time = readDate(r, lc.offset);
  set(rec, 'cardResult', r.u8());
  set(rec, 'driver', r.ascii(r.u8()));
  set(rec, 'cardCode', trimJava(r.ascii(20)));
  set(rec, 'cardAgency', r.ascii(r.u8()));
  set(rec, 'cardValidity', r.hex(4));
  return rec;
}

/** Terminal parameters (reply to 0x8104 / 0x8106): id -> attribute name and how to read it. */
const PARAMETERS: Record<number, [string, (r: Reader, len: number) => AttrValue]> = {
  0x0001: ['heartbeatInterval', (r) => r.u32()],
  0x0010: ['apn', (r, len) => gbk.decode(r.bytes(len))],
  0x0013: ['server', (r, len) => gbk.decode(r.bytes(len))],
  0x0018: ['port', (r) => r.u32()],
  0x0027: ['sleepReportInterval', (r) => r.u32()],
  0x0028: ['emergencyReportInterval', (r) => r.u32()],
  0x0029: ['defaultReportInterval', (r) => r.u32()],
  0x0055: ['overspeedThreshold', (r) => r.u32()],
  0x0056: ['speedLimitDuration', (r) => r.u32()],
  0x0080: [Attr.odometer, (r) => r.u32() * 100],
  0x0083: ['plateNumber', (r, len) => trimJava(gbk.decode(r.bytes(len)))],
};

function decodeParameters(r: Reader, now: number): DeviceRecord {
  const rec = newRecord(now);
  r.skip(3); // response serial, parameter count
  while (r.remaining >= 5) {
    const id = r.u32();
    const len = r.u8();
    const end = r.pos + len;
    if (end > r.end) break;
    const p = PARAMETERS[id];
    if (p) set(rec, p[0], p[1](r, len));
    r.pos = end;
  }
  return rec;
}

function decodeAcceleration(r: Reader, now: number): DeviceRecord {
  const samples: string[] = [];
  while (r.remaining > 0) {
    r.skip(6); // sample time
    samples.push(`[${signedMagnitude(r.u16())},${signedMagnitude(r.u16())},${signedMagnitude(r.u16())}]`);
  }
  const rec = newRecord(now);
  set(rec, 'gSensor', `[${samples.join(',')}]`);
  return rec;
}

function resultRecord(text: string, now: number): DeviceRecord {
  const rec = newRecord(now);
  set(rec, Attr.result, text);
  return rec;
}

/** `(id,...)` text frames: `BASE,2` asks for the time (echoed with TIME replaced), anything else is a reply. */
function decodeText(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const sentence = frame.toString('latin1');
  if (sentence.includes('BASE,2')) {
    const t = new Date(ctx.now).toISOString().replace(/[-T:]/g, '').slice(0, 14); // yyyyMMddHHmmss UTC
    return { reply: Buffer.from(sentence.replace('TIME', t), 'latin1') };
  }
  const id = /^\((\d{10,20}),/.exec(sentence)?.[1];
  return { deviceId: ctx.deviceId ? undefined : id, records: [resultRecord(sentence, ctx.now)] };
}

function timeSyncReply(h: Header, now: number): Buffer {
  const d = new Date(now);
  const body = Buffer.alloc(8);
  body.writeUInt16BE(d.getUTCFullYear(), 0);
  [d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), 0].forEach((v, i) => (body[2 + i] = v));
  return formatMessage(MSG.timeSyncResponse, body, h);
}

function registerReply(h: Header): Buffer {
  const body = Buffer.concat([Buffer.alloc(3), Buffer.from(h.uniqueId, 'latin1')]); // serial, result 0, auth code
  body.writeUInt16BE(h.index, 0);
  return formatMessage(MSG.registerResponse, body, h);
}

/** What one binary message yields: records and the reply. */
function decodeMessage(h: Header, ctx: DecodeContext): { records?: DeviceRecord[]; reply?: Buffer } {
  const lc: LocationContext = { model: ctx.config.modelOverride as string | undefined, offset: zoneOffset(ctx.config) };
  const { r } = h;
  const one = (rec: DeviceRecord | undefined, reply?: Buffer) => ({ records: rec ? [rec] : [], reply });
  switch (h.type) {
    case MSG.register:
      return { reply: registerReply(h) };
    case MSG.location:
      return one(decodeLocation(r, lc), generalResponse(h));
    case MSG.locationQueryResponse:
      r.skip(2); // serial of the query
      return one(decodeLocation(r, lc));
    case MSG.location2:
    case MSG.location2Blind: {
      const reply = h.attribute & 0x8000 ? formatMessage(MSG.generalResponse2, Buffer.from([h.type >> 8, h.type & 0xff, 0]), { ...h, shortIndex: true }) : undefined;
      return one(decodeLocation2(h, ctx), reply);
    }
    case MSG.locationBatch:
    case MSG.locationBatch2:
      if (h.type === MSG.locationBatch2 && h.bodyLength === 7) {
        const rec = newRecord();
        set(rec, Attr.batteryLevel, r.u8());
        rec.time = readDate(r, lc.offset);
        return one(rec, generalResponse(h));
      }
      return { records: decodeBatch(h, lc), reply: generalResponse(h) };
    case MSG.heartbeat: {
      if (r.remaining < 3) return { reply: generalResponse(h) };
      const rec = newRecord(ctx.now);
      set(rec, Attr.batteryLevel, r.u8());
      set(rec, Attr.rssi, r.u8());
      set(rec, Attr.status, r.u8());
      return one(rec, generalResponse(h));
    }
    case MSG.terminalAttributes: {
      const rec = newRecord(ctx.now);
      set(rec, Attr.iccid, r.skip(2 + 5 + 20 + 7).hex(10)); // type, maker, model, terminal id
      return one(rec, generalResponse(h));
    }
    case MSG.reportText:
      return one(resultRecord(gbk.decode(r.skip(1).bytes(r.remaining)), ctx.now), generalResponse(h));
    case MSG.textResponse:
      return one(resultRecord(trimJava(utf16be.decode(r.skip(2).bytes(Math.min(r.remaining, Math.max(0, h.bodyLength - 2))))), ctx.now));
    case MSG.commandResponse:
      return one(resultRecord(r.ascii(r.u32()), ctx.now), generalResponse(h));
    case MSG.driverIdentity:
      return one(decodeDriverIdentity(r, lc), generalResponse(h));
    case MSG.parameterQueryResponse:
      return one(decodeParameters(r, ctx.now));
    case MSG.timeSyncRequest:
      return { reply: timeSyncReply(h, ctx.now) };
    case MSG.acceleration:
      return one(decodeAcceleration(r, ctx.now));
    case MSG.transparent:
      return one(decodeTransparent(r, lc, ctx.now), generalResponse(h));
    default:
      return ACK_ONLY.has(h.type) ? { reply: generalResponse(h) } : {};
  }
}

function decode(input: Buffer, ctx: DecodeContext): DecodeResult {
  if (input[0] === 0x28) return decodeText(input, ctx);
  // a UDP datagram arrives still escaped; TCP frames come un-escaped from the framer
  const frame = ctx.transport === 'udp' && input.length > 1 ? unescape(input, 0, input.length - 1) : input;
  const h = readHeader(frame);
  const { records, reply } = decodeMessage(h, ctx);
  // 0x0001: the terminal's general response to a platform message (a command or text sent to it)
  return { deviceId: h.uniqueId, records, reply, commandAck: h.type === MSG.terminalResponse || undefined };
}

// ---------------------------------------------------------------------------------------------
// Commands

/** Terminal id bytes for a device id: BCD phone number (6 bytes, 10 for 2019 ids) or a packed IMEI. */
function encodeId(deviceId: string): { id: Buffer; version?: number } {
  if (!/^\d{1,20}$/.test(deviceId)) throw new Error(`jt808: cannot encode device id ${deviceId}`);
  if (deviceId.length === 15) {
    const imei = Number(deviceId.slice(0, 14));
    const id = Buffer.alloc(6);
    id.writeUInt16BE(Math.floor(imei / 2 ** 32), 0);
    id.writeUInt32BE(imei % 2 ** 32, 2);
    return { id };
  }
  if (deviceId.length <= 12) return { id: Buffer.from(deviceId.padStart(12, '0'), 'hex') };
  return { id: Buffer.from(deviceId.padStart(20, '0'), 'hex'), version: 1 };
}

/** GBK bytes for display text (ASCII passes through; other characters via a table built on first use). */
let gbkTable: Map<string, number> | undefined; // pure cache of a constant mapping, not connection state
function encodeGbk(text: string): Buffer {
  if (/^[\x00-\x7f]*$/.test(text)) return Buffer.from(text, 'latin1');
  if (!gbkTable) {
    const table = new Map<string, number>();
    const pair = Buffer.alloc(2);
    for (let hi = 0x81; hi <= 0xfe; hi++) {
      for (let lo = 0x40; lo <= 0xfe; lo++) {
        pair[0] = hi;
        pair[1] = lo;
        const ch = lo === 0x7f ? '' : gbk.decode(pair);
        if (ch.length === 1 && ch !== '\ufffd' && !table.has(ch)) table.set(ch, (hi << 8) | lo);
      }
    }
    gbkTable = table;
  }
  const out: number[] = [];
  for (const ch of text) {
    const code = ch.charCodeAt(0) < 0x80 ? ch.charCodeAt(0) : gbkTable.get(ch) ?? 0x3f; // '?' when unmappable
    if (code > 0xff) out.push(code >> 8, code & 0xff);
    else out.push(code);
  }
  return Buffer.from(out);
}

const TEXT_DISPLAY_TTS = 0x0c; // 0x8300 flags: show on the terminal and read aloud

/** Bytes each model expects in 0x8105 for engineStop / engineResume. */
function engineControl(model: string | undefined, stop: boolean): Buffer {
  if (model === 'VL300') return Buffer.from(stop ? '#0;1' : '#0;0', 'latin1');
  if (model === 'W15L') return Buffer.from([stop ? 0x64 : 0x65]);
  return Buffer.from([stop ? 0xf0 : 0xf1]); // vendor command words: cut / restore oil and power
}

function customCommand(data: string, model: string | undefined, env: Envelope): Buffer {
  if (model && ['AL300', 'GL100', 'VL300'].includes(model)) {
    // one parameter 0xF030: AT command passed through
    const text = Buffer.from(data, 'latin1');
    const head = Buffer.from([1, 0, 0, 0xf0, 0x30, text.length & 0xff]);
    return formatMessage(MSG.setParameters, Buffer.concat([head, text]), env);
  }
  if (model === 'BSJ') return formatMessage(MSG.sendText, Buffer.concat([Buffer.from([0x01]), encodeGbk(data)]), env);
  if (JC_MODELS.has(model ?? '')) return formatMessage(MSG.transparentDown, Buffer.concat([Buffer.from([0xf0]), Buffer.from(data, 'latin1')]), env);
  if (!/^([0-9a-fA-F]{2})+$/.test(data)) throw new Error('jt808: custom data must be a hex frame for this model');
  return Buffer.from(data, 'hex'); // a complete frame prepared by the user
}

function encode(command: Command, ctx: EncodeContext): Buffer {
  const env: Envelope = encodeId(ctx.deviceId);
  const model = ctx.config.modelOverride as string | undefined;
  const a = command.attributes;
  switch (command.type) {
    case 'custom':
      return customCommand(String(a.data ?? ''), model, env);
    case 'message':
      return formatMessage(MSG.sendText, Buffer.concat([Buffer.from([TEXT_DISPLAY_TTS]), encodeGbk(String(a.message ?? ''))]), env);
    case 'engineStop':
    case 'engineResume': {
      const stop = command.type === 'engineStop';
      if (ctx.config.alternative) {
        const t = new Date(ctx.now + 8 * 3600e3).toISOString().replace(/[-T:]/g, '').slice(2, 14); // yyMMddHHmmss, device time
        return formatMessage(MSG.oilControl, Buffer.concat([Buffer.from([stop ? 1 : 0]), Buffer.from(t, 'hex')]), env);
      }
      return formatMessage(MSG.terminalControl, engineControl(model, stop), env);
    }
    case 'rebootDevice':
      return formatMessage(MSG.terminalControl, Buffer.from([0x04]), env); // command word 4: terminal reset
    case 'positionSingle':
      return formatMessage(MSG.locationQuery, Buffer.alloc(0), env);
    case 'positionPeriodic': {
      const body = Buffer.from([1, 0, 0, 0, 0x29, 4, 0, 0, 0, 0]); // one parameter: default report interval, s
      body.writeUInt32BE(Math.max(0, Math.min(0xffffffff, Math.round(Number(a.frequency ?? 60)))), 6);
      return formatMessage(MSG.setParameters, body, env);
    }
    default:
      throw new Error(`jt808: unsupported command ${command.type}`);
  }
}

export const protocol: Protocol = {
  name: 'jt808',
  defaultPort: 5015,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom', 'message', 'engineStop', 'engineResume', 'rebootDevice', 'positionSingle', 'positionPeriodic'],
  carriesText: true,
  commandAcks: true,
  encode,
};
