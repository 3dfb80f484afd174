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

// ---------------------------------------------------------------------------------------------
// Attribute objects
//
// Making the attributes object is most of the cost of a record (2 to 60+ attributes). With
// `a[key] = v` V8 looks each store up in a shared cache of (object shape, key) pairs that real
// records thrash, and turns an object given more than 16 properties that way into a slow
// dictionary. So decoding only collects the values in an `AttrBag` while following their keys down
// a tree of the key sequences seen so far (a device repeats its sequence record after record, so
// each step is one comparison). The node reached names the sequence: the object is made in one go
// by a function compiled for it (`v => ({"priority": v[0], "event": v[1], ...})`), which V8
// instantiates from a template like any object literal, about ten times faster. A sequence is
// compiled the second time it is seen, up to a cap; any other object is built with plain stores.
// A key collected twice keeps its first place and takes the last value, in a literal as in
// assignment, so the object is the same either way. Keys come from our tables or are built from
// numbers (`io239`, `tag2Rssi`); JSON.stringify quotes them.

type Build = (v: AttrValue[]) => Attrs;

/**
 * Bounds of the tree: compiled sequences, and nodes. Past the first, objects are built plainly; when
 * the nodes run out (many unusual or junk sequences), the tree starts afresh: memory stays bounded.
 */
const MAX_BUILDS = 2048;
const MAX_NODES = 32768;

interface KeyTree {
  root: KeyNode;
  nodes: number;
  builds: number;
}

/** A key sequence: the node reached by following its keys from the root. */
class KeyNode {
  seen = 0;
  build: Build | undefined = undefined;
  /** The next key last taken from here and where it led: one comparison in the common case. */
  lastKey = '';
  lastNext: KeyNode | undefined = undefined;
  next: Map<string, KeyNode> | undefined = undefined;

  /** `kept`: in the tree. A full tree still hands out nodes, so that every sequence has one, but keeps none. */
  constructor(
    readonly key: string,
    readonly parent: KeyNode | undefined,
    readonly kept: boolean,
  ) {}

  child(key: string, tree: KeyTree): KeyNode {
    if (this.lastKey === key) return this.lastNext!;
    let node = this.next?.get(key);
    if (node === undefined) {
      const keep = this.kept && tree.nodes < MAX_NODES;
      node = new KeyNode(key, this, keep);
      if (!keep) return node;
      tree.nodes++;
      (this.next ??= new Map()).set(key, node);
    }
    this.lastKey = key;
    this.lastNext = node;
    return node;
  }

  /** The key sequence, root first. */
  keys(): string[] {
    const keys: string[] = [];
    for (let node: KeyNode = this; node.parent !== undefined; node = node.parent) keys.push(node.key);
    return keys.reverse();
  }
}

const newTree = (): KeyTree => ({ root: new KeyNode('', undefined, true), nodes: 1, builds: 0 });
let keyTree = newTree();

function compileBuild(keys: string[]): Build {
  const fields = keys.map((k, i) => `${JSON.stringify(k)}: v[${i}]`);
  return new Function('v', `return { ${fields.join(', ')} };`) as Build;
}

/** The attributes of one record as they are decoded: values in order, and the node of their keys. `take()` makes the object. */
class AttrBag {
  vals: AttrValue[] = [];
  n = 0;
  node: KeyNode = keyTree.root;

  set(key: string, value: AttrValue): void {
    this.node = this.node.child(key, keyTree);
    this.vals[this.n++] = value;
  }

  /** Current value of a key (its last one), for the few attributes that depend on another. */
  get(key: string): AttrValue | undefined {
    let i = this.n - 1;
    for (let node = this.node; node.parent !== undefined; node = node.parent, i--) if (node.key === key) return this.vals[i];
    return undefined;
  }

