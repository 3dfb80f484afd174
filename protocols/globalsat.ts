/**
 * GlobalSat (TR-151/203/206/600, GTR-128/388 and compatibles) text protocol.
 *
 *   `GSx,<IMEI>,<fields...>*<checksum>!` where the checksum is the NMEA-style XOR of every
 *   character before `*`, as two hex digits.
 *   GSr  format 0 report (GSb: the same, stored while offline): its fields follow the device's `O3` setting, a string of code letters
 *        (`SORPZAB27GHKLMN*U!` by default), given to the decoder as `format0` in its configuration.
 *   GSh  format 1 report: the short heartbeat (`ON` setting); it carries no fix.
 *   GSd  format 2 report: cell ids when there is no GPS fix,
 *        `GSd,IMEI,mode,report type,alarm status,ddmmyy,hhmmss,battery,"mcc,mnc,lac,cid,bsic,rssi",...`
 *   `$<IMEI>,<status>,<fix>,ddmmyy,hhmmss,<E|W>dddmm.mmmm,<N|S>ddmm.mmmm,<altitude>,<knots>,<course>,
 *   <satellites>,<hdop>` is the older TR-151 report.
 * A device set to wait for confirmations (A1=1) expects `ACK\r` after each GS report; this is sent
 * after every GSr/GSb/GSh/GSd. Commands go out as `GSC,<IMEI>,<command>*<checksum>!`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, hms, nmeaCoordinate, num, utc } from './text.ts';
import {
  DecodeError,
  type AttrValue,
  type Cell,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 1024;
const DEFAULT_FORMAT = 'SORPZAB27GHKLMN*U!';
const ACK = Buffer.from('ACK\r', 'latin1');

/**
 * Reports end with `!` (GS reports, TR-151) or a line break. A settings report (`GSs`) that quotes a
 * report format (`O3=...*U!`) is cut at that inner `!`: its pieces decode as errors and are dropped.
 */
const createFramer = () => delimitedFramer('globalsat', [0x21, 0x0d, 0x0a], MAX_FRAME);

/** Values separated by commas, where a quoted value (a cell) keeps its own commas. */
function splitValues(s: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const c of s) {
    if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      out.push(current);
      current = '';
    } else current += c;
  }
  out.push(current);
  return out;
}

/** A coordinate in the form its code letter names: `E121.4881` degrees, `E12129.2839` minutes, `121488065` millionths. */
function coordinate(value: string, form: 'degrees' | 'minutes' | 'micro', max: number): number | undefined {
  let v: number;
  if (form === 'micro') {
    if (!/^-?\d+$/.test(value)) return undefined;
    v = Number(value) / 1e6;
  } else {
    const m = /^([NSEW])(\d+(?:\.\d+)?)$/.exec(value);
    if (!m) return undefined;
    const south = m[1] === 'S' || m[1] === 'W';
    v = form === 'minutes' ? nmeaCoordinate(m[2], south ? 'S' : 'N') : Number(m[2]) * (south ? -1 : 1);
  }
  if (Math.abs(v) > max) throw new DecodeError('globalsat: coordinate out of range');
  return v;
}

/** `12380mV`, `12.3V`, `60%` or a bare number (battery capacity, percent). */
function voltage(value: string, a: Record<string, AttrValue>, key: string): void {
  const m = /^(\d+(?:\.\d+)?)(mV|V|%)?$/.exec(value);
  if (!m) return;
  const v = Number(m[1]);
  if (m[2] === 'mV') a[key] = v / 1000;
  else if (m[2] === 'V') a[key] = v;
  else a[Attr.batteryLevel] = v;
}

/** Alarm status bits, most urgent first: SOS, main power cut, low battery, speed, geofence, parking. */
const ALARM_BITS: Array<[number, string]> = [
  [0x01, Alarm.sos],
  [0x40, Alarm.powerCut],
  [0x80, Alarm.lowBattery],
  [0x20, Alarm.overspeed],
  [0x18, Alarm.geofence],
  [0x02, Alarm.parking],
];

function alarmStatus(value: string, a: Record<string, AttrValue>): void {
  if (!/^[0-9A-Fa-f]{1,4}$/.test(value)) return;
  const v = parseInt(value, 16);
  a[Attr.status] = v;
  const hit = ALARM_BITS.find(([bit]) => v & bit);
  if (hit) a[Attr.alarm] = hit[1];
}

