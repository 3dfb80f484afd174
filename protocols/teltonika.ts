/**
 * Teltonika FM/FMB/FMC/GH trackers.
 * TCP: an IMEI packet (u16 length + ASCII IMEI, answered 0x01), then AVL packets
 * `00000000 | u32 data length | codec | count | records | count | u32 CRC-16/IBM`, answered with the
 * accepted record count as u32. UDP: `u16 length | u16 packet id | 01 | avl packet id | u16 + IMEI | codec ...`,
 * answered `0005 | packet id | 01 | avl packet id | count`.
 * Codecs: 8, 8 Extended (0x8E), 16 (AVL data), 7 (GH3000), 12 (commands/replies, camera), 13 and 14 (replies).
 */
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { Reader, crc16Ibm, i16be, i32be, u16be, u32be } from './binary.ts';
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

/** `io<id>` names, made once per id (ids are u16; a dense array: V8 keeps a sparse one as a slower hash table). */
const IO_KEYS: Array<string | undefined> = new Array(65536).fill(undefined);
const ioKey = (id: number) => (IO_KEYS[id] ??= indexed.io(id));

// ---------------------------------------------------------------------------------------------
// IO element values
//
// Values of 1, 2 and 4 bytes are read inline as an unsigned number `u` (the common case: no call,
// no BigInt); 8-byte values go through these helpers. Callers have bounds-checked the bytes.

