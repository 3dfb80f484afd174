/** JT808 message ids, model groups, small field helpers, the header and the outgoing message format. */
import { Attr } from '../attributes.ts';
import { Reader, xorSum } from '../binary.ts';
import { DecodeError, type AttrValue, type DeviceRecord } from '../types.ts';

export const MSG = {
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
export const ACK_ONLY = new Set<number>([MSG.auth, MSG.heartbeat2, MSG.photo, MSG.logout, MSG.timezoneSync]);

export const PADLOCK_MODELS = new Set(['G-360P', 'G-508P']);
export const AOVX_MODELS = new Set(['AL300', 'GL100']);
export const JC_MODELS = new Set(['JC371', 'JC181', 'JC182', 'JC450', 'JC451']);
export const MV_MODELS = new Set(['MV810G', 'MV710G']);
// ---------------------------------------------------------------------------------------------
// Small helpers

export const bit = (value: number, n: number) => Math.floor(value / 2 ** n) % 2 === 1;
export const bcd = (b: number) => (b >> 4) * 10 + (b & 0x0f);
/** Trim control characters and spaces at both ends (a loop: a regex would go quadratic on long blanks). */
export function trimJava(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}
export function stripNul(s: string): string {
  let b = s.length;
  while (b > 0 && s.charCodeAt(b - 1) === 0) b--;
  return s.slice(0, b);
}

export const gbk = new TextDecoder('gbk');
export const utf16be = new TextDecoder('utf-16be');

export function newRecord(time?: number): DeviceRecord {
  return { time, attributes: {} };
}
export function set(rec: DeviceRecord, key: string, value: AttrValue): void {
  rec.attributes[key] = value;
}
/** Alarms accumulate comma-separated, in the order the message states them. */
export function addAlarm(rec: DeviceRecord, alarm: string): void {
  const prev = rec.attributes[Attr.alarm];
  rec.attributes[Attr.alarm] = prev === undefined ? alarm : `${prev},${alarm}`;
}

/** Terminal clock offset, ms. JT/T 808 devices report Beijing time unless configured otherwise. */
export function zoneOffset(config: Record<string, unknown>): number {
  const tz = config.timezone;
  if (typeof tz === 'number') return tz * 3600e3;
  const m = typeof tz === 'string' ? /([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(tz) : null;
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600e3 + Number(m[3] ?? 0) * 60e3);
  return tz === 'UTC' || tz === 'GMT' ? 0 : 8 * 3600e3;
}

/** yy MM dd HH mm ss, BCD, in the terminal's zone. */
export function readDate(r: Reader, offset: number): number {
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

export interface Envelope {
  id: Buffer;
  delimiter?: number;
  version?: number;
  /** 1-byte serial (0x4401 replies to 0x5501 reports). */
  shortIndex?: boolean;
}

export function formatMessage(type: number, body: Buffer, env: Envelope): Buffer {
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

export function generalResponse(h: Header, type = h.type): Buffer {
  const body = Buffer.alloc(5);
  body.writeUInt16BE(h.index, 0);
  body.writeUInt16BE(type, 2);
  body[4] = 0; // success
  return formatMessage(MSG.generalResponse, body, h);
}

// ---------------------------------------------------------------------------------------------
// Header

export interface Header extends Envelope {
  type: number;
  attribute: number;
  bodyLength: number;
  index: number;
  uniqueId: string;
  /** Reader over the body (checksum and end delimiter excluded). */
  r: Reader;
}

export function readHeader(frame: Buffer): Header {
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