/** IO status (hex): bit 1 input 1, bit 7 moving, bit 9 output 1, bit 13 ignition, bit 15 external power. */
function ioStatus(value: string, a: Record<string, AttrValue>): void {
  if (!/^[0-9A-Fa-f]{1,4}$/.test(value)) return;
  const v = parseInt(value, 16);
  a[indexed.in(1)] = (v & 0x0002) !== 0;
  a[Attr.motion] = (v & 0x0080) !== 0;
  a[indexed.out(1)] = (v & 0x0200) !== 0;
  a[Attr.ignition] = (v & 0x2000) !== 0;
  a[Attr.charge] = (v & 0x8000) !== 0;
}

/** A quoted cell `mcc,mnc,lac (hex),cid (hex),bsic,rssi`. */
function cell(value: string): Cell | undefined {
  const m = /^(\d{3}),(\d{1,3}),([0-9A-Fa-f]{1,4}),([0-9A-Fa-f]{1,8})(?:,(\d*),(\d*))?$/.exec(value);
  if (!m) return undefined;
  const c: Cell = { mcc: Number(m[1]), mnc: Number(m[2]), lac: parseInt(m[3], 16), cid: parseInt(m[4], 16) };
  if (m[6]) c.rssi = Number(m[6]);
  return c;
}

function dateTime(date: string, time: string): number {
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(date);
  if (!d) throw new DecodeError('globalsat: bad date');
  const [h, mi, s] = hms(time);
  return utc(Number(d[3]), Number(d[2]), Number(d[1]), h, mi, s);
}

/** What each code letter of a report format means: consumes one value (two for dates). */
type Field = (v: string, rec: DeviceRecord, next: () => string) => void;
const FIELDS: Record<string, Field> = {
  S: () => undefined, // IMEI, read before
  T: (v, rec) => v && (rec.attributes.deviceName = v),
  O: (v, rec) => v && (rec.attributes.mode = v),
  R: (v, rec) => v && (rec.attributes[Attr.event] = v),
  P: (v, rec) => alarmStatus(v, rec.attributes),
  Z: (v, rec) => {
    if (/^I/.test(v)) rec.attributes[Attr.alarm] = Alarm.geofenceEnter;
    else if (/^O/.test(v)) rec.attributes[Attr.alarm] = Alarm.geofenceExit;
  },
  A: (v, rec) => (rec.valid = v !== '' && v !== '1' && v !== '0'),
  B: (v, rec, next) => (rec.time = dateTime(v, next())),
  C: (v, rec, next) => {
    const t = next();
    rec.time ??= dateTime(v, t); // local time: only when no UTC time is reported
  },
  1: (v, rec) => (rec.lng = coordinate(v, 'degrees', 180)),
  2: (v, rec) => (rec.lng = coordinate(v, 'minutes', 180)),
  3: (v, rec) => (rec.lng = coordinate(v, 'micro', 180)),
  6: (v, rec) => (rec.lat = coordinate(v, 'degrees', 90)),
  7: (v, rec) => (rec.lat = coordinate(v, 'minutes', 90)),
  8: (v, rec) => (rec.lat = coordinate(v, 'micro', 90)),
  Y: (v, rec) => ioStatus(v, rec.attributes),
  G: (v, rec) => (rec.altitude = num(v)),
  H: (v, rec) => num(v) !== undefined && (rec.speed = knotsToKmh(num(v)!)),
  I: (v, rec) => (rec.speed = num(v)),
  J: (v, rec) => num(v) !== undefined && (rec.speed = num(v)! * 1.609344),
  K: (v, rec) => {
    const c = num(v);
    if (c !== undefined && c >= 0 && c <= 360) rec.course = c;
  },
  L: (v, rec) => (rec.satellites = num(v)),
  M: (v, rec) => (rec.hdop = num(v)),
  N: (v, rec) => voltage(v, rec.attributes, Attr.battery),
  m: (v, rec) => voltage(v, rec.attributes, Attr.power),
  n: (v, rec) => voltage(v, rec.attributes, Attr.battery),
  c: (v, rec) => num(v) !== undefined && (rec.attributes[Attr.rssi] = num(v)!),
};

/** The serving cell spelled out as separate values (`t` mcc, `u` mnc, `v` lac, `w` cid, hex). */
const SERVING = { t: 'mcc', u: 'mnc', v: 'lac', w: 'cid' } as const;