/** Unsigned 8-byte value (exact up to 2^53). */
const uval8 = (b: Buffer, o: number) => u32be(b, o) * 4294967296 + u32be(b, o + 4);
/** Signed value of an element from its unsigned `u` (n = 1, 2, 4) or its bytes (n = 8). */
function signedOf(u: number, b: Buffer, o: number, n: number): number {
  if (n === 1) return (u << 24) >> 24;
  if (n === 2) return (u << 16) >> 16;
  if (n === 4) return u | 0;
  return sval8(b, o);
}
/** Signed 8-byte value (exact up to 2^53). */
const sval8 = (b: Buffer, o: number) => i32be(b, o) * 4294967296 + u32be(b, o + 4);
/** Unsigned value of an element of n = 1, 2, 4 or 8 bytes. */
function uvalAt(b: Buffer, o: number, n: number): number {
  return n === 1 ? b[o] : n === 2 ? u16be(b, o) : n === 4 ? u32be(b, o) : uval8(b, o);
}
/** Raw value of an element nobody named: 8-byte values stay exact as decimal strings when too large. */
function rawval8(b: Buffer, o: number): AttrValue {
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
const NUM = 0;
const FLAG = 1;
const VALUE = 2;
const OPTIONAL = 3;
const ALARM = 4;
const CELL = 5;
type IoValue = (b: Buffer, o: number, n: number) => AttrValue | undefined;
interface IoSpec {
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
const LAC = 0;
const CID_2G = 1;
const CID_4G = 2;

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
type IoTable = Array<IoSpec | undefined>;
function tableOf(entries: Array<[number, IoSpec]>): IoTable {
  const specs: IoTable = new Array(Math.max(0, ...entries.map(([id]) => id + 1))).fill(undefined);
  for (const [id, s] of entries) specs[id] ??= s; // the first match wins
  return specs;
}

/** GH3000 personal trackers number their IO elements differently. */
const IO_GH3000 = tableOf([
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
function modelIo(model: string | undefined): ModelIo {
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

/** The state of a packet's IO decoding: the table, the current record's cell parts (NaN: absent). */
interface IoState {
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
function readIoSection(r: Reader, size: number, wideCount: boolean, wideId: boolean, io: IoState, attrs: Attrs): void {
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
function readExtendedIo(r: Reader, wide: boolean, wideId: boolean, a: Attrs): void {
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

const TAG_IDS = new Set([548, 10828, 10829, 10831, 11317]);

/** Diagnostic trouble codes, comma-separated in the element: space-separated in the attribute. */
const dtcsOf = (b: Buffer, start: number, end: number) => b.toString('latin1', start, end).replace(/,/g, ' ');

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
function readVariableIo(r: Reader, a: Attrs): void {
  for (let n = r.u16(); n > 0; n--) {
    const id = r.u16();
    const length = r.u16();
    const start = r.skip(length).pos - length;
    decodeVariable(id, r, start, start + length, a);
  }
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

/** Size of the fixed part of an AVL record: time 8, priority 1, lng 4, lat 4, altitude 2, course 2, satellites 1, speed 2, then event id, (Codec 16) generation, total IO count. */
const AVL_FIXED: Record<number, number> = { [CODEC_8]: 26, [CODEC_8E]: 28, [CODEC_16]: 28 };

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

// ---------------------------------------------------------------------------------------------
// Compiled record layouts
//
// Building a record's attributes key after key (`a[key] = v`) is most of the cost of decoding it:
// V8 handles each such store through a cache shared by all object shapes, which real records
// thrash, and turns an object given more than 16 properties that way into a slow dictionary. But a
// device sends the same IO elements record after record, and the layout of a record (the count and
// ids of each IO section; the ids and lengths of variable elements) fixes the offset and the
// meaning of every value. So a function compiled for a layout reads each value at its constant
// offset and makes the attributes as one object literal, which V8 instantiates from a template:
// several times faster, no table lookups. A record's layout is read (one pass over its ids; for the
// packet's next records, a compiled check of the previous record's), found by its hash, checked
// number by number, and compiled once seen a few times. The compiled code mirrors the general path
// (`readAvlAttributes`): the same keys in the same order, the same expressions for the values.
// Layouts with BLE beacons or tags (as many attributes as entries), GH3000 records and FM6 models
// take the general path. Keys come from our tables or from numbers; JSON.stringify quotes them.

type ReadRecord = (b: Buffer, o: number, cell: number[]) => Attrs;

interface Layout {
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

/**
 * Compiling a layout costs about 0.1 ms, so it is kept for what repeats: a layout is compiled when
 * seen for the COMPILE_AFTER-th time, and a packet compiles at most COMPILES_PER_PACKET (junk or
 * crafted frames cannot make a decode much slower).
 */
const COMPILE_AFTER = 4;
const COMPILES_PER_PACKET = 1;

/**
 * Layouts by hash. Bounded: past MAX_COMPILED no more are compiled, past MAX_LAYOUTS (many unusual
 * or junk layouts) the table starts afresh, and a layout of more than MAX_NUMS numbers (hundreds of
 * IO elements) is not kept, so memory stays bounded.
 */
const LAYOUT_BUCKETS = 4096;
const MAX_LAYOUTS = 8192;
const MAX_COMPILED = 2048;
const MAX_NUMS = 1024;
interface Layouts {
  buckets: Array<Layout | undefined>;
  count: number;
  compiled: number;
}
const newLayouts = (): Layouts => ({ buckets: new Array(LAYOUT_BUCKETS).fill(undefined), count: 0, compiled: 0 });
let layouts = newLayouts();

/** The numbers of the layout being read, their count and hash (decoding is synchronous: one scratch is enough). */
const scan: { nums: Uint16Array; k: number; hash: number } = { nums: new Uint16Array(256), k: 0, hash: 0 };
function growScan(min: number): Uint16Array {
  const nums = new Uint16Array(Math.max(min, scan.nums.length * 2));
  nums.set(scan.nums);
  return (scan.nums = nums);
}

/** Read the layout of the AVL record at `o` into `scan`; returns the record's end, or -1 when it does not fit before `end`. */
function scanLayout(b: Buffer, o: number, end: number, codec: number, extended: boolean): number {
  const wide = codec === CODEC_8E;
  const countBytes = wide ? 2 : 1;
  const idBytes = wide || codec === CODEC_16 ? 2 : 1;
  let nums = scan.nums;
  let k = 0;
  let h = codec;
  let p = o + AVL_FIXED[codec];
  // IO sections of 1, 2, 4, 8 (and 16) bytes: count, then (id, value)
  for (let size = 1; size <= (extended ? 16 : 8); size *= 2) {
    if (p + countBytes > end) return -1;
    const count = wide ? u16be(b, p) : b[p];
    p += countBytes;
    if (p + count * (idBytes + size) > end) return -1;
    if (k + count + 1 > nums.length) nums = growScan(k + count + 1);
    nums[k++] = count;
    h = (Math.imul(h, 31) + count) | 0;
    for (let i = 0; i < count; i++, p += idBytes + size) {
      const id = idBytes === 2 ? u16be(b, p) : b[p];
      nums[k++] = id;
      h = (Math.imul(h, 31) + id) | 0;
    }
  }
  if (wide) {
    // variable-length elements: u16 count, then (u16 id, u16 length, bytes)
    if (p + 2 > end) return -1;
    const count = u16be(b, p);
    p += 2;
    if (k + 1 > nums.length) nums = growScan(k + 1);
    nums[k++] = count;
    h = (Math.imul(h, 31) + count) | 0;
    for (let i = 0; i < count; i++) {
      if (p + 4 > end) return -1;
      const id = u16be(b, p);
      const length = u16be(b, p + 2);
      p += 4 + length;
      if (p > end) return -1;
      if (k + 2 > nums.length) nums = growScan(k + 2);
      nums[k++] = id;
      nums[k++] = length;
      h = (Math.imul(Math.imul(h, 31) + id, 31) + length) | 0;
    }
  }
  scan.k = k;
  scan.hash = h;
  return p;
}

function sameNums(a: Uint16Array, b: Uint16Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The compiled layout of the AVL record at `o`, if it has one (compiling it when it has been seen often enough). */
function compiledLayout(b: Buffer, o: number, end: number, codec: number, extended: boolean, io: IoState): Layout | undefined {
  const last = io.last; // the previous record's (same codec, table and settings): one pass to check it
  if (last !== undefined && o + last.size <= end && last.matches!(b, o)) return last;
  const table = io.table;
  const recordEnd = scanLayout(b, o, end, codec, extended);
  if (recordEnd < 0 || scan.k > MAX_NUMS) return undefined;
  const { nums, k, hash } = scan;
  const at = hash & (LAYOUT_BUCKETS - 1);
  let layout = layouts.buckets[at];
  while (layout !== undefined && !(layout.codec === codec && layout.extended === extended && layout.table === table && layout.nums.length === k && sameNums(layout.nums, nums, k))) {
    layout = layout.next;
  }
  if (layout === undefined) {
    if (layouts.count >= MAX_LAYOUTS) layouts = newLayouts(); // full: start afresh
    layouts.count++;
    const size = recordEnd - o;
    layouts.buckets[at] = { codec, extended, table, nums: nums.slice(0, k), size, seen: 1, read: undefined, matches: undefined, next: layouts.buckets[at] };
    return undefined;
  }
  if (layout.read === undefined) {
    if (++layout.seen < COMPILE_AFTER || layouts.compiled >= MAX_COMPILED || io.compiles <= 0) return undefined;
    io.compiles--;
    layouts.compiled++;
    const compiled = compileLayout(layout);
    layout.read = compiled?.read ?? null;
    layout.matches = compiled?.matches;
  }
  if (layout.read === null) return undefined;
  io.last = layout;
  return layout;
}

/** JS reading an unsigned / signed value of `n` bytes at offset expression `p`, as the general path reads it. */
const READ_UNSIGNED: Record<number, (p: string) => string> = {
  1: (p) => `b[${p}]`,
  2: (p) => `u16be(b, ${p})`,
  4: (p) => `u32be(b, ${p})`,
  8: (p) => `uval8(b, ${p})`,
};
const READ_SIGNED: Record<number, (p: string) => string> = {
  1: (p) => `((b[${p}] << 24) >> 24)`,
  2: (p) => `i16be(b, ${p})`,
  4: (p) => `i32be(b, ${p})`,
  8: (p) => `sval8(b, ${p})`,
};

/**
 * What compiled code makes of one element: an attribute (key and JS for its value), a statement,
 * or a conditional part: JS giving a value or undefined, for an `optional` attribute (key) or an
 * alarm name. Undefined: the element cannot be compiled.
 */
type Part = { key?: string; js: string; kind?: 'statement' | 'optional' | 'alarm' } | undefined;

/** An IO element of `n` bytes at `p`, as `applyIo` decodes it; `env` collects the functions the code calls. */
function compileElement(s: IoSpec | undefined, id: number, n: number, p: string, env: IoValue[]): Part {
  if (s === undefined) return { key: ioKey(id), js: n === 8 ? `rawval8(b, ${p})` : READ_UNSIGNED[n](p) };
  const call = () => `env[${env.push(s.value!) - 1}](b, ${p}, ${n})`;
  switch (s.kind) {
    case NUM:
      return { key: s.key, js: `${(s.signed ? READ_SIGNED : READ_UNSIGNED)[n](p)} / ${s.div}` };
    case FLAG:
      return { key: s.key, js: `${READ_UNSIGNED[n](p)} > 0` };
    case VALUE:
      return { key: s.key, js: call() };
    case OPTIONAL:
      return { key: s.key, js: call(), kind: 'optional' };
    case ALARM:
      return { js: call(), kind: 'alarm' };
    case CELL:
      return { js: `cell[${s.div}] = ${READ_UNSIGNED[n](p)};`, kind: 'statement' };
  }
  return undefined;
}

/** A variable-length element at [p, q), as `decodeVariable` decodes it. */
function compileVariable(id: number, p: string, q: string): Part {
  if (id === 256 || id === 325) return { key: Attr.vin, js: `b.toString('latin1', ${p}, ${q})` };
  if (id === 281) return { key: Attr.dtcs, js: `dtcsOf(b, ${p}, ${q})` };
  if (id === 385 || TAG_IDS.has(id)) return undefined; // beacons and tags: as many attributes as entries
  return { key: ioKey(id), js: `b.toString('hex', ${p}, ${q})` };
}

/**
 * The parts of a layout in order (attributes start with the fixed part's); null when one cannot be
 * compiled. `checks` gets the JS conditions a record must meet to have the layout (its counts, ids
 * and lengths at their offsets).
 */
function layoutParts(layout: Layout, env: IoValue[], checks: string[]): Part[] | null {
  const { codec, extended, table, nums } = layout;
  const wide = codec === CODEC_8E;
  const idBytes = wide || codec === CODEC_16 ? 2 : 1;
  const parts: Part[] = [{ key: 'priority', js: 'b[o + 8]' }, { key: Attr.event, js: codec === CODEC_8 ? 'b[o + 24]' : 'u16be(b, o + 24)' }];
  if (codec === CODEC_16) parts.push({ key: 'generation', js: 'b[o + 26]' });
  const at = (bytes: number, p: number, x: number) => checks.push(`${bytes === 2 ? `u16be(b, o + ${p})` : `b[o + ${p}]`} === ${x}`);
  let p = AVL_FIXED[codec];
  let k = 0;
  for (let size = 1; size <= (extended ? 16 : 8); size *= 2) {
    at(wide ? 2 : 1, p, nums[k]);
    p += wide ? 2 : 1;
    for (let count = nums[k++]; count > 0; count--, p += size) {
      const id = nums[k++];
      at(idBytes, p, id);
      p += idBytes;
      if (size === 16) parts.push({ key: ioKey(id), js: `b.toString('hex', o + ${p}, o + ${p + 16})` });
      else parts.push(compileElement(id < table.length ? table[id] : undefined, id, size, `o + ${p}`, env));
    }
  }
  if (wide) {
    at(2, p, nums[k]);
    p += 2;
    for (let count = nums[k++]; count > 0; count--) {
      const id = nums[k++];
      const length = nums[k++];
      at(2, p, id);
      at(2, p + 2, length);
      p += 4;
      parts.push(compileVariable(id, `o + ${p}`, `o + ${p + length}`));
      p += length;
    }
  }
  return parts.includes(undefined) ? null : parts;
}

/**
 * Bounds of a layout's code: object literals (one per combination of its conditional parts), and
 * fields over all of them. Past them, compiling would cost milliseconds: the general path is used.
 */
const MAX_VARIANTS = 8;
const MAX_FIELDS = 512;

/**
 * The reader of a layout, `(b, o, cell) => attributes` of the record at `o`, and its matcher; null
 * when some element cannot be compiled. Conditional parts are computed first (c0, c1, ...); they
 * choose among object literals: an optional attribute is there or not, and `alarm` (its names joined
 * by commas, as `addAlarm` joins them) sits where the first alarm that fired would have put it.
 */
function compileLayout(layout: Layout): { read: ReadRecord; matches: (b: Buffer, o: number) => boolean } | null {
  const env: IoValue[] = [];
  const checks: string[] = [];
  const parts = layoutParts(layout, env, checks);
  if (parts === null) return null;
  const lines: string[] = [];
  const alarms: number[] = []; // part indexes
  const optionals: number[] = [];
  parts.forEach((part, i) => {
    if (part!.kind === 'statement') lines.push(part!.js);
    else if (part!.kind !== undefined) {
      lines.push(`const c${i} = ${part!.js};`);
      (part!.kind === 'alarm' ? alarms : optionals).push(i);
    }
  });
  const variants = (alarms.length + 1) << optionals.length;
  if (variants > MAX_VARIANTS || variants * parts.length > MAX_FIELDS) return null;
  if (alarms.length) {
    lines.push(`let alarm = c${alarms[0]};`);
    for (const i of alarms.slice(1)) lines.push(`if (c${i} !== undefined) alarm = alarm ? alarm + "," + c${i} : c${i};`);
    lines.push(`const first = ${alarms.map((i, j) => `c${i} !== undefined ? ${j} : `).join('')}${alarms.length};`);
  }
  const bits = optionals.map((i, j) => `(c${i} !== undefined ? ${1 << j} : 0)`);
  const literal = (variant: number) => {
    const first = variant >> optionals.length;
    const fields = parts.flatMap((part, i) => {
      if (part!.kind === 'statement') return [];
      if (part!.kind === 'alarm') return alarms.indexOf(i) === first ? [`"alarm": alarm`] : [];
      if (part!.kind === 'optional') return variant & (1 << optionals.indexOf(i)) ? [`${JSON.stringify(part!.key)}: c${i}`] : [];
      return [`${JSON.stringify(part!.key)}: ${part!.js}`];
    });
    return `return { ${fields.join(', ')} };`;
  };
  if (variants === 1) lines.push(literal(0));
  else {
    lines.push(`switch (${alarms.length ? `first << ${optionals.length}` : '0'} | ${bits.join(' | ') || '0'}) {`);
    for (let v = 0; v < variants; v++) lines.push(`case ${v}: ${literal(v)}`);
    lines.push('}');
  }
  const read = `(b, o, cell) => {\n${lines.join('\n')}\n}`;
  const matches = `(b, o) => ${checks.join(' && ')}`;
  const make = new Function('u16be', 'i16be', 'u32be', 'i32be', 'uval8', 'sval8', 'rawval8', 'dtcsOf', 'env', `return { read: ${read}, matches: ${matches} };`);
  return make(u16be, i16be, u32be, i32be, uval8, sval8, rawval8, dtcsOf, env);
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
