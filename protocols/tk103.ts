/**
 * TK103 text protocol: every message is `(` ... `)`.
 *
 *   compact  `(<12-char id><type><data><yymmdd><A|V><ddmm.mmmm><N|S><dddmm.mmmm><E|W><kmh><hhmmss><course><io>L<odometer>)`
 *            e.g. BP00 handshake (-> AP01HSO), BP05 login (-> AP05), BR00 position, BO01 alarm (-> AS01),
 *            BQ81 alarm, BZ00 cells, BV00 VIN, BS50/BS51 battery management data
 *   comma    `(<imei>,<type>,<ddmmyy>,<A|V>,<lat>N,<lon>E,<kmh>,<hhmmss>,<course>,<altitude>,<satellites>)`
 *            e.g. ZC/DW event reports, ZC20 battery, ZC03 command reply `$text$`, DW5x cell + WiFi
 * Speeds are km/h.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
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

const MAX_FRAME = 2048;
const OPEN = 0x28; // (
const CLOSE = 0x29; // )
const DOLLAR = 0x24; // $ brackets free text (command replies) that may contain ')'

/** Cuts `(`...`)` frames, skipping bytes before `(` and ignoring `)` inside `$`...`$` text. */
function createFramer(): Framer {
  return {
    next(buffer) {
      const start = buffer.indexOf(OPEN);
      if (start < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('tk103: no frame start');
        return null;
      }
      let inText = false;
      for (let i = start + 1; i < buffer.length; i++) {
        if (i - start > MAX_FRAME) throw new FrameError('tk103: frame too long');
        if (buffer[i] === DOLLAR) inText = !inText;
        else if (buffer[i] === CLOSE && !inText) return { frame: buffer.subarray(start, i + 1), consumed: i + 1 };
      }
      if (buffer.length - start > MAX_FRAME) throw new FrameError('tk103: frame too long');
      return null;
    },
  };
}

// ---- message types ----------------------------------------------------------------------------

/** Event types (ZC.. on older firmware, DW3x with GNSS, DW5x with cells/WiFi) and what they mean. */
const TYPE_ATTRIBUTES: Array<[string[], Record<string, AttrValue>]> = [
  [['ZC11', 'DW31', 'DW51'], { [Attr.alarm]: Alarm.movement }],
  [['ZC12', 'DW32', 'DW52'], { [Attr.alarm]: Alarm.lowBattery }],
  [['ZC13', 'DW33', 'DW53'], { [Attr.alarm]: Alarm.powerCut }],
  [['ZC15', 'DW35', 'DW55', 'ZC29', 'DW42', 'DW62'], { [Attr.ignition]: true }],
  [['ZC16', 'DW36', 'DW56'], { [Attr.ignition]: false }],
  [['ZC17', 'DW37', 'DW57'], { [Attr.alarm]: Alarm.removing }],
  [['ZC25', 'DW3E', 'DW5E'], { [Attr.alarm]: Alarm.sos }],
  [['ZC26', 'DW3F', 'DW5F'], { [Attr.alarm]: Alarm.tampering }],
  [['ZC27', 'DW40', 'DW60'], { [Attr.alarm]: Alarm.lowPower }],
];
const TYPES = new Map(TYPE_ATTRIBUTES.flatMap(([types, attrs]) => types.map((t) => [t, attrs] as const)));

/** BQ81 data digit and BO01 alarm digit. */
const BQ81_ALARMS = [Alarm.lowBattery, Alarm.overspeed, Alarm.idle, Alarm.hardAcceleration, Alarm.hardBraking, Alarm.temperature];
const BO01_ALARMS = ['', Alarm.accident, Alarm.sos, Alarm.vibration, 'lowspeed', Alarm.overspeed, Alarm.geofenceExit];

function typeAttributes(type: string, data: string | undefined): Record<string, AttrValue> {
  const alarm = type === 'BQ81' ? BQ81_ALARMS[Number(data)] : type === 'BO01' ? BO01_ALARMS[Number(data?.[0])] : undefined;
  if (alarm) return { [Attr.alarm]: alarm };
  return { ...(TYPES.get(type) ?? {}) };
}

// ---- helpers ----------------------------------------------------------------------------------

