/**
 * Queclink @Track (GL/GV/GMT/CV series), three wire formats on one port:
 *
 *   A. ASCII  `+RESP:GTFRI,<protocol version>,<imei>,<device name>,...,<send time>,<count>$`
 *             (`+BUFF:` = buffered replay, `+ACK:` = command/heartbeat acknowledgement). Field layouts
 *             depend on the report type and on the model encoded in the protocol version prefix.
 *             The GT300 dialect puts the IMEI in field 1 and ends with `\0`.
 *   B. HEX    `+RSP` `+EVT` `+INF` `+HBD` `+ACK` ... binary headers, length at a header-specific
 *             offset, `<count:2><crc16:2>\r\n` trailer (CRC-16/CCITT-FALSE over bytes 4..L-4).
 *   C. Pro    `2B|2D 00 <len:2> ...` records of TLV data ids, `<count:2><crc8:1>$` trailer.
 *
 * Replies: `+ACK:GTHBD` heartbeats always get `+SACK:GTHBD,<protocol version>,<count>$`; with the
 * `ack` setting every recognised report gets `+SACK:<count>$` (the device's own count echoed verbatim).
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, crc16CcittFalse } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type Cell,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 8192;

// ---------------------------------------------------------------------------------------------
// Framer
// ---------------------------------------------------------------------------------------------

/** HEX headers and where their total-length field sits (offset, width). */
const BINARY_LENGTH: Record<string, [number, number]> = {
  '+RSP': [9, 2], '+BSP': [9, 2], '+EVT': [9, 2], '+BVT': [9, 2], '+CAN': [9, 2], '+DAT': [9, 2],
  '+INF': [7, 2], '+BNF': [7, 2],
  '+HBD': [5, 1],
  '+CRD': [6, 2], '+BRD': [6, 2], '+LGN': [6, 2],
  '+ACK': [6, 1],
};

type Format = 'text' | 'hex' | 'pro' | 'proHeartbeat';

/** Which of the three formats a frame (or stream head) is in; needs at least 5 bytes. */
function formatOf(buf: Buffer): Format {
  if ((buf[0] === 0x2b || buf[0] === 0x2d) && buf[1] === 0x00) return 'pro';
  if (buf[0] === 0x2b && buf[1] === 0x10) return 'proHeartbeat';
  const head = buf.toString('latin1', 0, 4);
  if (head === '+ACK') return buf[4] === 0x3a /* : */ ? 'text' : 'hex';
  return head in BINARY_LENGTH ? 'hex' : 'text';
}

/** Total length declared by a binary frame head, or null when the head is not complete yet. */
function binaryLength(buf: Buffer, format: Format): number | null {
  if (format === 'pro') return buf.length >= 4 ? buf.readUInt16BE(2) : null;
  if (format === 'proHeartbeat') return buf.length >= 3 ? buf[2] : null;
  const [offset, width] = BINARY_LENGTH[buf.toString('latin1', 0, 4)];
  if (buf.length < offset + width) return null;
  return width === 1 ? buf[offset] : buf.readUInt16BE(offset);
}

const FILLER = new Set([0x0d, 0x0a, 0x00, 0x24, 0x20]);

/** Text frames end at `$` (or `\0` on the GT300 dialect); binary frames carry their length. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && FILLER.has(buffer[start])) start++; // stray terminators between frames
      if (buffer.length - start < 5) return null;
      const head = buffer.subarray(start);
      if (head[0] !== 0x2b && head[0] !== 0x2d) throw new FrameError('gl200: frame does not start with + or -');
      const format = formatOf(head);
      if (format !== 'text') {
        const length = binaryLength(head, format);
        if (length === null) return null;
        if (length < 11 || length > MAX_FRAME) throw new FrameError(`gl200: bad binary length ${length}`);
        if (head.length < length) return null;
        return { frame: head.subarray(0, length), consumed: start + length };
      }
      for (let i = 0; i < head.length; i++) {
        if (head[i] === 0x24 || head[i] === 0x00) return { frame: head.subarray(0, i), consumed: start + i + 1 };
        if (i >= MAX_FRAME) break;
      }
      if (head.length > MAX_FRAME) throw new FrameError('gl200: no $ within max frame size');
      return null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Text helpers
// ---------------------------------------------------------------------------------------------

/** Model by protocol-version prefix (2 hex chars, or 6 for the 10-char versions starting with 80). */
const MODELS: Record<string, string> = {
  '02': 'GL200', '04': 'GV200', '06': 'GV300', '08': 'GMT100', '09': 'GV50P', '0F': 'GV55', '10': 'GV55 LITE',
  '11': 'GL500', '1A': 'GL300', '1F': 'GV500', '21': 'GL200', '25': 'GV300', '27': 'GV300W', '28': 'GL300VC',
  '2C': 'GL300W', '2D': 'GV500VC', '2F': 'GV55', '4F': 'GV56', '30': 'GL300', '31': 'GV65', '35': 'GV200',
  '36': 'GV500', '3F': 'GMT100', '40': 'GL500', '41': 'GV75W', '42': 'GT501', '44': 'GL530', '45': 'GB100',
  '50': 'GV55W', '52': 'GL50', '55': 'GL50B', '5E': 'GV500MAP', '6E': 'GV310LAU', '74': 'GV350CEU', 'BD': 'CV200',
  'C2': 'GV600M', 'C3': 'GL320M', 'DC': 'GV600MG', 'DE': 'GL500M', 'DF': 'CV100LG', 'F1': 'GV350M', 'F8': 'GV800W',
  'FC': 'GV600W', '802004': 'GV58LAU', '802005': 'GV355CEU', '80201E': 'GV30CEU',
};

