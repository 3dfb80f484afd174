/**
 * Teltonika record contents: the codec ids, the fixed part of an AVL record, what each IO id means per
 * model family, and how an element's bytes become attributes (fixed-size, BLE beacons and tags, variable-length).
 */
import { Reader, i16be, i32be, u16be, u32be } from '../binary.ts';
import { Alarm, Attr, indexed } from '../attributes.ts';
import { DecodeError, type AttrValue } from '../types.ts';

export const CODEC_GH3000 = 0x07;
export const CODEC_8 = 0x08;
export const CODEC_8E = 0x8e;
export const CODEC_12 = 0x0c;
export const CODEC_13 = 0x0d;
export const CODEC_14 = 0x0e;
export const CODEC_16 = 0x10;
export type Attrs = Record<string, AttrValue>;

/** `io<id>` names, made once per id (ids are u16; a dense array: V8 keeps a sparse one as a slower hash table). */
const IO_KEYS: Array<string | undefined> = new Array(65536).fill(undefined);
export const ioKey = (id: number) => (IO_KEYS[id] ??= indexed.io(id));

// ---------------------------------------------------------------------------------------------
// IO element values
//
// Values of 1, 2 and 4 bytes are read inline as an unsigned number `u` (the common case: no call,
// no BigInt); 8-byte values go through these helpers. Callers have bounds-checked the bytes.

/** Unsigned 8-byte value (exact up to 2^53). */
export const uval8 = (b: Buffer, o: number) => u32be(b, o) * 4294967296 + u32be(b, o + 4);
/** Signed value of an element from its unsigned `u` (n = 1, 2, 4) or its bytes (n = 8). */
function signedOf(u: number, b: Buffer, o: number, n: number): number {
  if (n === 1) return (u << 24) >> 24;
  if (n === 2) return (u << 16) >> 16;
  if (n === 4) return u | 0;
  return sval8(b, o);
}
/** Signed 8-byte value (exact up to 2^53). */
export const sval8 = (b: Buffer, o: number) => i32be(b, o) * 4294967296 + u32be(b, o + 4);
/** Unsigned value of an element of n = 1, 2, 4 or 8 bytes. */
function uvalAt(b: Buffer, o: number, n: number): number {
  return n === 1 ? b[o] : n === 2 ? u16be(b, o) : n === 4 ? u32be(b, o) : uval8(b, o);
}
/** Raw value of an element nobody named: 8-byte values stay exact as decimal strings when too large. */
export function rawval8(b: Buffer, o: number): AttrValue {
  const hi = i32be(b, o);
  if (hi >= -0x200000 && hi < 0x200000) return hi * 4294967296 + u32be(b, o + 4);
  return b.readBigInt64BE(o).toString();
}
/** Unsigned / signed value of `n` (1, 2) bytes at `o` of a tag parameter ending at `end`, bounds-checked. */
function uval(b: Buffer, o: number, n: number, end: number): number {
  if (o + n > end) throw new DecodeError('IO value past the end');
  return n === 1 ? b[o] : u16be(b, o);
}
function sval(b: Buffer, o: number, n: number, end: number): number {
  if (o + n > end) throw new DecodeError('IO value past the end');
  return n === 1 ? (b[o] << 24) >> 24 : i16be(b, o);
}

function addAlarm(a: Attrs, name: string): void {
  a.alarm = a.alarm ? `${a.alarm},${name}` : name;
}

/**
 * What an IO element becomes. One object shape for every kind, so reading a spec is monomorphic:
 * `num` (key = value / div, signed or not), `flag` (key = value > 0), `value` (key = a function of
 * the bytes), `optional` (the same, no attribute when it gives undefined), `alarm` (the function
 * names an alarm or gives undefined: added to `alarm`), `cell` (LAC or CID, kept aside for the
 * record's cell: slot `div`).
 */