const utc = (y: string, mo: string, d: string, h: string, mi: string, s: string) =>
  Date.UTC(2000 + Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
/** `(d*)(dd.d+)` degrees and minutes, with the hemisphere letter. */
const coordinate = (deg: string, min: string, hem: string) => (Number(deg || 0) + Number(min) / 60) * (hem === 'S' || hem === 'W' ? -1 : 1);
const bit = (v: number, n: number) => ((v >> n) & 1) === 1;

interface Header {
  id: string;
  type: string;
  rest: string;
  compact: boolean;
}

/** Compact header: 12-character id (11 or 15 digits occur too) then a `B..` type; else `(id,type,`. */
const COMPACT_HEAD = /^\(?(\d{15}|[^,()]{12}|[^,()]{11})(B[A-Z][0-9A-Z]{2})/;
const COMMA_HEAD = /^\(?([^,()]{1,20}),([0-9A-Z]{4}),/;

function header(s: string): Header {
  const c = COMPACT_HEAD.exec(s);
  if (c) return { id: c[1], type: c[2], rest: s.slice(c[0].length), compact: true };
  const m = COMMA_HEAD.exec(s);
  if (m) return { id: m[1], type: m[2], rest: s.slice(m[0].length), compact: false };
  throw new DecodeError('tk103: unknown header');
}

// ---- positions --------------------------------------------------------------------------------

const BODY =
  /^(?:,?ALARM,(\d),\d+,|,[A-Z]+,\d+,|,?(\d*))(\d\d)(\d\d)(\d\d),?([AV]),? *(\d*)(\d\d\.\d+)([NS]),? *(\d*)(\d\d\.\d+)([EW]),?([ \d.]{1,5})(?:\d*,)?(\d\d)(\d\d)(\d\d),?([\s\S]*)$/;
/** Compact tail: course, charge, ignition, three IO nibbles, fuel, `L` odometer, optional temperature. */
const IO_TAIL = /^(?:([ \d.]{6})|(\d\d)),?([01])([01])([0-9A-Fa-f])([0-9A-Fa-f])([0-9A-Fa-f])([0-9A-Fa-f]{3})L([0-9A-Fa-f]+)([+-]\d{3}\.\d)?/;
const COURSE_TAIL = /^(\d+\.\d+)(?:,(-?\d+\.\d+)(?:,(\d+))?)?/;

/** The three IO nibbles; cleared bits of the optional signals are reported only with `decodeLow`. */
function decodeIo(a: Record<string, AttrValue>, m1: number, m2: number, m3: number, low: boolean): void {
  a[indexed.in(2)] = bit(m1, 0);
  a.panic = bit(m1, 1);
  a[indexed.out(2)] = bit(m1, 2);
  const optional: Array<[string, number, number]> = [
    [Attr.blocked, m1, 3],
    ['hs3', m2, 0],
    ['hs2', m2, 1],
    ['hs1', m2, 2],
    [Attr.door, m2, 3],
    ['ls3', m3, 1],
    ['ls2', m3, 2],
    ['ls1', m3, 3],
  ];
  for (const [key, mask, n] of optional) if (low || bit(mask, n)) a[key] = bit(mask, n);
}

function decodeTail(record: DeviceRecord, tail: string, h: Header, ctx: DecodeContext): void {
  const io = IO_TAIL.exec(tail);
  const a = record.attributes;
  if (io) {
    const [, course6, course2, charge, ignition, m1, m2, m3, fuel, odometer, temp] = io;
    record.course = Number(course6 ?? course2);
    a[Attr.charge] = charge === '0';
    a[Attr.ignition] = ignition === '1';
    decodeIo(a, parseInt(m1, 16), parseInt(m2, 16), parseInt(m3, 16), ctx.config.decodeLow === true);
    a[Attr.fuel] = parseInt(fuel, 16);
    a[Attr.odometer] = parseInt(odometer.slice(0, 12), 16);
    if (temp) a[indexed.temp(1)] = Number(temp);
    return;
  }
  const c = COURSE_TAIL.exec(tail);
  if (!c) return;
  record.course = Number(c[1]);
  if (!h.compact && c[2] !== undefined) record.altitude = Number(c[2]);
  if (!h.compact && c[3] !== undefined) record.satellites = Number(c[3]);
}

function decodePosition(h: Header, ctx: DecodeContext): DeviceRecord | undefined {
  const m = BODY.exec(h.rest);
  if (!m) return undefined;
  const [, alarmDigit, data, d1, d2, d3, validity, latD, latM, latH, lngD, lngM, lngH, speed, hh, mi, ss, tail] = m;
  // Compact messages date yymmdd, comma-separated ones ddmmyy.
  const time = h.compact ? utc(d1, d2, d3, hh, mi, ss) : utc(d3, d2, d1, hh, mi, ss);
  const record: DeviceRecord = {
    time,
    valid: validity === 'A',
    lat: coordinate(latD, latM, latH),
    lng: coordinate(lngD, lngM, lngH),
    speed: Number(speed.trim() || 0),
    attributes: typeAttributes(h.type, alarmDigit ?? data),
  };
  if (Math.abs(record.lat!) > 90 || Math.abs(record.lng!) > 180 || !Number.isFinite(record.speed)) throw new DecodeError('tk103: bad fix');
  decodeTail(record, tail, h, ctx);
  ctx.session.last = { lat: record.lat, lng: record.lng, time };
  return record;
}

// ---- status and network messages ---------------------------------------------------------------

/** Network-located reports carry no coordinates: they repeat this connection's last fix as invalid. */
function withLastLocation(record: DeviceRecord, ctx: DecodeContext): DeviceRecord {
  const last = ctx.session.last as { lat: number; lng: number } | undefined;
  if (last) Object.assign(record, { valid: false, lat: last.lat, lng: last.lng });
  return record;
}

const LBS_WIFI = /^(\d+),(\d+),(\d+),(\d+),(\d+),((?:[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}\*[-+]?\d+\*\d+,)*)(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d)/;

function decodeLbsWifi(h: Header, ctx: DecodeContext): DeviceRecord | undefined {
  const m = LBS_WIFI.exec(h.rest);
  if (!m) return undefined;
  const [, mcc, mnc, lac, cid, , wifi, dd, mo, yy, hh, mi, ss] = m;
  const record: DeviceRecord = {
    time: utc(yy, mo, dd, hh, mi, ss),
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: Number(lac), cid: Number(cid) }],
    attributes: typeAttributes(h.type, undefined),
  };
  // WiFi access points as `mac*rssi*channel` entries, kept raw for a geolocation service.
  if (wifi) record.attributes.wifi = wifi.slice(0, -1);
  return withLastLocation(record, ctx);
}

const BATTERY = /^(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+),(\d+),(\d+),\d+/;
const BATTERY_LEVELS: Record<string, number> = { 6: 100, 5: 80, 4: 50, 3: 20, 2: 10 };

function decodeBattery(h: Header): DeviceRecord | undefined {
  const m = BATTERY.exec(h.rest);
  if (!m) return undefined;
  const [, dd, mo, yy, hh, mi, ss, level, battery, power] = m;
  const a: Record<string, AttrValue> = {};
  if (BATTERY_LEVELS[level] !== undefined) a[Attr.batteryLevel] = BATTERY_LEVELS[level];
  if (battery !== '65535') a[Attr.battery] = Number(battery) * 0.01;
  if (power !== '65535') a[Attr.power] = Number(power) * 0.1;
  return { time: utc(yy, mo, dd, hh, mi, ss), attributes: a };
}

const RESULT = /^(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),\$([\s\S]*?)(?:\$|\)?$)/;

