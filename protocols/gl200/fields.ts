/** GL200 text format helpers: model names, field readers, the record groups (location, cells, append mask) shared by the reports. */
import { Attr, indexed } from '../attributes.ts';
import { DecodeError, type DecodeContext, type DeviceRecord } from '../types.ts';

// ---------------------------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------------------------

/** Model by protocol-version prefix (2 hex chars, or 6 for the 10-char versions starting with 80). */
export const MODELS: Record<string, string> = {
  '02': 'GL200', '04': 'GV200', '06': 'GV300', '08': 'GMT100', '09': 'GV50P', '0F': 'GV55', '10': 'GV55 LITE',
  '11': 'GL500', '1A': 'GL300', '1F': 'GV500', '21': 'GL200', '25': 'GV300', '27': 'GV300W', '28': 'GL300VC',
  '2C': 'GL300W', '2D': 'GV500VC', '2F': 'GV55', '4F': 'GV56', '30': 'GL300', '31': 'GV65', '35': 'GV200',
  '36': 'GV500', '3F': 'GMT100', '40': 'GL500', '41': 'GV75W', '42': 'GT501', '44': 'GL530', '45': 'GB100',
  '50': 'GV55W', '52': 'GL50', '55': 'GL50B', '5E': 'GV500MAP', '6E': 'GV310LAU', '74': 'GV350CEU', 'BD': 'CV200',
  'C2': 'GV600M', 'C3': 'GL320M', 'DC': 'GV600MG', 'DE': 'GL500M', 'DF': 'CV100LG', 'F1': 'GV350M', 'F8': 'GV800W',
  'FC': 'GV600W', '802004': 'GV58LAU', '802005': 'GV355CEU', '80201E': 'GV30CEU',
};

export const RE = {
  imei: /^(\d{15}|[0-9A-Fa-f]{14})$/,
  coord: /^-?\d{1,3}\.\d{6}$/,
  hex: /^[0-9A-Fa-f]+$/,
  hex12: /^[0-9A-Fa-f]{12}$/,
  count: /^[0-9A-Fa-f]{4}$/,
  int: /^-?\d+$/,
  number: /^[-+]?\d+(\.\d+)?$/,
  time: /^\d{14}$/,
};

export const VIN = /^[0-9A-Z]{17}$/;

export const bad = (msg: string): never => {
  throw new DecodeError(`gl200: ${msg}`);
};

/** Field access that treats running off the end as a malformed message. */
export function at(v: string[], i: number): string {
  if (i < 0 || i >= v.length) bad(`field ${i} missing`);
  return v[i];
}

/** Lenient number: undefined for empty or non-numeric fields (devices leave fields blank freely). */
export function num(s: string | undefined): number | undefined {
  return s !== undefined && RE.number.test(s) ? Number(s) : undefined;
}
export function hexNum(s: string | undefined): number | undefined {
  return s !== undefined && RE.hex.test(s) && s.length <= 12 ? parseInt(s, 16) : undefined;
}
/** A count that drives the walk: must be a small decimal integer. */
export function countOf(s: string): number {
  if (s === '') return 0;
  if (!/^\d{1,3}$/.test(s)) bad(`bad count ${s}`);
  return Number(s);
}

export function parseTime(s: string | undefined): number | undefined {
  if (!s || !RE.time.test(s)) return undefined;
  const t = Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(8, 10), +s.slice(10, 12), +s.slice(12, 14));
  return Number.isFinite(t) ? t : undefined;
}

/** `hhhhh:mm:ss` hour meter to milliseconds. */
export function parseHours(s: string | undefined): number | undefined {
  if (!s || !/^\d+(:\d+){0,2}$/.test(s)) return undefined;
  const [h, m = 0, sec = 0] = s.split(':').map(Number);
  return (h * 3600 + m * 60 + sec) * 1000;
}

export const newRecord = (): DeviceRecord => ({ attributes: {} });

export function put(rec: DeviceRecord, key: string, value: string | number | boolean | undefined): void {
  if (value === undefined || value === '' || (typeof value === 'number' && !Number.isFinite(value))) return;
  rec.attributes[key] = value;
}

/** Analog input: `F<n>` is a fuel sensor reading, otherwise millivolts. */
export function putAnalog(rec: DeviceRecord, index: number, s: string): void {
  if (s.startsWith('F')) put(rec, indexed.fuel(index), num(s.slice(1)));
  else put(rec, indexed.adc(index), num(s) !== undefined ? num(s)! / 1000 : undefined);
}