  /** The attributes object; the bag is then empty. */
  take(): Attrs {
    const { node, vals, n } = this;
    if (!node.kept) keyTree = newTree(); // it was full: start afresh
    this.node = keyTree.root;
    this.n = 0;
    if (node.build !== undefined) return node.build(vals);
    if (node.kept && ++node.seen >= 2 && keyTree.builds < MAX_BUILDS) {
      keyTree.builds++;
      node.build = compileBuild(node.keys());
      return node.build(vals);
    }
    const keys = node.keys();
    const a: Attrs = {};
    for (let i = 0; i < n; i++) a[keys[i]] = vals[i];
    return a;
  }
}

/**
 * `io<id>` names, by id. Ids are u16: a dense array of all of them (512 KiB), because V8 keeps a
 * sparse one as a hash table, several times slower to read. Each name is made once, so the same
 * string object comes back every time (the key tree compares them by identity first).
 */
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
  return i32be(b, o) * 4294967296 + u32be(b, o + 4);
}
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

function addAlarm(a: AttrBag, alarm: string): void {
  const was = a.get(Attr.alarm);
  a.set(Attr.alarm, was ? `${was},${alarm}` : alarm);
}

/**
 * What an IO element becomes. One object shape for every kind, so reading a spec is monomorphic:
 * `num` (value / div, signed or not), `flag` (value > 0), `alarm` (adds `alarm` when value > 0),
 * `cell` (LAC or CID, kept aside for the record's cell: slot `div`), `custom` (its own function).
 */
const NUM = 0;
const FLAG = 1;
const ALARM = 2;
const CELL = 3;
const CUSTOM = 4;
type IoCustom = (b: Buffer, o: number, n: number, a: AttrBag) => void;
interface IoSpec {
  kind: number;
  key: string;
  div: number;
  signed: boolean;
  custom: IoCustom | undefined;
}
const spec = (kind: number, key: string, div = 1, signed = false, custom?: IoCustom): IoSpec => ({ kind, key, div, signed, custom });
const num = (key: string, div = 1, signed = false) => spec(NUM, key, div, signed);
const flag = (key: string) => spec(FLAG, key);
const alarmIf = (alarm: string) => spec(ALARM, alarm);
const cell = (slot: number) => spec(CELL, '', slot);
const custom = (f: IoCustom) => spec(CUSTOM, '', 1, false, f);

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
  [11, 'fmb', custom((b, o, n, a) => a.set(Attr.iccid, n === 8 ? b.readBigUInt64BE(o).toString() : String(uvalAt(b, o, n))))],
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
  [78, 'any', custom((b, o, n, a) => {
    if (n === 8 && b.readBigUInt64LE(o) !== 0n) a.set(Attr.driverUniqueId, b.readBigUInt64LE(o).toString(16).toUpperCase().padStart(16, '0'));
  })],
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
  [175, 'fmb', custom((b, o, n, a) => addAlarm(a, uvalAt(b, o, n) > 0 ? Alarm.geofenceEnter : Alarm.geofenceExit))],
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
  [253, 'any', custom((b, o, n, a) => {
    const alarm = [undefined, Alarm.hardAcceleration, Alarm.hardBraking, Alarm.hardCornering][uvalAt(b, o, n)];
    if (alarm) addAlarm(a, alarm);
  })],
  [389, 'fmb003', custom((b, o, n, a) => a.set('obdOdometer', uvalAt(b, o, n) * 1000))],
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

/** The state of a packet's IO decoding: the table, the current record's attributes and cell parts (NaN: absent). */
interface IoState {
  table: IoTable;
  fm6: boolean;
  attrs: AttrBag;
  cell: number[];
}