function decodeResult(h: Header): DeviceRecord | undefined {
  const m = RESULT.exec(h.rest);
  if (!m) return undefined;
  const [, dd, mo, yy, hh, mi, ss, text] = m;
  return { time: utc(yy, mo, dd, hh, mi, ss), attributes: { [Attr.result]: text } };
}

const CELL_LIST = /\{(\d+),(\d+),(\d+),(\d+)\}/g;

/** `{mcc,mnc,lac,cid}` lines (decimal), then an 8-digit hex odometer. */
function decodeCellList(h: Header): DeviceRecord {
  const cells: Cell[] = [...h.rest.matchAll(CELL_LIST)].map((m) => ({ mcc: Number(m[1]), mnc: Number(m[2]), lac: Number(m[3]), cid: Number(m[4]) }));
  const record: DeviceRecord = { cells, attributes: {} };
  const odometer = /,([0-9A-Fa-f]{8})\)?$/.exec(h.rest);
  if (odometer) record.attributes[Attr.odometer] = parseInt(odometer[1], 16);
  return record;
}

/** BZ00: `,mcc,mnc,lac,cid,...` with lac and cid in hex; the first cell is the serving one. */
function decodeNetwork(h: Header): DeviceRecord | undefined {
  const m = /^,(\d+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+),/.exec(h.rest);
  if (!m) return undefined;
  return { cells: [{ mcc: Number(m[1]), mnc: Number(m[2]), lac: parseInt(m[3], 16), cid: parseInt(m[4], 16) }], attributes: {} };
}