export const NUM = 0;
export const FLAG = 1;
export const VALUE = 2;
export const OPTIONAL = 3;
export const ALARM = 4;
export const CELL = 5;
export type IoValue = (b: Buffer, o: number, n: number) => AttrValue | undefined;
export interface IoSpec {
  kind: number;
  key: string;
  div: number;
  signed: boolean;
  value: IoValue | undefined;
}
const spec = (kind: number, key: string, div = 1, signed = false, value?: IoValue): IoSpec => ({ kind, key, div, signed, value });
const num = (key: string, div = 1, signed = false) => spec(NUM, key, div, signed);
const flag = (key: string) => spec(FLAG, key);
const valueOf = (key: string, f: IoValue) => spec(VALUE, key, 1, false, f);
const optional = (key: string, f: IoValue) => spec(OPTIONAL, key, 1, false, f);
const alarm = (f: (u: number) => string | undefined) => spec(ALARM, Attr.alarm, 1, false, (b, o, n) => f(uvalAt(b, o, n)));
const alarmIf = (name: string) => alarm((u) => (u > 0 ? name : undefined));
const cell = (slot: number) => spec(CELL, '', slot);

/** Cell parts an IO element may carry (slots of `IoState.cell`). */
export const LAC = 0;
export const CID_2G = 1;
export const CID_4G = 2;

/** Model families the IO id meanings depend on. `fmb`: FMB/FMC/FMM... (also assumed when the model is unknown). */
type Family = 'any' | 'fmb' | 'fmbNot6' | 'fm6' | 'fmb003';
const FAMILY: Record<Family, (model: string | undefined) => boolean> = {
  any: () => true,
  fmb: (m) => m === undefined || /^(FM[B-Z]...|MTB100|MSP500)$/.test(m),
  fmbNot6: (m) => FAMILY.fmb(m) && !FAMILY.fm6(m),
  fm6: (m) => m !== undefined && /^FM.6..$/.test(m),
  fmb003: (m) => m === 'FMB003',
};

/** IO id -> (family, meaning). The first entry whose family matches the model wins; else `io<id>` raw. */
const IO: Array<[number, Family, IoSpec]> = [
  [1, 'any', flag(indexed.in(1))],
  [2, 'any', flag(indexed.in(2))],
  [3, 'any', flag(indexed.in(3))],
  [4, 'any', flag(indexed.in(4))],
  [9, 'fmb', num(indexed.adc(1), 1000)],
  [10, 'fmb', num(indexed.adc(2), 1000)],
  [11, 'fmb', valueOf(Attr.iccid, (b, o, n) => (n === 8 ? b.readBigUInt64BE(o).toString() : String(uvalAt(b, o, n))))],
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
  [78, 'any', optional(Attr.driverUniqueId, (b, o, n) =>
    n === 8 && b.readBigUInt64LE(o) !== 0n ? b.readBigUInt64LE(o).toString(16).toUpperCase().padStart(16, '0') : undefined,
  )],
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
  [175, 'fmb', alarm((u) => (u > 0 ? Alarm.geofenceEnter : Alarm.geofenceExit))],
  [179, 'any', flag(indexed.out(1))],
  [180, 'any', flag(indexed.out(2))],
  [181, 'any', num('pdop', 10)],
  [182, 'any', num('hdop', 10)],
  [199, 'any', num('tripOdometer')],
  [200, 'fmb', num('sleepMode')],
  [205, 'fmb', cell(CID_2G)],
  [206, 'fmb', cell(LAC)],
  [236, 'any', alarmIf(Alarm.general)],
  [239, 'any', flag(Attr.ignition)],
  [240, 'any', flag(Attr.motion)],
  [241, 'any', num(Attr.operator)],
  [246, 'fmb', alarmIf(Alarm.tow)],
  [247, 'fmb', alarmIf(Alarm.accident)],
  [249, 'fmb', alarmIf(Alarm.jamming)],
  [251, 'fmb', alarmIf(Alarm.idle)],
  [252, 'fmb', alarmIf(Alarm.powerCut)],
  [253, 'any', alarm((u) => [undefined, Alarm.hardAcceleration, Alarm.hardBraking, Alarm.hardCornering][u])],
  [389, 'fmb003', valueOf('obdOdometer', (b, o, n) => uvalAt(b, o, n) * 1000)],
  [636, 'fmb', cell(CID_4G)],
  [662, 'fmb', flag(Attr.door)],
  ...[1, 2, 3, 4].map((i): [number, Family, IoSpec] => [700 + i, 'fm6', num(`bleTemp${i}`, 100, true)]),
  ...[1, 2, 3, 4, 5, 6].map((i): [number, Family, IoSpec] => [10643 + i, 'fmb', num(`tempProbe${i}`, 100, true)]),
  ...[1, 2, 3, 4].map((i): [number, Family, IoSpec] => [10799 + i, 'fmb', num(`eyeTemp${i}`, 100, true)]),
  ...[1, 2, 3, 4].map((i): [number, Family, IoSpec] => [10831 + i, 'fmb', num(`eyeRoll${i}`, 1, true)]),
];