/** Apply one IO element: `u` is its unsigned value (exact for 1, 2, 4 bytes; 8-byte values are read again as needed). */
function applyIo(io: IoState, id: number, b: Buffer, o: number, n: number, u: number): void {
  const table = io.table;
  const s = id < table.length ? table[id] : undefined;
  const a = io.attrs;
  if (s === undefined) return a.set(ioKey(id), n === 8 ? rawval8(b, o) : u);
  switch (s.kind) {
    case NUM:
      return a.set(s.key, (s.signed ? signedOf(u, b, o, n) : u) / s.div);
    case FLAG:
      return a.set(s.key, u > 0);
    case ALARM:
      if (u > 0) addAlarm(a, s.key);
      return;
    case CELL:
      io.cell[s.div] = u;
      return;
    default:
      s.custom!(b, o, n, a);
  }
}

const truncated = () => new DecodeError('truncated IO element');

/**
 * One IO section of fixed-size values, `count | (id, value) x count`, read in place from the
 * Reader's buffer: one bounds check per element, then plain byte arithmetic.
 */
function readIoSection(r: Reader, size: number, wideCount: boolean, wideId: boolean, io: IoState): void {
  const b = r.buf;
  const end = r.end;
  let o = r.pos;
  const idBytes = wideId ? 2 : 1;
  if (o + (wideCount ? 2 : 1) > end) throw truncated();
  let count = wideCount ? u16be(b, o) : b[o];
  o += wideCount ? 2 : 1;
  for (; count > 0; count--) {
    if (o + idBytes + size > end) throw truncated();
    const id = wideId ? u16be(b, o) : b[o];
    o += idBytes;
    const u = size === 1 ? b[o] : size === 2 ? u16be(b, o) : size === 4 ? u32be(b, o) : uval8(b, o);
    applyIo(io, id, b, o, size, u);
    o += size;
  }
  r.pos = o;
}

/** The 16-byte IO section some configurations add (`extended`), kept raw as hex. */
function readExtendedIo(r: Reader, wide: boolean, wideId: boolean, a: AttrBag): void {
  for (let n = wide ? r.u16() : r.u8(); n > 0; n--) {
    const ioId = wideId ? r.u16() : r.u8();
    a.set(ioKey(ioId), r.hex(16));
  }
}

// ---------------------------------------------------------------------------------------------
// Variable-length (Codec 8 Extended) elements

/**
 * Attribute names of numbered entries (`beacon2Rssi`, `tag3Temp`), made once per number: a name
 * built for each record would be a new string every time, slower to compare and look up.
 */
function namesOf<F extends string>(prefix: string, fields: readonly F[]): (i: number) => Record<F, string> {
  const cache: Array<Record<F, string>> = [];
  const make = (i: number) => Object.fromEntries(fields.map((f) => [f, `${prefix}${i}${f}`])) as Record<F, string>;
  return (i) => cache[i] ?? (i < 256 ? (cache[i] = make(i)) : make(i));
}
const beaconNames = namesOf('beacon', ['Uuid', 'Major', 'Minor', 'Namespace', 'Instance', 'Rssi', 'Battery', 'Temp'] as const);
const tagNames = namesOf('tag', ['Rssi', 'Id', 'LowBattery', 'Voltage', 'Name', 'Temp', 'Humidity', 'Magnet', 'Motion', 'MotionCount', 'Pitch', 'AngleRoll', 'Battery', 'Mac'] as const);
type TagNames = ReturnType<typeof tagNames>;

/** BLE beacon list (id 385): iBeacon or Eddystone entries, each with RSSI and optional battery/temperature. */
function decodeBeacons(data: Reader, a: AttrBag): void {
  data.u8(); // data part
  for (let i = 1; data.remaining > 0; i++) {
    const flags = data.u8();
    const k = beaconNames(i);
    if (flags >> 4 > 0) {
      a.set(k.Uuid, data.hex(16));
      a.set(k.Major, data.u16());
      a.set(k.Minor, data.u16());
    } else {
      a.set(k.Namespace, data.hex(10));
      a.set(k.Instance, data.hex(6));
    }
    a.set(k.Rssi, data.i8());
    if (flags & 0x02) a.set(k.Battery, data.u16() / 100);
    if (flags & 0x04) a.set(k.Temp, data.u16());
  }
}