function decodeVin(h: Header): DeviceRecord | undefined {
  const m = /^([0-9A-Z]{17})\)?$/.exec(h.rest);
  return m ? { attributes: { [Attr.vin]: m[1] } } : undefined;
}

// ---- battery management system (BS50 binary dump, BS51 tagged values) -------------------------

const hexBytes = (s: string): Buffer => {
  if (!/^(?:[0-9A-Fa-f]{2})*$/.test(s)) throw new DecodeError('tk103: bad hex');
  return Buffer.from(s, 'hex');
};
const celsius = (r: Reader) => r.u8() - 40;

function decodeBms50(hex: string): Record<string, AttrValue> {
  const r = new Reader(hexBytes(hex));
  const a: Record<string, AttrValue> = {};
  r.skip(3); // header
  const cells = r.u8();
  for (let i = 1; i <= 24; i++) {
    const mv = r.u16le();
    if (i <= cells) a[`battery${i}`] = mv * 0.001;
  }
  a[Attr.charge] = r.u8() === 0;
  a.current = r.u16le() * 0.1;
  a[Attr.battery] = r.u16le() * 0.01;
  a[Attr.batteryLevel] = r.u8();
  a.batteryOverheat = r.u8() > 0;
  a.chargeProtection = r.u8() > 0;
  a.dischargeProtection = r.u8() > 0;
  r.skip(2); // drop line, balanced
  a.cycles = r.u16le();
  a.faultAlarm = r.u8();
  r.skip(6);
  const temps = r.u8();
  a.powerTemp = celsius(r);
  a.equilibriumTemp = celsius(r);
  for (let i = 1; i <= 7; i++) {
    const t = celsius(r);
    if (i <= temps) a[`batteryTemp${i}`] = t;
  }
  a.calibrationCapacity = r.u16le() * 0.01;
  a.dischargeCapacity = r.u32le();
  return a;
}

/**
 * BS51 tags: 90 pack totals, 91 cell voltage extremes, 92 temperature extremes, 96 cell temperatures.
 * Values are big-endian here (cell voltages near 3.8 V, current offset 30000 = 0 A), unlike BS50.
 */
const BMS51_TAGS: Record<number, (r: Reader, a: Record<string, AttrValue>) => void> = {
  0x90: (r, a) => {
    a.cumulativeVoltage = r.u16() * 0.1;
    a.gatherVoltage = r.u16() * 0.1;
    a.current = (r.u16() - 30000) * 0.1;
    a.soc = r.u16() * 0.1;
  },
  0x91: (r, a) => {
    a.maxCellVoltage = r.u16() * 0.001;
    a.maxCellVoltageCount = r.u8();
    a.minCellVoltage = r.u16() * 0.001;
    a.minCellVoltageCount = r.u8();
  },
  0x92: (r, a) => {
    a.maxTemp = celsius(r);
    a.maxTempCount = r.u8();
    a.minTemp = celsius(r);
    a.minTempCount = r.u8();
  },
  0x96: (r, a) => {
    r.skip(1); // frame number
    while (r.remaining > 0) a[`cellTemp${r.pos}`] = celsius(r);
  },
};

function decodeBms51(text: string): Record<string, AttrValue> {
  const a: Record<string, AttrValue> = {};
  for (const pair of text.split(',')) {
    const [tag, value] = pair.split(':');
    if (!/^[0-9A-Fa-f]{1,2}$/.test(tag ?? '') || value === undefined) throw new DecodeError('tk103: bad BMS tag');
    BMS51_TAGS[parseInt(tag, 16)]?.(new Reader(hexBytes(value)), a);
  }
  return a;
}

// ---- dispatch ---------------------------------------------------------------------------------

type Decoder = (h: Header, ctx: DecodeContext) => DeviceRecord | undefined;