const RE = {
  imei: /^(\d{15}|[0-9A-Fa-f]{14})$/,
  coord: /^-?\d{1,3}\.\d{6}$/,
  hex: /^[0-9A-Fa-f]+$/,
  hex12: /^[0-9A-Fa-f]{12}$/,
  count: /^[0-9A-Fa-f]{4}$/,
  int: /^-?\d+$/,
  number: /^[-+]?\d+(\.\d+)?$/,
  time: /^\d{14}$/,
};

const VIN = /^[0-9A-Z]{17}$/;

const bad = (msg: string): never => {
  throw new DecodeError(`gl200: ${msg}`);
};

/** Field access that treats running off the end as a malformed message. */
function at(v: string[], i: number): string {
  if (i < 0 || i >= v.length) bad(`field ${i} missing`);
  return v[i];
}

/** Lenient number: undefined for empty or non-numeric fields (devices leave fields blank freely). */
function num(s: string | undefined): number | undefined {
  return s !== undefined && RE.number.test(s) ? Number(s) : undefined;
}
function hexNum(s: string | undefined): number | undefined {
  return s !== undefined && RE.hex.test(s) && s.length <= 12 ? parseInt(s, 16) : undefined;
}
/** A count that drives the walk: must be a small decimal integer. */
function countOf(s: string): number {
  if (s === '') return 0;
  if (!/^\d{1,3}$/.test(s)) bad(`bad count ${s}`);
  return Number(s);
}

function parseTime(s: string | undefined): number | undefined {
  if (!s || !RE.time.test(s)) return undefined;
  const t = Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(8, 10), +s.slice(10, 12), +s.slice(12, 14));
  return Number.isFinite(t) ? t : undefined;
}

/** `hhhhh:mm:ss` hour meter to milliseconds. */
function parseHours(s: string | undefined): number | undefined {
  if (!s || !/^\d+(:\d+){0,2}$/.test(s)) return undefined;
  const [h, m = 0, sec = 0] = s.split(':').map(Number);
  return (h * 3600 + m * 60 + sec) * 1000;
}

const newRecord = (): DeviceRecord => ({ attributes: {} });

function put(rec: DeviceRecord, key: string, value: string | number | boolean | undefined): void {
  if (value === undefined || value === '' || (typeof value === 'number' && !Number.isFinite(value))) return;
  rec.attributes[key] = value;
}

/** Analog input: `F<n>` is a fuel sensor reading, otherwise millivolts. */
function putAnalog(rec: DeviceRecord, index: number, s: string): void {
  if (s.startsWith('F')) put(rec, indexed.fuel(index), num(s.slice(1)));
  else put(rec, indexed.adc(index), num(s) !== undefined ? num(s)! / 1000 : undefined);
}