function decodeReport(values: string[], format: string, rec: DeviceRecord): void {
  const serving: Partial<Record<'mcc' | 'mnc' | 'lac' | 'cid', number>> = {};
  let i = 0;
  const next = () => values[i++] ?? '';
  for (const letter of format) {
    if (letter === '*' || i >= values.length) break;
    const v = next();
    if (v.includes(',')) continue; // a quoted cell: gathered below whatever its letter
    if (letter in SERVING) {
      const key = SERVING[letter as keyof typeof SERVING];
      const n = key === 'lac' || key === 'cid' ? parseInt(v, 16) : Number(v);
      if (Number.isFinite(n)) serving[key] = n;
      continue;
    }
    FIELDS[letter]?.(v, rec, next);
  }
  const cells: Cell[] = [];
  if (serving.mcc !== undefined && serving.mnc !== undefined && serving.lac !== undefined && serving.cid !== undefined) {
    cells.push(serving as Cell);
  }
  for (const v of values) {
    const c = v.includes(',') ? cell(v) : undefined;
    if (c) cells.push(c);
  }
  if (cells.length) rec.cells = cells;
}

const OLD = /^\$(\d{10,20}),(\d+),(\d+),(\d{6}),(\d{6}),([EW]\d+\.\d+),([NS]\d+\.\d+),(-?[\d.]*),([\d.]*),([\d.]*),(\d*)(?:,([\d.]*))?/;

function decodeOld(s: string): DecodeResult {
  const m = OLD.exec(s);
  if (!m) throw new DecodeError('globalsat: bad report');
  const [, imei, status, fix, date, time, lng, lat, altitude, speed, course, sats, hdop] = m;
  const rec: DeviceRecord = {
    time: dateTime(date, time),
    valid: fix !== '1',
    lat: coordinate(lat, 'minutes', 90),
    lng: coordinate(lng, 'minutes', 180),
    attributes: { [Attr.event]: status },
  };
  if (num(altitude) !== undefined) rec.altitude = num(altitude);
  if (num(speed) !== undefined) rec.speed = knotsToKmh(num(speed)!);
  const c = num(course);
  if (c !== undefined && c <= 360) rec.course = c;
  if (num(sats) !== undefined) rec.satellites = num(sats);
  if (num(hdop) !== undefined) rec.hdop = num(hdop);
  return { deviceId: imei, records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim().replace(/!$/, '');
  if (s.startsWith('$')) return decodeOld(s);
  const head = /^GS([rbhd]),/.exec(s);
  if (!head) throw new DecodeError('globalsat: not a report');
  const star = s.lastIndexOf('*');
  const values = splitValues(s.slice(4, star < 0 ? s.length : star));
  // the IMEI is the S value; some devices put their name (T) before it
  const imei = values.find((v) => /^\d{10,20}$/.test(v));
  if (!imei) throw new DecodeError('globalsat: no IMEI');
  if (head[1] === 'h') return { deviceId: imei, reply: ACK };
  const rec: DeviceRecord = { attributes: {} };
  if (head[1] === 'd') {
    // IMEI, mode, report type, alarm status, date, time, battery, cells
    decodeReport(values, 'SORPBN', rec);
    return { deviceId: imei, records: rec.cells || rec.attributes[Attr.alarm] ? [rec] : [], reply: ACK };
  }
  const format = typeof ctx.config.format0 === 'string' ? ctx.config.format0 : DEFAULT_FORMAT;
  decodeReport(values, format, rec);
  if (head[1] === 'b') rec.attributes[Attr.archive] = true;
  if (rec.lat === undefined || rec.lng === undefined || rec.time === undefined) return { deviceId: imei, reply: ACK };
  return { deviceId: imei, records: [rec], reply: ACK };
}

// ---- commands ---------------------------------------------------------------------------------

function checksum(s: string): string {
  let x = 0;
  for (let i = 0; i < s.length; i++) x ^= s.charCodeAt(i);
  return x.toString(16).toUpperCase().padStart(2, '0');
}

const COMMANDS: Record<string, (c: Command) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  alarmDismiss: () => 'Na',
  outputControl: (c) => `Lo(${Number(c.attributes.index ?? 1)},${String(c.attributes.data ?? '0') === '1' ? 1 : 0})`,
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`globalsat: unsupported command ${command.type}`);
  const body = build(command);
  if (!body || /[*!\r\n]/.test(body)) throw new Error('globalsat: command text must not be empty nor hold *, ! or line breaks');
  const text = `GSC,${ctx.deviceId},${body}`;
  return Buffer.from(`${text}*${checksum(text)}!`, 'latin1');
}

export const protocol: Protocol = {
  name: 'globalsat',
  defaultPort: 5043,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