function pickDecoder(h: Header): Decoder {
  if (h.rest.includes('{')) return decodeCellList;
  if (h.type === 'ZC20') return decodeBattery;
  if (h.type === 'BZ00') return decodeNetwork;
  if (h.type === 'ZC03') return decodeResult;
  if (h.type.startsWith('DW5')) return decodeLbsWifi;
  if (h.type === 'BV00') return decodeVin;
  if (h.type === 'BS50') return (x) => ({ attributes: decodeBms50(x.rest.replace(/\)$/, '')) });
  if (h.type === 'BS51') return (x) => ({ attributes: decodeBms51(x.rest.replace(/\)$/, '')) });
  return decodePosition;
}

const text = (s: string) => Buffer.from(s, 'latin1');

/** Replies the compact-format device waits for: handshake, login and alarm confirmations. */
function replyFor(h: Header): Buffer | undefined {
  if (!h.compact) return undefined;
  if (h.type === 'BP00') return text(`(${h.id}AP01HSO)`);
  if (h.type === 'BP05') return text(`(${h.id}AP05)`);
  if (h.type === 'BO01' && /^\d/.test(h.rest)) return text(`(${h.id}AS01${h.rest[0]})`);
  return undefined;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const h = header(frame.toString('latin1').trim());
  const reply = replyFor(h);
  if (h.type === 'BP00') return { deviceId: h.id, reply };
  const record = pickDecoder(h)(h, ctx);
  return { deviceId: h.id, records: record ? [record] : [], reply };
}

// ---- commands ---------------------------------------------------------------------------------

/** Standard commands: `(<id><code>)`. */
const STANDARD: Record<string, (c: Command) => string | undefined> = {
  custom: (c) => (/^[A-Z]{2}\d{2}/.test(String(c.attributes.data ?? '')) ? String(c.attributes.data) : undefined),
  getVersion: () => 'AP07',
  rebootDevice: () => 'AT00',
  setOdometer: () => 'AX01',
  positionSingle: () => 'AP00',
  positionPeriodic: (c) =>
    c.attributes.frequency === undefined ? undefined : `AR00${Number(c.attributes.frequency).toString(16).toUpperCase().padStart(4, '0')}0000`,
  positionStop: () => 'AR0000000000',
  engineStop: () => 'AV010',
  engineResume: () => 'AV011',
  outputControl: (c) => `AV00${c.attributes.data ?? ''}`,
};

/** Alternative (SMS-style) commands: `[begin]sms2,<text>,[end]`. */
const on = (c: Command) => c.attributes.enable === true || c.attributes.enable === 'true';
const ALTERNATIVE: Record<string, (c: Command) => string> = {
  custom: (c) => String(c.attributes.data ?? ''),
  getVersion: () => '*about*',
  powerOff: () => '*turnoff*',
  rebootDevice: () => '88888888',
  positionSingle: () => '*getposl*',
  positionPeriodic: () => '*routetrack*99*',
  positionStop: () => '*routetrackoff*',
  getDeviceStatus: () => '*status*',
  deviceIdentification: () => '999999',
  modeDeepSleep: (c) => (on(c) ? '*sleep*2*' : '*sleepoff*'),
  modePowerSaving: (c) => (on(c) ? '*sleepv*' : '*sleepoff*'),
  alarmSos: (c) => (on(c) ? '*soson*' : '*sosoff*'),
  setConnection: (c) => `*setip*${String(c.attributes.server ?? '').replaceAll('.', '*')}*${c.attributes.port ?? ''}*`,
  sosNumber: (c) => `*master*${c.attributes.devicePassword ?? '123456'}*${c.attributes.phone ?? ''}*`,
};

/**
 * The standard form unless the device is configured for the alternative one (`alternative: true`)
 * or the command exists only there (free text, a periodic report without interval, SOS settings...).
 */
function encode(command: Command, ctx: EncodeContext): Buffer {
  const standard = ctx.config.alternative === true ? undefined : STANDARD[command.type]?.(command);
  if (standard !== undefined) return text(`(${ctx.deviceId}${standard})`);
  const alternative = ALTERNATIVE[command.type];
  if (!alternative) throw new Error(`tk103: unsupported command ${command.type}`);
  return text(`[begin]sms2,${alternative(command)},[end]`);
}

export const protocol: Protocol = {
  name: 'tk103',
  defaultPort: 5002,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [...new Set([...Object.keys(STANDARD), ...Object.keys(ALTERNATIVE)])],
  carriesText: false,
  encode,
};