/**
 * An IO table: spec by IO id (undefined: raw), a plain array instead of a Map. Dense up to the
 * largest id it names (V8 keeps a sparse array as a hash table); ids past its end are raw.
 */
export type IoTable = Array<IoSpec | undefined>;
function tableOf(entries: Array<[number, IoSpec]>): IoTable {
  const specs: IoTable = new Array(Math.max(0, ...entries.map(([id]) => id + 1))).fill(undefined);
  for (const [id, s] of entries) specs[id] ??= s; // the first match wins
  return specs;
}

/** GH3000 personal trackers number their IO elements differently. */
export const IO_GH3000 = tableOf([
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

/** What a model means by its IO ids: its table, and whether it sends the FM6 driver id. */
interface ModelIo {
  table: IoTable;
  fm6: boolean;
}

/**
 * The IO table of a model, resolved once per model (the family rules are regexes: not per element).
 * Models of the same families share one table.
 */
const MODELS = new Map<string | undefined, ModelIo>();
const TABLES_BY_FAMILIES = new Map<string, IoTable>();
export function modelIo(model: string | undefined): ModelIo {
  let m = MODELS.get(model);
  if (!m) {
    const families = (Object.keys(FAMILY) as Family[]).filter((f) => FAMILY[f](model));
    const signature = families.join();
    let table = TABLES_BY_FAMILIES.get(signature);
    if (!table) {
      table = tableOf(IO.filter(([, f]) => families.includes(f)).map(([id, , s]) => [id, s]));
      TABLES_BY_FAMILIES.set(signature, table);
    }
    m = { table, fm6: families.includes('fm6') };
    if (MODELS.size < 64) MODELS.set(model, m);
  }
  return m;
}

/** A compiled record layout (protocols/teltonika/layouts.ts compiles them). */
export type ReadRecord = (b: Buffer, o: number, cell: number[]) => Attrs;

export interface Layout {
  codec: number;
  /** With the 16-byte section (`extended` setting). */
  extended: boolean;
  table: IoTable;
  nums: Uint16Array;
  /** Bytes from the record's start to its end. */
  size: number;
  seen: number;
  /** The compiled reader; null when the layout cannot be compiled. */
  read: ReadRecord | null | undefined;
  /** Compiled with the reader: whether the record at `o` has this layout (given that it fits). */
  matches: ((b: Buffer, o: number) => boolean) | undefined;
  /** The next layout of the same bucket. */
  next: Layout | undefined;
}

/** The state of a packet's IO decoding: the table, the current record's cell parts (NaN: absent). */
export interface IoState {
  table: IoTable;
  fm6: boolean;
  cell: number[];
  /** The compiled layout of the packet's previous record: the next one most likely has it too. */
  last: Layout | undefined;
  /** Layouts the packet may still compile (see COMPILE_AFTER). */
  compiles: number;
}

/** Apply one IO element: `u` is its unsigned value (exact for 1, 2, 4 bytes; 8-byte values are read again as needed). */
function applyIo(table: IoTable, a: Attrs, cell: number[], id: number, b: Buffer, o: number, n: number, u: number): void {
  const s = id < table.length ? table[id] : undefined;
  if (s === undefined) {
    a[ioKey(id)] = n === 8 ? rawval8(b, o) : u;
    return;
  }
  switch (s.kind) {
    case NUM:
      a[s.key] = (s.signed ? signedOf(u, b, o, n) : u) / s.div;
      return;
    case FLAG:
      a[s.key] = u > 0;
      return;
    case VALUE:
      a[s.key] = s.value!(b, o, n)!;
      return;
    case CELL:
      cell[s.div] = u;
      return;
  }
  const v = s.value!(b, o, n); // OPTIONAL, ALARM
  if (v === undefined) return;
  if (s.kind === ALARM) addAlarm(a, v as string);
  else a[s.key] = v;
}

const truncated = () => new DecodeError('truncated IO element');

/**
 * One IO section of fixed-size values, `count | (id, value) x count`, read in place from the
 * Reader's buffer: one bounds check per element, then plain byte arithmetic.
 */
export function readIoSection(r: Reader, size: number, wideCount: boolean, wideId: boolean, io: IoState, attrs: Attrs): void {
  const b = r.buf;
  const end = r.end;
  let o = r.pos;
  const idBytes = wideId ? 2 : 1;
  const { table, cell } = io;
  if (o + (wideCount ? 2 : 1) > end) throw truncated();
  let count = wideCount ? u16be(b, o) : b[o];
  o += wideCount ? 2 : 1;
  for (; count > 0; count--) {
    if (o + idBytes + size > end) throw truncated();
    const id = wideId ? u16be(b, o) : b[o];
    o += idBytes;
    const u = size === 1 ? b[o] : size === 2 ? u16be(b, o) : size === 4 ? u32be(b, o) : uval8(b, o);
    applyIo(table, attrs, cell, id, b, o, size, u);
    o += size;
  }
  r.pos = o;
}

/** The 16-byte IO section some configurations add (`extended`), kept raw as hex. */
export function readExtendedIo(r: Reader, wide: boolean, wideId: boolean, a: Attrs): void {
  for (let n = wide ? r.u16() : r.u8(); n > 0; n--) {
    const ioId = wideId ? r.u16() : r.u8();
    a[ioKey(ioId)] = r.hex(16);
  }
}

// ---------------------------------------------------------------------------------------------
// Variable-length (Codec 8 Extended) elements

/** Attribute names of numbered entries (`beacon2Rssi`, `tag3Temp`), made once per number. */
function namesOf<F extends string>(prefix: string, fields: readonly F[]): (i: number) => Record<F, string> {
  const cache: Array<Record<F, string>> = [];
  const make = (i: number) => Object.fromEntries(fields.map((f) => [f, `${prefix}${i}${f}`])) as Record<F, string>;
  return (i) => cache[i] ?? (i < 256 ? (cache[i] = make(i)) : make(i));
}
const beaconNames = namesOf('beacon', ['Uuid', 'Major', 'Minor', 'Namespace', 'Instance', 'Rssi', 'Battery', 'Temp'] as const);
const tagNames = namesOf('tag', ['Rssi', 'Id', 'LowBattery', 'Voltage', 'Name', 'Temp', 'Humidity', 'Magnet', 'Motion', 'MotionCount', 'Pitch', 'AngleRoll', 'Battery', 'Mac'] as const);
type TagNames = ReturnType<typeof tagNames>;

/** BLE beacon list (id 385): iBeacon or Eddystone entries, each with RSSI and optional battery/temperature. */
function decodeBeacons(data: Reader, a: Attrs): void {
  data.u8(); // data part
  for (let i = 1; data.remaining > 0; i++) {
    const flags = data.u8();
    const k = beaconNames(i);
    if (flags >> 4 > 0) {
      a[k.Uuid] = data.hex(16);
      a[k.Major] = data.u16();
      a[k.Minor] = data.u16();
    } else {
      a[k.Namespace] = data.hex(10);
      a[k.Instance] = data.hex(6);
    }
    a[k.Rssi] = data.i8();
    if (flags & 0x02) a[k.Battery] = data.u16() / 100;
    if (flags & 0x04) a[k.Temp] = data.u16();
  }
}

/**
 * EYE sensor / BLE tag parameters inside ids 548, 10828, 10829, 10831, 11317: param id -> its value
 * `b[s, e)` -> attributes of the tag (names `k`).
 */
type TagParam = (b: Buffer, s: number, e: number, a: Attrs, k: TagNames) => void;
const TAG_PARAMS: Array<TagParam | undefined> = [
  /* 0 */ (b, s, e, a, k) => void (a[k.Rssi] = sval(b, s, 1, e)),
  /* 1 */ (b, s, e, a, k) => void (a[k.Id] = b.toString('hex', s, e)),
  /* 2 */ (b, s, e, a, k) => {
    const f = e > s ? b[s] : 0;
    if (f & 0x40) a[k.LowBattery] = true;
    if (f & 0x80 && e - s > 1) a[k.Voltage] = b[s + 1] * 10 + 2000; // mV
  },
  /* 3 */ undefined,
  /* 4 */ undefined,
  /* 5 */ (b, s, e, a, k) => void (a[k.Name] = b.toString('utf8', s, e).replace(/\0+$/, '')), // NUL-padded
  /* 6 */ (b, s, e, a, k) => void (a[k.Temp] = sval(b, s, 2, e)),
  /* 7 */ (b, s, e, a, k) => void (a[k.Humidity] = uval(b, s, 1, e)),
  /* 8 */ (b, s, e, a, k) => void (a[k.Magnet] = uval(b, s, 1, e) > 0),
  /* 9 */ (b, s, e, a, k) => void (a[k.Motion] = uval(b, s, 1, e) > 0),
  /* 10 */ (b, s, e, a, k) => void (a[k.MotionCount] = uval(b, s, 2, e)),
  /* 11 */ (b, s, e, a, k) => void (a[k.Pitch] = sval(b, s, 1, e)),
  /* 12 */ (b, s, e, a, k) => void (a[k.AngleRoll] = sval(b, s, 2, e)),
  /* 13 */ (b, s, e, a, k) => void (a[k.LowBattery] = uval(b, s, 1, e)),
  /* 14 */ (b, s, e, a, k) => void (a[k.Battery] = uval(b, s, 2, e)), // mV
  /* 15 */ (b, s, e, a, k) => void (a[k.Mac] = b.toString('hex', s, Math.min(e, s + 6))),
];

/** Tags: `header | (u8 length | (u8 param id | u8 length | value) ...) ...`, read in place. */
function decodeTags(data: Reader, a: Attrs): void {
  const b = data.buf;
  data.u8(); // header
  for (let i = 1; data.remaining > 0; i++) {
    const length = data.u8();
    const end = data.skip(length).pos;
    const k = tagNames(i);
    for (let p = end - length; p < end; ) {
      if (p + 2 > end) throw new DecodeError('truncated tag parameter');
      const id = b[p];
      const n = b[p + 1];
      p += 2;
      if (p + n > end) throw new DecodeError('truncated tag parameter');
      TAG_PARAMS[id]?.(b, p, p + n, a, k);
      p += n;
    }
  }
}

export const TAG_IDS = new Set([548, 10828, 10829, 10831, 11317]);

/** Diagnostic trouble codes, comma-separated in the element: space-separated in the attribute. */
export const dtcsOf = (b: Buffer, start: number, end: number) => b.toString('latin1', start, end).replace(/,/g, ' ');

/** One variable-length element: its value is `r.buf[start, end)` (read in place, no slice for the common hex case). */
function decodeVariable(id: number, r: Reader, start: number, end: number, a: Attrs): void {
  const b = r.buf;
  if (id === 256 || id === 325) a[Attr.vin] = b.toString('latin1', start, end);
  else if (id === 281) a[Attr.dtcs] = dtcsOf(b, start, end);
  else if (id === 385) decodeBeacons(new Reader(b, start, end), a);
  else if (TAG_IDS.has(id)) decodeTags(new Reader(b, start, end), a);
  else a[ioKey(id)] = b.toString('hex', start, end);
}

/** The variable-length section of Codec 8 Extended: `u16 count | (u16 id, u16 length, bytes) x count`. */
export function readVariableIo(r: Reader, a: Attrs): void {
  for (let n = r.u16(); n > 0; n--) {
    const id = r.u16();
    const length = r.u16();
    const start = r.skip(length).pos - length;
    decodeVariable(id, r, start, start + length, a);
  }
}

// ---------------------------------------------------------------------------------------------
// Location records

/** Size of the fixed part of an AVL record: time 8, priority 1, lng 4, lat 4, altitude 2, course 2, satellites 1, speed 2, then event id, (Codec 16) generation, total IO count. */
export const AVL_FIXED: Record<number, number> = { [CODEC_8]: 26, [CODEC_8E]: 28, [CODEC_16]: 28 };