/** Device status: byte 2 ignition state, byte 1 digital inputs, byte 0 digital outputs. */
export function putStatus(rec: DeviceRecord, s: string): void {
  const value = hexNum(s);
  if (value === undefined) return;
  const state = Math.floor(value / 0x10000) & 0xff;
  if (state & 0x10) rec.attributes[Attr.ignition] = false;
  else if (state & 0x20) rec.attributes[Attr.ignition] = true;
  const input = (value >> 8) & 0xff;
  const output = value & 0xff;
  rec.attributes[Attr.input] = input;
  rec.attributes[indexed.in(1)] = (input & 0x02) !== 0;
  rec.attributes[indexed.in(2)] = (input & 0x04) !== 0;
  rec.attributes[Attr.output] = output;
  rec.attributes[indexed.out(1)] = (output & 0x01) !== 0;
  rec.attributes[indexed.out(2)] = (output & 0x02) !== 0;
}

interface Session {
  last?: { lat: number; lng: number; altitude?: number; time?: number };
}

/** A location report without a fix of its own carries the last known position, marked invalid. */
export function fillLast(rec: DeviceRecord, ctx: DecodeContext, sendTime?: number): void {
  if (rec.lat !== undefined) return;
  const last = (ctx.session as Session).last;
  if (rec.time === undefined) rec.time = sendTime ?? last?.time;
  if (!last) return;
  rec.lat = last.lat;
  rec.lng = last.lng;
  if (last.altitude !== undefined) rec.altitude = last.altitude;
  rec.valid = false;
}

export function remember(records: DeviceRecord[], ctx: DecodeContext): void {
  for (const r of records) {
    if (r.lat !== undefined && r.valid !== false && r.lng !== undefined) {
      (ctx.session as Session).last = { lat: r.lat, lng: r.lng, altitude: r.altitude, time: r.time };
    }
  }
}

/** Cell block `mcc,mnc,lac(hex),cid(hex)` at `i`, added when all four fields are numbers. */
export function putCell(rec: DeviceRecord, v: string[], i: number): void {
  const mcc = num(at(v, i));
  const mnc = num(at(v, i + 1));
  const lac = hexNum(at(v, i + 2));
  const cid = hexNum(at(v, i + 3));
  if (mcc !== undefined && mnc !== undefined && lac !== undefined && cid !== undefined) {
    rec.cells = [...(rec.cells ?? []), { mcc, mnc, lac, cid }];
  }
}

/**
 * The common location group: `hdop,speed(km/h),course,altitude,lon,lat,utc time,[wifi...],mcc,mnc,lac,cid`.
 * GNSS accuracy 0 means the fix failed and the coordinates are the last known ones. Returns the next index.
 */
export function readGroup(v: string[], i: number, rec: DeviceRecord): number {
  at(v, i + 6);
  const hdop = num(v[i]);
  if (hdop !== undefined) rec.hdop = hdop;
  rec.speed = num(v[i + 1]) ?? 0;
  rec.course = num(v[i + 2]) ?? 0;
  rec.altitude = num(v[i + 3]) ?? 0;
  const lng = num(v[i + 4]);
  const lat = num(v[i + 5]);
  const time = parseTime(v[i + 6]);
  if (lng !== undefined && lat !== undefined && time !== undefined) {
    rec.lng = lng;
    rec.lat = lat;
    rec.time = time;
    rec.valid = hdop === undefined || hdop > 0;
  }
  i += 7;
  if (RE.hex12.test(v[i + 1] ?? '') && /^\d{1,2}$/.test(v[i])) i += 1 + Number(v[i]) * 5; // wifi: mac,rssi,,, each
  if (i + 3 < v.length && v[i] !== '') putCell(rec, v, i); // some reports end right after the fix
  return i + 4;
}

/** After the cell block: model-dependent CSQ fields, then odometer or a position append mask. */
export function readAppend(v: string[], i: number, rec: DeviceRecord, model: string): number {
  if (model.startsWith('GL5')) i += 2; // csq rssi, csq ber
  if (model === 'GT500MA' || model === 'GT501') return i + 1;
  if (model === 'GL320M') return i;
  const s = at(v, i++);
  if (s.includes('.')) put(rec, Attr.odometer, num(s) !== undefined ? num(s)! * 1000 : undefined);
  else if (s !== '') {
    const mask = hexNum(s) ?? 0;
    if (mask & 0x01) {
      const sats = num(at(v, i++));
      if (sats !== undefined) rec.satellites = sats;
    }
    if (mask & 0x02) i++; // gnss trigger type
    if (mask & 0x10) i++; // gnss jamming state
  }
  return i;
}

/** Index of the first longitude of a `lon,lat` pair at or after `from`, or -1. */
export function findCoordinates(v: string[], from: number): number {
  for (let k = Math.max(from, 4); k + 1 < v.length; k++) {
    if (RE.coord.test(v[k]) && RE.coord.test(v[k + 1])) return k;
  }
  return -1;
}