/** Device status: byte 2 ignition state, byte 1 digital inputs, byte 0 digital outputs. */
function putStatus(rec: DeviceRecord, s: string): void {
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
function fillLast(rec: DeviceRecord, ctx: DecodeContext, sendTime?: number): void {
  if (rec.lat !== undefined) return;
  const last = (ctx.session as Session).last;
  if (rec.time === undefined) rec.time = sendTime ?? last?.time;
  if (!last) return;
  rec.lat = last.lat;
  rec.lng = last.lng;
  if (last.altitude !== undefined) rec.altitude = last.altitude;
  rec.valid = false;
}

function remember(records: DeviceRecord[], ctx: DecodeContext): void {
  for (const r of records) {
    if (r.lat !== undefined && r.valid !== false && r.lng !== undefined) {
      (ctx.session as Session).last = { lat: r.lat, lng: r.lng, altitude: r.altitude, time: r.time };
    }
  }
}

/** Cell block `mcc,mnc,lac(hex),cid(hex)` at `i`, added when all four fields are numbers. */
function putCell(rec: DeviceRecord, v: string[], i: number): void {
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
function readGroup(v: string[], i: number, rec: DeviceRecord): number {
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
function readAppend(v: string[], i: number, rec: DeviceRecord, model: string): number {
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
function findCoordinates(v: string[], from: number): number {
  for (let k = Math.max(from, 4); k + 1 < v.length; k++) {
    if (RE.coord.test(v[k]) && RE.coord.test(v[k + 1])) return k;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Text report decoders. Each gets the split sentence and returns its records.
// ---------------------------------------------------------------------------------------------

interface Msg {
  v: string[];
  type: string; // three letters after GT
  model: string;
  ctx: DecodeContext;
  sendTime?: number;
}

type TextDecoder = (m: Msg) => DeviceRecord[];

/** GTINF motion state -> [ignition, moving]. */
const INF_STATES: Record<number, [boolean | undefined, boolean]> = {
  0x16: [false, true], 0x1a: [false, true], 0x12: [false, true], 0x11: [false, false],
  0x21: [true, false], 0x22: [true, true], 0x41: [undefined, false], 0x42: [undefined, true],
};

/** `+RESP:GTINF`: device information (state, ICCID, signal, power, battery, ...). */
function decodeInf({ v, model }: Msg): DeviceRecord[] {
  const rec = newRecord();
  let i = VIN.test(at(v, 3)) ? 5 : 4; // OBD models put the VIN before the device name
  const state = INF_STATES[hexNum(at(v, i++)) ?? -1];
  if (state) {
    put(rec, Attr.ignition, state[0]);
    put(rec, Attr.motion, state[1]);
  }
  put(rec, Attr.iccid, at(v, i++));
  put(rec, Attr.rssi, num(at(v, i++)));
  i += 2; // signal quality, external power supply flag
  if (at(v, i + 1).length >= 12) {
    i++; // ble sensor mac
    put(rec, Attr.deviceTemp, num(at(v, i++)));
    put(rec, 'humidity', num(at(v, i++)));
  }
  const power = at(v, i++);
  if (power.includes('.')) put(rec, Attr.odometer, num(power) !== undefined ? num(power)! * 1000 : undefined);
  else if (num(power) !== undefined) put(rec, Attr.power, num(power)! / 1000);
  if (model === 'GV350M' || model === 'GV310LAU') i++; // expand mask / network type
  else put(rec, 'power2', num(at(v, i++)) !== undefined ? num(v[i - 1])! / 1000 : undefined);
  put(rec, Attr.battery, num(at(v, i++)));
  if (at(v, i++) === '1') rec.attributes[Attr.charge] = true;
  if (model === 'GV310LAU') {
    i += 5; // led state, power saving, external antenna, last fix time, pin mask
    for (let n = 1; n <= 3; n++) put(rec, indexed.adc(n), num(at(v, i++)));
  }
  return [rec];
}

/** `+RESP:GTVER`: device type, firmware and hardware versions. */
function decodeVer({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, 'deviceType', at(v, 4));
  put(rec, 'versionFw', hexNum(at(v, 5)));
  put(rec, 'versionHw', hexNum(at(v, 6)));
  return [rec];
}

/** Pieces of a FRI tail (after the last location group) in the layouts the firmware families use. */
const TAIL_GL5 = [/^\d{1,2}$/, /^\d{0,5}$/, /^\d{1,3}$/, /^[01]$/, /^[01]?$/, /^(-?\d{1,2}\.\d)?$/];
const ODOMETER = /^\d{1,7}\.\d$/;
const STATUS6 = /^[0-9A-Fa-f]{6}$/;

function decodeFriTail(t: string[], rec: DeviceRecord, reportType: number | undefined): void {
  if (t.length >= 6 && TAIL_GL5.every((re, k) => re.test(t[k]))) {
    // csq ber, battery mV, battery %, mode, motion, temperature
    put(rec, Attr.battery, num(t[1]) !== undefined ? num(t[1])! / 1000 : undefined);
    put(rec, Attr.batteryLevel, num(t[2]));
    put(rec, indexed.temp(1), num(t[5]));
  } else if (t.length >= 9 && /^(\d{1,7}\.\d)?$/.test(t[0]) && /^(\d{5}:\d\d:\d\d)?$/.test(t[1])) {
    // odometer, hour meter, adc1, adc2, [reserved], battery %, device status, rpm, fuel consumption, fuel level
    put(rec, Attr.odometer, num(t[0]) !== undefined ? num(t[0])! * 1000 : undefined);
    put(rec, Attr.hours, parseHours(t[1]));
    if (t[2]) putAnalog(rec, 1, t[2]);
    if (t[3]) putAnalog(rec, 2, t[3]);
    const k = !STATUS6.test(t[5]) && STATUS6.test(t[6] ?? '') ? 5 : 4;
    put(rec, Attr.batteryLevel, num(t[k]));
    if (STATUS6.test(t[k + 1])) putStatus(rec, t[k + 1]);
    put(rec, Attr.rpm, num(t[k + 2]));
    put(rec, Attr.fuel, num(t[k + 4]));
  } else if (t.length >= 2 && /^-?\d$/.test(t[0]) && /^\d{1,3}$/.test(t[1])) {
    // rssi, battery %; the report type carries motion and charging bits
    if (reportType !== undefined) {
      rec.attributes[Attr.motion] = (reportType & 1) !== 0;
      rec.attributes[Attr.charge] = (reportType & 2) !== 0;
    }
    put(rec, Attr.rssi, num(t[0]));
    put(rec, Attr.batteryLevel, num(t[1]));
  } else if (t.length >= 2 && (t[0] === '' || ODOMETER.test(t[0]))) {
    put(rec, Attr.odometer, num(t[0]) !== undefined ? num(t[0])! * 1000 : undefined);
    put(rec, Attr.batteryLevel, /^\d{1,3}$/.test(t[1]) ? num(t[1]) : undefined);
  } else if (t.length >= 1 && /^\d{1,3}$/.test(t[0])) {
    put(rec, Attr.batteryLevel, num(t[0]));
  }
}

/**
 * `GTFRI` and friends (GEO, RTL, DOG): `[vin],name,<prefix: power,report type,count,...>` then one or
 * more location groups (each ending with rssi or odometer), then a model-dependent tail.
 */
function decodeFri(m: Msg): DeviceRecord[] {
  const { v } = m;
  let i = 3;
  const vin = VIN.test(at(v, i)) ? v[i++] : undefined;
  i++; // device name
  const anchor = findCoordinates(v, i);
  const groupStart = anchor >= 0 ? anchor - 4 : i + 3;
  if (groupStart < i) bad('location group overlaps header');
  const prefix = v.slice(i, groupStart);
  const records: DeviceRecord[] = [];
  let j = groupStart;
  do {
    const rec = newRecord();
    put(rec, Attr.vin, vin);
    j = readGroup(v, j, rec);
    const last = at(v, j++);
    if (ODOMETER.test(last)) put(rec, Attr.odometer, Number(last) * 1000);
    records.push(rec);
  } while (records.length < 100 && RE.coord.test(v[j + 4] ?? '') && RE.coord.test(v[j + 5] ?? ''));
  const rec = records[records.length - 1];
  const power = num(prefix[0]);
  if (power !== undefined && power > 10) put(rec, Attr.power, power / 1000);
  if (prefix.length >= 5) put(rec, Attr.batteryLevel, num(prefix[4]));
  decodeFriTail(v.slice(j, v.length - 2), rec, num(prefix[1]));
  return records;
}

/** `GTERI`: FRI with an ERI mask announcing the peripheral blocks that follow the fixed fields. */
function decodeEri(m: Msg): DeviceRecord[] {
  const { v, model } = m;
  let i = 3;
  const vin = model === 'GV500' ? at(v, i++) : undefined;
  i++; // device name
  const mask = hexNum(at(v, i++)) ?? 0;
  const power = num(at(v, i++));
  i++; // report type
  const count = countOf(at(v, i++));
  if (count === 0) bad('ERI without location');
  const records: DeviceRecord[] = [];
  for (let n = 0; n < count; n++) {
    const rec = newRecord();
    put(rec, Attr.vin, vin);
    i = readAppend(v, readGroup(v, i, rec), rec, model);
    records.push(rec);
  }
  const rec = records[records.length - 1];
  put(rec, Attr.power, power !== undefined ? power / 1000 : undefined);
  i = eriFixed(v, i, rec, model, mask);
  eriBlocks(v, i, rec, model, mask);
  return records;
}

const bit = (mask: number, n: number) => Math.floor(mask / 2 ** n) % 2 === 1;

/** The fixed ERI fields between the locations and the mask blocks, which differ per model family. */
function eriFixed(v: string[], i: number, rec: DeviceRecord, model: string, mask: number): number {
  const gl5 = model.startsWith('GL5');
  if (!gl5) put(rec, Attr.odometer, num(at(v, i++)) !== undefined ? num(v[i - 1])! * 1000 : undefined);
  if (!gl5 && model !== 'GL320M') {
    put(rec, Attr.hours, parseHours(at(v, i++)));
    if (at(v, i++)) putAnalog(rec, 1, v[i - 1]);
  }
  if (model.startsWith('GV') && !model.startsWith('GV6') && model !== 'GV350M' && model !== 'GV65') {
    if (at(v, i++)) putAnalog(rec, 2, v[i - 1]);
  }
  if (model === 'GV200' || model === 'GV310LAU' || model === 'GV350CEU') {
    if (at(v, i++)) putAnalog(rec, 3, v[i - 1]);
  } else if ((model.startsWith('GV3') && model.endsWith('CEU')) || model.startsWith('GV600M')) {
    i++; // reserved
  }
  if (gl5) {
    put(rec, Attr.batteryLevel, num(at(v, i++)));
    i++; // mode selection
    if (at(v, i++)) put(rec, Attr.motion, (num(v[i - 1]) ?? 0) > 0);
  } else if (model === 'GV200') {
    put(rec, Attr.input, hexNum(at(v, i++)));
    put(rec, Attr.output, hexNum(at(v, i++)));
    i++; // uart device type
  } else if (model === 'GL320M') {
    put(rec, Attr.batteryLevel, num(at(v, i++)));
    if (bit(mask, 7)) put(rec, 'externalBattery', num(at(v, i++)));
  } else {
    put(rec, Attr.batteryLevel, num(at(v, i++)));
    putStatus(rec, at(v, i++));
    i++; // reserved / uart device type
  }
  return i;
}

/** ERI mask blocks: fuel sensors, 1-wire temperatures, BLE accessories. */
function eriBlocks(v: string[], i: number, rec: DeviceRecord, model: string, mask: number): void {
  const end = v.length - 2;
  if (bit(mask, 0) && model !== 'GV350M') put(rec, Attr.fuel, hexNum(at(v, i++)));
  if (bit(mask, 29)) {
    i += 2; // reserved
    const dataMask = hexNum(at(v, i++)) ?? 0;
    if (dataMask & 1) put(rec, Attr.fuel, hexNum(at(v, i++)));
    if (dataMask & 2) i++; // fuel height
  }
  if (bit(mask, 1)) {
    const n = countOf(at(v, i++));
    for (let k = 1; k <= n; k++) {
      i += 2; // sensor id, type
      const raw = hexNum(at(v, i++));
      if (raw !== undefined) put(rec, indexed.temp(k), ((raw << 16) >> 16) * 0.0625); // int16, 1/16 degree
    }
  }
  if (bit(mask, 2)) return; // CAN block follows: reported separately as GTCAN
  const gv350fuel = bit(mask, 0) && model === 'GV350M';
  if ((bit(mask, 3) || bit(mask, 4) || gv350fuel) && i < end) {
    const n = countOf(at(v, i++));
    for (let k = 0; k < n; k++) {
      i++; // sensor type
      if (model === 'GV350M') {
        i++; // uart id
        if (bit(mask, 0)) put(rec, Attr.fuel, hexNum(at(v, i++)));
      }
      if (bit(mask, 3)) put(rec, Attr.fuel, num(at(v, i++)));
      if (bit(mask, 4)) i++; // volume
      if (bit(mask, 10)) i++; // fuel temperature
    }
  }
  if (bit(mask, 7) && model !== 'GL320M') {
    const n = countOf(at(v, i++));
    for (let k = 0; k < n; k++) {
      i++; // serial number
      const type = num(at(v, i++));
      i += type === 2 ? 2 : 1; // temperature, [humidity]
    }
  }
  if (bit(mask, 8) && model !== 'GL320M') i = eriAccessories(v, i, rec, model);
}

/** BLE accessory fields by append-mask bit: [attribute suffix or null to skip]. */
const ACCESSORY_FIELDS: Array<[number, string | null, 'text' | 'number']> = [
  [0, null, 'text'], // name
  [1, 'Id', 'text'],
  [2, null, 'text'], // status
  [3, null, 'text'], // battery level
  [4, 'Temp', 'number'],
  [5, 'Humidity', 'number'],
  [7, null, 'text'], // input / output
  [8, null, 'text'], // event notification
  [9, null, 'text'], // tire pressure
  [10, null, 'text'], // timestamp
  [11, null, 'text'], // enhanced temperature
  [12, null, 'text'], // magnet
  [13, 'Battery', 'number'],
  [14, null, 'text'], // relay
];

function eriAccessories(v: string[], i: number, rec: DeviceRecord, model: string): number {
  const n = countOf(at(v, i++));
  for (let k = 1; k <= n; k++) {
    i += model.startsWith('GV600M') ? 5 : 4; // index, type, model, [raw length], raw data
    const deviceMask = hexNum(at(v, i++)) ?? 0;
    for (const [b, suffix, kind] of ACCESSORY_FIELDS) {
      if (!bit(deviceMask, b)) continue;
      const s = at(v, i++);
      if (suffix) put(rec, `tag${k}${suffix}`, kind === 'number' ? num(s) : s);
    }
  }
  return i;
}

/** `GTIGN/GTIGF/GTVGN/GTVGF`: ignition on/off with its duration, location, hour meter and mileage. */
function decodeIgn(m: Msg): DeviceRecord[] {
  const { v, model, type } = m;
  const rec = newRecord();
  let i = 4; // after device name
  if (model === 'CV200') i += 2; // reserved, report type
  i++; // duration of the previous ignition state
  i = readAppend(v, readGroup(v, i, rec), rec, model);
  rec.attributes[Attr.ignition] = type.includes('GN');
  put(rec, Attr.hours, parseHours(at(v, i++)));
  const odometer = num(at(v, i++));
  put(rec, Attr.odometer, odometer !== undefined ? odometer * 1000 : undefined);
  return [rec];
}

/** `GTDAT`: transparent data from the serial port, with location. */
function decodeDat({ v, model }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, 'data', at(v, 7));
  readAppend(v, readGroup(v, 8, rec), rec, model);
  return [rec];
}

/** Reads one location group at `i` plus an optional odometer field after the cell block. */
function groupWithOdometer(v: string[], i: number, rec: DeviceRecord): number {
  i = readGroup(v, i, rec);
  for (const s of [v[i], v[i + 1]]) {
    if (s !== undefined && ODOMETER.test(s)) put(rec, Attr.odometer, Number(s) * 1000);
  }
  return i;
}

/** `GTLSW/GTTSW`: input 1 / input 2 (ignition) switch state. */
function decodeLsw({ v, type }: Msg): DeviceRecord[] {
  const rec = newRecord();
  rec.attributes[indexed.in(type === 'LSW' ? 1 : 2)] = at(v, 5) === '1';
  groupWithOdometer(v, 6, rec);
  return [rec];
}

/** `GTIDA`: driver identification (RFID / iButton). */
function decodeIda({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, Attr.driverUniqueId, at(v, 5));
  groupWithOdometer(v, 8, rec);
  return [rec];
}

/** `GTDAR`: driver behaviour (fatigue) warning. */
function decodeDar({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  const warning = num(at(v, 4));
  if (warning === 1) {
    rec.attributes[Attr.alarm] = Alarm.fatigueDriving;
    put(rec, 'fatigueDegree', num(at(v, 5)));
  } else put(rec, 'warningType', warning);
  groupWithOdometer(v, 8, rec);
  return [rec];
}

/** `GTDTT`: transparent data as hex; a fuel sensor `COMB` line carries the fuel level. */
function decodeDtt({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  const hex = at(v, 8);
  if (!RE.hex.test(hex) || hex.length % 2) bad('bad DTT data');
  const data = Buffer.from(hex, 'hex').toString('latin1');
  const comb = data.indexOf('COMB');
  if (comb >= 0) put(rec, Attr.fuel, num(data.slice(comb).split(',')[2]));
  else put(rec, Attr.result, data);
  return [rec];
}

/** Accessory fields of GTBAA (bits 0..5 of the append mask) and GTBID (bits 1 and 3). */
const BAA_FIELDS: Array<[number, string, (s: string) => string | number | undefined]> = [
  [0, 'accessoryName', (s) => s],
  [1, 'accessoryMac', (s) => s],
  [2, 'accessoryStatus', num],
  [3, 'accessoryVoltage', (s) => (num(s) !== undefined ? num(s)! / 1000 : undefined)],
  [4, 'accessoryTemp', num],
  [5, 'accessoryHumidity', num],
];

function decodeAccessory({ v, type }: Msg): DeviceRecord[] {
  const rec = newRecord();
  let i = type === 'BAA' ? 8 : 6; // position of the append mask
  const mask = hexNum(at(v, i++)) ?? 0;
  for (const [b, key, conv] of BAA_FIELDS) {
    if (type === 'BID' && b !== 1 && b !== 3) continue;
    if (bit(mask, b)) put(rec, key, conv(at(v, i++)));
  }
  groupWithOdometer(v, i, rec);
  return [rec];
}

/** `GTOBD`: OBD-II data (positional after the echoed VIN), then location and mileage. */
function decodeObd({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  let i = 3;
  if (VIN.test(at(v, i))) put(rec, Attr.vin, v[i]);
  i += 4; // vin, device name, report type, report mask
  if (VIN.test(at(v, i))) put(rec, Attr.vin, v[i]);
  i++;
  i += 3; // obd connection, obd voltage, supported pids
  put(rec, Attr.rpm, num(at(v, i++)));
  put(rec, Attr.obdSpeed, num(at(v, i++)));
  put(rec, Attr.coolantTemp, num(at(v, i++)));
  put(rec, Attr.fuelConsumption, num(at(v, i++)));
  const anchor = findCoordinates(v, i);
  if (anchor >= 0) groupWithOdometer(v, anchor - 4, rec);
  return [rec];
}

/** `GTCAN` report-mask fields in bit order of appearance: [bit, attribute, conversion]. */
type Conv = (s: string) => string | number | boolean | undefined;
const strip = (prefix: string) => (s: string) => num(s.startsWith(prefix) ? s.slice(prefix.length) : s);
const CAN_FIELDS: Array<[number, string | null, Conv]> = [
  [0, Attr.vin, (s) => s],
  [1, Attr.ignition, (s) => (num(s) !== undefined ? num(s)! > 0 : undefined)],
  [2, 'obdOdometer', (s) => (s.startsWith('H') && num(s.slice(1)) !== undefined ? num(s.slice(1))! * 100 : undefined)],
  [3, Attr.fuelUsed, (s) => (s.startsWith('K') ? undefined : strip('L')(s))],
  [5, Attr.rpm, num],
  [4, Attr.obdSpeed, num],
  [6, Attr.coolantTemp, num],
  [7, Attr.fuelConsumption, (s) => (s.startsWith('L/H') ? num(s.slice(3)) : undefined)],
  [8, Attr.fuel, (s) => num(s.slice(1))],
  [9, 'range', (s) => (num(s) !== undefined ? num(s)! * 100 : undefined)],
  [10, Attr.throttle, num],
  [11, Attr.hours, (s) => (num(s) !== undefined ? Math.round(num(s)! * 3600000) : undefined)],
  [12, 'drivingTime', num],
  [13, 'idleHours', num],
  [14, 'idleFuelConsumption', (s) => (s.startsWith('K') ? undefined : strip('L')(s))],
  [15, 'axleWeight', num],
  [16, 'tachographInfo', hexNum],
  [17, 'indicators', hexNum],
  [18, 'lights', hexNum],
  [19, 'doors', hexNum],
  [20, 'vehicleOverspeed', num],
  [21, 'engineOverspeed', num],
];

/** Expansion-mask fields (null attribute = skipped). */
const CAN_EXT_FIELDS: Array<[number, string | null, Conv]> = [
  [0, 'adBlueLevel', (s) => num(/^[LP]/.test(s) ? s.slice(1) : s)],
  [1, 'axleWeight1', num],
  [2, 'axleWeight3', num],
  [3, 'axleWeight4', num],
  [4, null, num], [5, null, num], [6, null, num], // tachograph overspeed, motion, direction
  [7, indexed.adc(1), (s) => (num(s) !== undefined ? num(s)! / 1000 : undefined)],
  [8, null, num], [9, null, num], [10, null, num], [11, null, num], [12, null, num], [13, null, num], [14, null, num],
  [15, 'driver1Card', (s) => s],
  [16, 'driver2Card', (s) => s],
  [17, 'driver1Name', (s) => s],
  [18, 'driver2Name', (s) => s],
  [19, 'registration', (s) => s],
  [20, null, num], [21, null, num], [22, null, num], [23, null, num], [24, null, num], [25, null, num],
];

function walkFields(v: string[], i: number, rec: DeviceRecord, mask: number, fields: Array<[number, string | null, Conv]>): number {
  for (const [b, key, conv] of fields) {
    if (!bit(mask, b)) continue;
    const s = at(v, i++);
    if (key && s !== '') put(rec, key, conv(s));
  }
  return i;
}

/** Skips one masked block `<mask>,<one field per set bit>`. */
function skipMasked(v: string[], i: number): number {
  const m = hexNum(at(v, i)) ?? 0;
  let bits = 0;
  for (let b = 0; b < 48; b++) if (bit(m, b)) bits++;
  return i + 1 + bits;
}

/** `GTCAN`: vehicle CAN-bus data, laid out by the CAN report mask and its expansion masks. */
function decodeCan(m: Msg): DeviceRecord[] {
  const { v, model } = m;
  const rec = newRecord();
  const ceu = /^GV35.CEU$/.test(model);
  const mask = hexNum(at(v, 6)) ?? 0;
  let i = walkFields(v, 7, rec, mask, CAN_FIELDS);
  const modelBits = model === 'GV350M' ? [22, 23, 24] : ceu ? [23, 24, 25, 26, 27] : [];
  for (const b of modelBits) if (bit(mask, b)) i++;
  let ext = 0;
  if (bit(mask, 29) && at(v, i++) !== '') ext = hexNum(v[i - 1]) ?? 0;
  i = walkFields(v, i, rec, ext, CAN_EXT_FIELDS);
  if (!ceu && bit(ext, 26)) i++; // tachograph driver 1 working time mask
  if (!ceu && bit(ext, 27)) i++; // tachograph driver 2 working time mask
  if (bit(ext, 28)) i += 1 + (ceu && at(v, i) !== '' ? countOf(v[i]) : 0); // dtc codes
  if (bit(ext, 29)) i++; // gaseous fuel level
  if (bit(ext, 30)) i++; // tachograph information expand
  let can = 0;
  if (bit(ext, 31) && at(v, i++) !== '') can = hexNum(v[i - 1]) ?? 0;
  i = skipCanExpansion(v, i, model, ceu, mask, ext, can);
  if (model !== 'GV355CEU' && bit(mask, 30)) {
    while (at(v, i) === '') i++;
    rec.valid = (num(v[i++]) ?? 0) > 0;
    if (at(v, i) !== '') {
      const valid = rec.valid;
      readCanLocation(v, i, rec);
      rec.valid = valid && rec.lat !== undefined;
      i += 6;
      if (bit(mask, 31)) putCell(rec, v, i);
    }
  }
  return [rec];
}

function readCanLocation(v: string[], i: number, rec: DeviceRecord): void {
  rec.speed = num(at(v, i)) ?? 0;
  rec.course = num(at(v, i + 1)) ?? 0;
  rec.altitude = num(at(v, i + 2)) ?? 0;
  const lng = num(at(v, i + 3));
  const lat = num(at(v, i + 4));
  const time = parseTime(at(v, i + 5));
  if (lng !== undefined && lat !== undefined && time !== undefined) Object.assign(rec, { lng, lat, time });
}

/** Fields of the third CAN mask and the model-specific masked blocks that carry nothing we map. */
function skipCanExpansion(v: string[], i: number, model: string, ceu: boolean, mask: number, ext: number, can: number): number {
  if (bit(can, 0)) i++; // retarder usage
  if (bit(can, 1)) i++; // power mode
  if (model !== 'GV350CEU' && bit(can, 2)) i++; // tachograph timestamp
  if (ceu) {
    for (let b = 4; b <= 12; b++) if (bit(can, b)) i++;
    if (bit(can, 14)) i++; // gross vehicle weight
    if (bit(can, 15)) i += 1 + (at(v, i) === '' ? 0 : countOf(v[i])) * 5; // tyres
    for (let b = 16; b <= 19; b++) if (bit(can, b)) i++;
    if (bit(can, 3)) i = skipMasked(v, i); // e-genset data
    if (bit(mask, 28)) i = skipMasked(v, i); // electric vehicle data
  }
  if (model === 'GV355CEU') {
    for (const b of [26, 27]) if (bit(ext, b)) i = skipMasked(v, i); // tachograph working times
  }
  return i;
}

/** `GTWIF`: Wi-Fi access points seen (no GNSS). */
function decodeWif({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  const macs: string[] = [];
  for (let i = 5; i + 1 < v.length - 3; i += 5) if (RE.hex12.test(v[i])) macs.push(`${v[i]}:${v[i + 1]}`);
  put(rec, 'wifi', macs.join(' '));
  put(rec, Attr.batteryLevel, num(at(v, v.length - 3)));
  return [rec];
}

/** Cell blocks of 6 fields (`mcc,mnc,lac,cid,rxlevel,reserved`) starting at `i`, up to `end`. */
function readCells(v: string[], i: number, end: number, rec: DeviceRecord, max: number): void {
  const cells: Cell[] = [];
  for (let n = 0; n < max && i + 4 < end; n++, i += 6) {
    const [mcc, mnc, lac, cid, rssi] = [num(v[i]), num(v[i + 1]), hexNum(v[i + 2]), hexNum(v[i + 3]), num(v[i + 4])];
    if (mcc !== undefined && mnc !== undefined && lac !== undefined && cid !== undefined) {
      cells.push(rssi !== undefined ? { mcc, mnc, lac, cid, rssi } : { mcc, mnc, lac, cid });
    }
  }
  if (cells.length) rec.cells = cells;
}

/** `GTGSM`: neighbouring and serving cells. */
function decodeGsm({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  readCells(v, 4, v.length - 2, rec, 7);
  return [rec];
}

/** `GTLBS`: battery and up to seven cells. */
function decodeLbs({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, Attr.batteryLevel, num(at(v, 6)));
  readCells(v, 12, v.length - 2, rec, 7);
  return [rec];
}

/** `GTPNA/GTPFA`: power on / off. */
function decodePna({ type }: Msg): DeviceRecord[] {
  const rec = newRecord();
  rec.attributes[Attr.alarm] = type === 'PNA' ? Alarm.powerOn : Alarm.powerOff;
  return [rec];
}

/** Alarms that a report type stands for. */
const TYPE_ALARMS: Record<string, string> = {
  SOS: Alarm.sos, SPD: Alarm.overspeed, TOW: Alarm.tow, IDL: Alarm.idle,
  EPN: Alarm.powerRestored, MPN: Alarm.powerRestored, EPF: Alarm.powerCut, MPF: Alarm.powerCut,
  BPL: Alarm.lowBattery, STT: Alarm.movement, SWG: Alarm.geofence, TMP: Alarm.temperature, TEM: Alarm.temperature,
  JDR: Alarm.jamming, JDS: Alarm.jamming,
};

/** Harsh behaviour kind in the low nibble of the GTHBM report type. */
const HBM_ALARMS = [Alarm.hardBraking, Alarm.hardAcceleration, Alarm.hardCornering, Alarm.hardBraking, Alarm.hardAcceleration];

/** Report-type effects of the generic decoder. */
const REPORT_TYPE_EFFECTS: Record<string, (rec: DeviceRecord, t: number, m: Msg) => void> = {
  NMR: (rec, t) => (rec.attributes[Attr.motion] = t === 1),
  DIS: (rec, t) => (rec.attributes[indexed.in(t >> 4)] = (t & 0xf) === 1),
  IGL: (rec, t) => (rec.attributes[Attr.ignition] = (t & 0xf) === 1),
  HBM: (rec, t) => {
    if (HBM_ALARMS[t & 0xf]) rec.attributes[Attr.alarm] = HBM_ALARMS[t & 0xf];
  },
  STR: (rec, _t, m) => putStrBattery(rec, m),
  CTN: (rec, _t, m) => putStrBattery(rec, m),
};

function putStrBattery(rec: DeviceRecord, { v, model }: Msg): void {
  if (/^GL5[03]0$/.test(model)) put(rec, Attr.batteryLevel, num(v[8]));
}

/**
 * Any other report: the layouts share `...,hdop,speed,course,altitude,lon,lat,utc,mcc,mnc,lac,cid,...`,
 * so the fix is found by its coordinate pair and the cell by its shape.
 */
function decodeBasic(m: Msg): DeviceRecord[] {
  const { v, type } = m;
  const rec = newRecord();
  const rt = [v[4], v[5]].find((s) => s !== undefined && /^[0-9A-Fa-f]{1,2}$/.test(s));
  if (rt !== undefined) REPORT_TYPE_EFFECTS[type]?.(rec, parseInt(rt, 16), m);
  const k = findCoordinates(v, 4);
  let i = 3;
  if (k >= 0 && k + 2 < v.length) {
    readGroupAt(v, k - 4, rec);
    i = k + 3;
  }
  for (; i + 3 < v.length; i++) {
    if (/^\d{4}$/.test(v[i]) && /^\d{4}$/.test(v[i + 1]) && /^[0-9A-Fa-f]{4}$/.test(v[i + 2]) && /^[0-9A-Fa-f]{4,8}$/.test(v[i + 3])) {
      putCell(rec, v, i);
      break;
    }
  }
  if (rec.lat !== undefined && /^(0|[1-9]\d{0,2})$/.test(v[v.length - 3] ?? '')) put(rec, Attr.batteryLevel, num(v[v.length - 3]));
  if (TYPE_ALARMS[type]) rec.attributes[Attr.alarm] = TYPE_ALARMS[type];
  return rec.lat !== undefined || rec.cells || Object.keys(rec.attributes).length ? [rec] : [];
}

/** hdop..utc of a location group whose longitude is at `i + 4`, without the cell part. */
function readGroupAt(v: string[], i: number, rec: DeviceRecord): void {
  const hdop = num(v[i]);
  if (hdop !== undefined) rec.hdop = hdop;
  rec.speed = num(v[i + 1]) ?? 0;
  rec.course = num(v[i + 2]) ?? 0;
  rec.altitude = num(v[i + 3]) ?? 0;
  rec.lng = Number(v[i + 4]);
  rec.lat = Number(v[i + 5]);
  rec.valid = hdop === undefined || hdop > 0;
  const time = parseTime(v[i + 6]);
  if (time !== undefined) rec.time = time;
}

/** Report type -> decoder; anything else goes to `decodeBasic`. */
const TEXT_DECODERS: Record<string, TextDecoder> = {
  INF: decodeInf, VER: decodeVer, OBD: decodeObd, CAN: decodeCan,
  FRI: decodeFri, GEO: decodeFri, RTL: decodeFri, DOG: decodeFri,
  ERI: decodeEri, IGN: decodeIgn, IGF: decodeIgn, VGN: decodeIgn, VGF: decodeIgn,
  LSW: decodeLsw, TSW: decodeLsw, IDA: decodeIda, WIF: decodeWif, GSM: decodeGsm, PNA: decodePna, PFA: decodePna,
  DAR: decodeDar, DTT: decodeDtt, BAA: decodeAccessory, BID: decodeAccessory, LBS: decodeLbs, DAT: decodeDat,
};

/** Status-only reports: their records never borrow the last known position. */
const STATUS_TYPES = new Set(['INF', 'VER', 'WIF', 'GSM', 'LBS', 'PNA', 'PFA', 'DTT']);

function decodeText(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const sentence = frame.toString('latin1').replace(/[\r\n\0]+$/, '').replace(/\$$/, '');
  const header = /^\+(RESP|BUFF|ACK|NACK):GT([A-Z0-9]{3})(?:,|$)/.exec(sentence);
  if (!header) bad('not an @Track sentence');
  const [, kind, type] = header!;
  const v = sentence.split(',');
  const gt300 = /^\d{15}$/.test(v[1] ?? ''); // GT300 dialect: no protocol version, IMEI first
  const imei = gt300 ? v[1] : at(v, 2);
  if (!RE.imei.test(imei)) bad(`bad IMEI ${imei}`);
  const count = v[v.length - 1];
  if (kind === 'ACK' || kind === 'NACK') return decodeTextAck(v, type, imei, sentence);
  const result: DecodeResult = { deviceId: imei };
  const sendTime = parseTime(v[v.length - 2]);
  const m: Msg = { v, type, model: modelOf(gt300 ? '' : v[1], ctx), ctx, sendTime };
  let records: DeviceRecord[];
  if (gt300 && type === 'INF') records = []; // GT300 information layout is not decoded
  else if (gt300) records = decodeBasic(m);
  else {
    records = TEXT_DECODERS[type]?.(m) ?? [];
    if (!records.length) records = decodeBasic(m);
  }
  for (const rec of records) {
    rec.attributes.type = type;
    if (kind === 'BUFF') rec.attributes[Attr.archive] = true;
    if (STATUS_TYPES.has(type)) {
      if (rec.time === undefined) rec.time = sendTime;
    } else fillLast(rec, ctx, sendTime);
  }
  remember(records, ctx);
  result.records = records;
  if (ctx.config.ack && RE.count.test(count)) result.reply = Buffer.from(`+SACK:${count}$`, 'latin1');
  return result;
}

/** `+ACK:GTHBD` is the heartbeat (answered with `+SACK:GTHBD`); other ACKs are command replies. */
function decodeTextAck(v: string[], type: string, imei: string, sentence: string): DecodeResult {
  if (type === 'HBD') {
    const count = v[v.length - 1];
    return { deviceId: imei, reply: Buffer.from(`+SACK:GTHBD,${v[1]},${count}$`, 'latin1') };
  }
  const rec = newRecord();
  rec.attributes[Attr.result] = sentence;
  rec.attributes.type = type;
  const time = parseTime(v[v.length - 2]);
  if (time !== undefined) rec.time = time;
  return { deviceId: imei, records: [rec] };
}

function modelOf(version: string, ctx: DecodeContext): string {
  const declared = ctx.config.model ?? ctx.config.modelOverride;
  if (typeof declared === 'string' && declared) return declared.toUpperCase();
  const prefix = (version.length > 6 ? version.slice(0, 6) : version.slice(0, 2)).toUpperCase();
  return MODELS[prefix] ?? '';
}

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

function decodeHex(frame: Buffer): DecodeResult {
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

function decodePro(frame: Buffer, ctx: DecodeContext): DecodeResult {
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

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 5) bad('frame too short');
  const format = formatOf(frame);
  if (format === 'text') return decodeText(frame, ctx);
  const result = format === 'hex' ? decodeHex(frame) : decodePro(frame, ctx);
  if (result.records) remember(result.records, ctx);
  if (result.reply === undefined) delete result.reply;
  return result;
}

/** Commands as @Track AT commands; the password is the device's configured one (default `gl200`). */
const COMMANDS: Record<string, (pw: string, c: Command) => string> = {
  positionSingle: (pw) => `AT+GTRTO=${pw},1,,,,,,FFFF$`,
  rebootDevice: (pw) => `AT+GTRTO=${pw},3,,,,,,FFFF$`,
  engineStop: (pw) => `AT+GTOUT=${pw},1,,,0,0,0,0,0,0,0,,,,,,,FFFF$`,
  engineResume: (pw) => `AT+GTOUT=${pw},0,,,0,0,0,0,0,0,0,,,,,,,FFFF$`,
  custom: (_pw, c) => String(c.attributes.data ?? ''),
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`gl200: unsupported command ${command.type}`);
  const pw = typeof ctx.config.password === 'string' && ctx.config.password ? ctx.config.password : 'gl200';
  return Buffer.from(build(pw, command), 'latin1');
}

export const protocol: Protocol = {
  name: 'gl200',
  defaultPort: 5004,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