/**
 * EYE sensor / BLE tag parameters inside ids 548, 10828, 10829, 10831, 11317: param id -> its value
 * `b[s, e)` -> attributes of the tag (names `k`).
 */
type TagParam = (b: Buffer, s: number, e: number, a: AttrBag, k: TagNames) => void;
const TAG_PARAMS: Array<TagParam | undefined> = [
  /* 0 */ (b, s, e, a, k) => a.set(k.Rssi, sval(b, s, 1, e)),
  /* 1 */ (b, s, e, a, k) => a.set(k.Id, b.toString('hex', s, e)),
  /* 2 */ (b, s, e, a, k) => {
    const f = e > s ? b[s] : 0;
    if (f & 0x40) a.set(k.LowBattery, true);
    if (f & 0x80 && e - s > 1) a.set(k.Voltage, b[s + 1] * 10 + 2000); // mV
  },
  /* 3 */ undefined,
  /* 4 */ undefined,
  /* 5 */ (b, s, e, a, k) => a.set(k.Name, b.toString('utf8', s, e).replace(/\0+$/, '')), // NUL-padded
  /* 6 */ (b, s, e, a, k) => a.set(k.Temp, sval(b, s, 2, e)),
  /* 7 */ (b, s, e, a, k) => a.set(k.Humidity, uval(b, s, 1, e)),
  /* 8 */ (b, s, e, a, k) => a.set(k.Magnet, uval(b, s, 1, e) > 0),
  /* 9 */ (b, s, e, a, k) => a.set(k.Motion, uval(b, s, 1, e) > 0),
  /* 10 */ (b, s, e, a, k) => a.set(k.MotionCount, uval(b, s, 2, e)),
  /* 11 */ (b, s, e, a, k) => a.set(k.Pitch, sval(b, s, 1, e)),
  /* 12 */ (b, s, e, a, k) => a.set(k.AngleRoll, sval(b, s, 2, e)),
  /* 13 */ (b, s, e, a, k) => a.set(k.LowBattery, uval(b, s, 1, e)),
  /* 14 */ (b, s, e, a, k) => a.set(k.Battery, uval(b, s, 2, e)), // mV
  /* 15 */ (b, s, e, a, k) => a.set(k.Mac, b.toString('hex', s, Math.min(e, s + 6))),
];

/** Tags: `header | (u8 length | (u8 param id | u8 length | value) ...) ...`, read in place. */
function decodeTags(data: Reader, a: AttrBag): void {
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

/** One variable-length element: its value is `r.buf[start, end)` (read in place, no slice for the common hex case). */
function decodeVariable(id: number, r: Reader, start: number, end: number, a: AttrBag): void {
  const b = r.buf;
  if (id === 256 || id === 325) a.set(Attr.vin, b.toString('latin1', start, end));
  else if (id === 281) a.set(Attr.dtcs, b.toString('latin1', start, end).replace(/,/g, ' '));
  else if (id === 385) decodeBeacons(new Reader(b, start, end), a);
  else if (TAG_IDS.has(id)) decodeTags(new Reader(b, start, end), a);
  else a.set(ioKey(id), b.toString('hex', start, end));
}

/** The variable-length section of Codec 8 Extended: `u16 count | (u16 id, u16 length, bytes) x count`. */
function readVariableIo(r: Reader, a: AttrBag): void {
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
  const op = typeof operator === 'number' && operator >= 1000 ? String(operator) : '';
  const c: Cell = { mcc: op ? Number(op.slice(0, 3)) : 0, mnc: op ? Number(op.slice(3)) : 0, lac, cid };
  rec.cells = [c];
}

/** FM6 devices send the driver id as two 8-byte raw elements. */
function decodeFm6Driver(a: AttrBag): void {
  const hi = a.get('io195');
  const lo = a.get('io196');
  if (typeof hi !== 'number' || typeof lo !== 'number') return;
  const id = Buffer.alloc(16);
  id.writeBigInt64BE(BigInt(hi), 0);
  id.writeBigInt64BE(BigInt(lo), 8);
  a.set(Attr.driverUniqueId, id.toString('latin1'));
}

/** GH3000: compact time since 2007, then a mask of which location parts follow. */
function decodeGh3000Location(r: Reader, rec: DeviceRecord, a: AttrBag): number {
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
    if (mask & 0x40) a.set(Attr.rssi, r.u8());
    if (mask & 0x80) a.set(Attr.operator, r.u32());
  }
  return globalMask;
}

/** GH3000 record: its location, then the IO sections its mask announces (1, 2, 4 bytes; u8 ids and counts). */
function decodeGh3000Record(r: Reader, io: IoState, extended: boolean): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  const a = io.attrs;
  const globalMask = decodeGh3000Location(r, rec, a);
  for (let i = 0; i < 3; i++) if (globalMask & (2 << i)) readIoSection(r, 1 << i, false, false, io);
  if (extended) readExtendedIo(r, false, false, a);
  if (io.fm6) decodeFm6Driver(a);
  rec.attributes = a.take();
  return rec;
}

/** Size of the fixed part of an AVL record: time 8, priority 1, lng 4, lat 4, altitude 2, course 2, satellites 1, speed 2, then event id, (Codec 16) generation, total IO count. */
const AVL_FIXED: Record<number, number> = { [CODEC_8]: 26, [CODEC_8E]: 28, [CODEC_16]: 28 };

/**
 * Codec 8 / 8 Extended / 16 record. The fixed part is checked once and read in place; the record is
 * made in one go once its attributes are known, in the same key order as always (time, lng, lat, ...).
 */
function decodeAvlRecord(r: Reader, codec: number, io: IoState, extended: boolean): DeviceRecord {
  const b = r.buf;
  const o = r.pos;
  const fixed = AVL_FIXED[codec];
  if (o + fixed > r.end) throw new DecodeError('truncated AVL record');
  r.pos = o + fixed;
  const a = io.attrs;
  a.set('priority', b[o + 8]);
  a.set(Attr.event, codec === CODEC_8 ? b[o + 24] : u16be(b, o + 24));
  if (codec === CODEC_16) a.set('generation', b[o + 26]);

  const wide = codec === CODEC_8E; // counts and ids on 2 bytes
  const wideId = wide || codec === CODEC_16;
  const cell = io.cell;
  cell[LAC] = cell[CID_2G] = cell[CID_4G] = NaN;
  readIoSection(r, 1, wide, wideId, io);
  readIoSection(r, 2, wide, wideId, io);
  readIoSection(r, 4, wide, wideId, io);
  readIoSection(r, 8, wide, wideId, io);
  if (extended) readExtendedIo(r, wide, wideId, a);
  if (codec === CODEC_8E) readVariableIo(r, a);
  if (io.fm6) decodeFm6Driver(a);

  const satellites = b[o + 21];
  const rec: DeviceRecord = {
    attributes: a.take(),
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
  return { table: codec === CODEC_GH3000 ? IO_GH3000 : model.table, fm6: model.fm6, attrs: new AttrBag(), cell: [NaN, NaN, NaN] };
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

function decodeData(r: Reader, ctx: DecodeContext, session: Session): { records: DeviceRecord[]; reply?: Buffer; count: number } {
  const codec = r.u8();
  const count = r.u8();
  const records: DeviceRecord[] = [];
  let reply: Buffer | undefined;
  const io = isAvl(codec) || codec === CODEC_GH3000 ? ioState(codec, ctx) : undefined;
  const extended = ctx.config.extended === true;
  for (let i = 0; i < count; i++) {
    let rec: DeviceRecord;
    if (isAvl(codec)) rec = decodeAvlRecord(r, codec, io!, extended);
    else if (codec === CODEC_GH3000) rec = decodeGh3000Record(r, io!, extended);
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
