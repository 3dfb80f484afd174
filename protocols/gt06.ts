/**
 * GT06 / Concox binary protocol (and the many clones that speak it).
 *
 *   short frame  78 78 | len u8  | type | content | serial u16 | crc u16 | 0d 0a   (len = type..crc)
 *   long frame   79 79 | len u16 | type | content | serial u16 | crc u16 | 0d 0a
 *   crc          CRC-16/X-25 over len..serial
 *
 * The device logs in with its IMEI (type 0x01), then sends fixes, status/heartbeats, alarms, cell and
 * Wi-Fi scans and command replies. Most frames are acknowledged with an empty frame of the same type
 * echoing the serial number. Times are local to the zone announced in the login (UTC by default).
 * Message layouts differ between models; the frame length (and `modelOverride`) tells them apart.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, crc16X25 } from './binary.ts';
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

const MAX_FRAME = 4096;

// ---------------------------------------------------------------------------------------------
// Framer
// ---------------------------------------------------------------------------------------------

/**
 * Cuts frames by their declared length when it ends in CR LF there; otherwise by the first CR LF.
 * Some devices declare a wrong length (Wi-Fi scans put the access point count in the length byte,
 * some logins are short), so the terminator decides. While fewer bytes than the declared length are
 * buffered, a CR LF only ends a frame when it is the last thing received, so a CR LF inside the
 * binary content of a frame still in transit does not cut it.
 */
function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 5) return null;
      const head = buf.readUInt16BE(0);
      if (head !== 0x7878 && head !== 0x7979) throw new FrameError('gt06: bad frame header');
      const declared = head === 0x7878 ? buf[2] + 5 : buf.readUInt16BE(2) + 6;
      if (buf.length >= declared && buf[declared - 2] === 0x0d && buf[declared - 1] === 0x0a) {
        return { frame: buf.subarray(0, declared), consumed: declared };
      }
      const limit = Math.min(buf.length, MAX_FRAME);
      for (let i = 4; i + 1 < limit; i++) {
        if (buf[i] !== 0x0d || buf[i + 1] !== 0x0a) continue;
        if (buf.length >= declared || i + 2 === buf.length) return { frame: buf.subarray(0, i + 2), consumed: i + 2 };
      }
      if (buf.length >= MAX_FRAME) throw new FrameError('gt06: no frame end within max frame size');
      return null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Message types and variants
// ---------------------------------------------------------------------------------------------

const T = {
  login: 0x01,
  gps: 0x10,
  gpsLbs6: 0x11,
  gpsLbs1: 0x12,
  status: 0x13,
  string: 0x15,
  gpsLbsStatus1: 0x16,
  wifi: 0x17, // also GPS+LBS+RFID on some models
  lbsExtend: 0x18,
  lbsStatus: 0x19,
  gpsPhone: 0x1a,
  gpsLbsExtend: 0x1e,
  stringInfo: 0x21,
  gpsLbs2: 0x22,
  heartbeat: 0x23,
  lbsMultiple3: 0x24,
  gpsLbsDriver: 0x25,
  gpsLbsStatus2: 0x26,
  gpsLbsStatus3: 0x27,
  lbsMultiple1: 0x28,
  addressRequest: 0x2a,
  lbsWifi: 0x2c,
  gpsLbs4: 0x2d,
  lbsMultiple2: 0x2e,
  gpsLbs5: 0x31,
  gpsLbsStatus4: 0x32, // AZ735 GPS in long frames
  wifi5: 0x33, // AZ735 alarm in long frames
  x1Gps: 0x34, // LBS on SL4X
  x1PhotoInfo: 0x35,
  status2: 0x36, // X1 photo data in long frames
  gpsLbs3: 0x37,
  gpsLbs8: 0x38,
  bms: 0x40,
  multimedia: 0x41,
  ibutton: 0x61,
  wifi2: 0x69,
  modular: 0x70,
  command0: 0x80,
  command1: 0x81,
  command2: 0x82,
  timeRequest: 0x8a,
  obd: 0x8c,
  info: 0x94,
  alarm: 0x95,
  addressResponse: 0x97,
  serial: 0x9b,
  gpsLbs7: 0xa0,
  lbs2: 0xa1,
  wifi3: 0xa2, // GPS+LBS+status on LWxG
  fenceSingle: 0xa3, // status on GL21L
  fenceMulti: 0xa4,
  lbsAlarm: 0xa5,
  lbsAddress: 0xa7,
  statusTlv: 0xf1,
  peripheral: 0xf2,
  wifi4: 0xf3,
} as const;

/** Model families recognised from the frame shape (type + declared length). */
type Variant =
  | 'standard'
  | 'vxt01'
  | 'wanwayS20'
  | 'sr411mini'
  | 'gt06eCard'
  | 'benway'
  | 's5'
  | 'space10x'
  | 'obd6'
  | 'wetrust'
  | 'jc400'
  | 'sl4x'
  | 'seeworld'
  | 'rfid'
  | 'lw4g'
  | 'steps';

/** [type, declared length, variant] for short frames. */
const VARIANTS: Array<[number, number, Variant]> = [
  [T.gpsLbs1, 0x24, 'vxt01'],
  [T.gpsLbsStatus1, 0x24, 'vxt01'],
  [T.lbsMultiple3, 0x31, 'wanwayS20'],
  [T.lbsMultiple3, 0x2e, 'sr411mini'],
  [T.gpsLbs1, 0x21, 'benway'],
  [T.gpsLbs1, 0x2b, 's5'],
  [T.status, 0x13, 'obd6'],
  [T.gpsLbs1, 0x29, 'wetrust'],
  [T.x1Gps, 0x37, 'sl4x'],
  [T.gpsLbs5, 0x2a, 'sl4x'],
  [T.gpsLbsStatus4, 0x27, 'sl4x'],
  [T.gpsLbsStatus4, 0x29, 'sl4x'],
  [T.gpsLbs2, 0x2f, 'seeworld'],
  [T.gpsLbsStatus1, 0x26, 'seeworld'],
  [T.fenceSingle, 0x0c, 'seeworld'],
  [T.fenceSingle, 0x18, 'steps'],
  [T.wifi, 0x28, 'rfid'],
  [T.wifi3, 0x40, 'lw4g'],
];

function detectVariant(frame: Buffer, type: number): Variant {
  if (frame[0] !== 0x78) return 'standard';
  const len = frame[2];
  if (type === T.gpsLbs1 && len >= 0x71) return 'gt06eCard';
  if (type === T.lbsStatus && len >= 0x17) return 'space10x';
  if (type === T.alarm && frame.length >= 6 && frame.readUInt16BE(4) === 0xffff) return 'jc400';
  return VARIANTS.find(([t, l]) => t === type && l === len)?.[2] ?? 'standard';
}

/** Models whose GPS+LBS frames carry their own status block, odometer and engine hours. */
const NT_MODELS = new Set(['NT11', 'NT20', 'NT26', 'NT40', 'NT46', 'VL100', 'XT40']);
const VL_MODELS = new Set(['VL103', 'LL303', 'VL512', 'G18']);

const GPS_TYPES = new Set<number>([
  T.gps, T.gpsLbs1, T.gpsLbs2, T.gpsLbsDriver, T.gpsLbs3, T.gpsLbs4, T.gpsLbs5, T.gpsLbs6, T.gpsLbsStatus1,
  T.gpsLbsStatus2, T.gpsLbsStatus3, T.gpsLbsStatus4, T.wifi3, T.gpsPhone, T.gpsLbsExtend, T.gpsLbs7, T.wifi, T.fenceMulti,
]);
const LBS_TYPES = new Set<number>([
  T.lbsStatus, T.gpsLbs1, T.gpsLbs2, T.gpsLbsDriver, T.gpsLbs3, T.gpsLbs4, T.gpsLbs5, T.gpsLbs6, T.gpsLbsStatus1,
  T.gpsLbsStatus2, T.gpsLbsStatus3, T.gpsLbsStatus4, T.wifi3, T.gpsLbs7, T.wifi, T.fenceMulti, T.lbsAlarm, T.lbsAddress,
]);
const STATUS_TYPES = new Set<number>([
  T.status, T.status2, T.lbsStatus, T.gpsLbsStatus1, T.gpsLbsStatus2, T.gpsLbsStatus3, T.gpsLbsStatus4, T.wifi3,
  T.fenceMulti, T.lbsAlarm,
]);
/** Cell-scan messages: a time, one MCC/MNC and a list of towers (some followed by Wi-Fi). */
const LBS_LIST_TYPES = new Set<number>([
  T.lbsMultiple1, T.lbsMultiple2, T.lbsMultiple3, T.lbsExtend, T.lbsWifi, T.lbs2, T.x1Gps, T.wifi3, T.wifi5,
]);
const LBS_LIST_NO_WIFI = new Set<number>([T.lbsMultiple1, T.lbsMultiple2, T.lbsMultiple3, T.lbs2, T.x1Gps]);

/** One decoding job: the frame, its reader and everything the layouts depend on. */
interface Msg {
  r: Reader;
  frame: Buffer;
  type: number;
  /** Declared length minus type, serial and CRC (short frames). */
  dataLength: number;
  /** Declared length field (long frames). */
  length: number;
  variant: Variant;
  model: string;
  lw: boolean;
  sw: boolean;
  nt: boolean;
  vl: boolean;
  /** Device zone offset, ms east of UTC. */
  tz: number;
  now: number;
  rec: DeviceRecord;
}

/** What a message handler produces: a record (or none) and the reply (default: ack with the frame serial). */
interface Out {
  rec?: DeviceRecord;
  reply?: Buffer | null;
}

const hasGps = (m: Msg, t: number) => GPS_TYPES.has(t) || (t === T.fenceSingle && m.variant !== 'seeworld');
const hasLbs = (m: Msg, t: number) => LBS_TYPES.has(t) || (t === T.fenceSingle && m.variant !== 'seeworld');
const ntFrame = (m: Msg) => m.nt && (m.type === T.gpsLbs2 || m.type === T.gpsLbsDriver);
function hasStatus(m: Msg, t: number): boolean {
  if (STATUS_TYPES.has(t)) return true;
  if (t === T.gpsLbs2 || t === T.gpsLbsDriver) return m.nt;
  return t === T.fenceSingle && m.variant === 'seeworld';
}

// ---------------------------------------------------------------------------------------------
// Field helpers
// ---------------------------------------------------------------------------------------------

function addAlarm(rec: DeviceRecord, alarm: string | undefined): void {
  if (!alarm) return;
  const prev = rec.attributes[Attr.alarm];
  rec.attributes[Attr.alarm] = prev ? `${prev},${alarm}` : alarm;
}

function setIf(rec: DeviceRecord, key: string, value: AttrValue | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isNaN(value))) rec.attributes[key] = value;
}

/** yy mm dd hh mm ss in the device zone -> ms UTC. */
function readDate(r: Reader, tz: number): number {
  const [y, mo, d, h, mi, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  return Date.UTC(y < 100 ? 2000 + y : y, mo - 1, d, h, mi, s) - tz;
}

/** Same as readDate with BCD digits (Wi-Fi scans). */
function readBcdDate(r: Reader): number {
  const v = r.bytes(6);
  const n = (i: number) => (v[i] >> 4) * 10 + (v[i] & 0x0f);
  return Date.UTC(2000 + n(0), n(1) - 1, n(2), n(3), n(4), n(5));
}

/** Course/status word shared by every fix layout: course bits 0-9, north bit 10, west bit 11, valid bit 12, ACC bits 14-15. */
function applyCourseFlags(rec: DeviceRecord, flags: number, lat: number, lng: number): void {
  rec.course = flags & 0x3ff;
  rec.valid = (flags & 0x1000) !== 0;
  rec.lat = flags & 0x400 ? lat : -lat;
  rec.lng = flags & 0x800 ? -lng : lng;
  if (flags & 0x4000) rec.attributes[Attr.ignition] = (flags & 0x8000) !== 0;
}

interface GpsLayout {
  /** A length byte follows the time; 0 means no fix. */
  hasLength?: boolean;
  satellites?: boolean;
  speed?: boolean;
  /** Speed as u16 and before the course word (JC400). */
  jc400?: boolean;
}

/** Time, satellites, lat/lng (1/30000 minute), speed km/h, course word. Returns false when the fix is absent. */
function readGps(m: Msg, layout: GpsLayout = { satellites: true, speed: true }): boolean {
  const { r, rec } = m;
  rec.time = readDate(r, m.tz);
  if (layout.hasLength && r.u8() === 0) return false;
  if (layout.satellites) rec.satellites = r.u8() & 0x0f;
  const lat = r.u32() / 1800000;
  const lng = r.u32() / 1800000;
  let flags = layout.jc400 ? r.u16() : 0;
  if (layout.speed) rec.speed = layout.jc400 ? r.u16() : r.u8();
  if (!layout.jc400) flags = r.u16();
  applyCourseFlags(rec, flags, lat, lng);
  return true;
}

/** Serving cell: MCC (bit 15 = two-byte MNC), MNC, LAC, CID; widths depend on type and model. */
function readLbs(m: Msg, type: number, hasLength: boolean): boolean {
  const { r, rec } = m;
  let length = 0;
  if (hasLength) {
    length = r.u8();
    if (length === 0) {
      // an all-zero block stands for "no cell"; skip it whole
      const from = r.pos + 9;
      const to = Math.min(r.pos + 45, r.end);
      let zeroed = true;
      for (let i = from; i < to; i++) if (m.frame[i] !== 0) zeroed = false;
      if (zeroed) r.skip(Math.min(r.remaining, 45));
      return false;
    }
  }
  const cellType = type === T.gpsLbs8 ? r.u8() : 0;
  const mccRaw = r.u16();
  const mnc = mccRaw & 0x8000 || type === T.gpsLbs6 || m.variant === 'sl4x' ? r.u16() : r.u8();
  const wide = cellType >= 3 || type === T.lbsAlarm || type === T.gpsLbs7 || type === T.wifi3;
  const lac = wide ? r.i32() : r.u16();
  let cid: number;
  if (wide || m.variant === 'sl4x') cid = r.i64();
  else if (type === T.gpsLbs6 || type === T.ibutton || type === T.gpsLbsDriver || m.variant === 'seeworld') cid = r.u32();
  else cid = r.u24();
  if (cellType >= 3) r.skip(2);
  else if (type === T.gpsLbs8) r.skip(1);
  rec.cells = [{ mcc: mccRaw & 0x7fff, mnc, lac, cid }];
  if (length > 9) r.skip(length - 9);
  return true;
}

/** Terminal information byte: ACC, charging, relay and an alarm code in bits 3-5. */
const STATUS_ALARMS: Record<number, string> = { 1: Alarm.vibration, 2: Alarm.powerCut, 3: Alarm.lowBattery, 4: Alarm.sos, 6: Alarm.geofence };

function readStatusByte(m: Msg): void {
  const { rec } = m;
  const status = m.r.u8();
  rec.attributes[Attr.status] = status;
  rec.attributes[Attr.ignition] = (status & 0x02) !== 0;
  rec.attributes[Attr.charge] = (status & 0x04) !== 0;
  rec.attributes[Attr.blocked] = (status & 0x80) !== 0;
  const code = (status >> 3) & 7;
  if (code === 7) addAlarm(rec, m.variant === 'vxt01' ? Alarm.overspeed : Alarm.removing);
  else addAlarm(rec, STATUS_ALARMS[code]);
}

/** Alarm codes of the status block ("alarm/language" byte). Some codes mean different things per model. */
function statusAlarm(m: Msg, v: number): string | undefined {
  switch (v) {
    case 0x09: return m.vl ? Alarm.tow : Alarm.vibration;
    case 0x18: return m.lw ? Alarm.accident : Alarm.removing;
    case 0x19: return m.lw ? Alarm.hardAcceleration : Alarm.lowBattery;
    case 0x28: return m.sw ? Alarm.hardCornering : Alarm.hardBraking;
    case 0x29: return m.sw ? Alarm.accident : Alarm.hardAcceleration;
    case 0x30: return m.vl ? Alarm.hardBraking : Alarm.jamming;
    default: return STATUS_ALARM_CODES[v];
  }
}
const STATUS_ALARM_CODES: Record<number, string> = {
  0x01: Alarm.sos,
  0x02: Alarm.powerCut,
  0x03: Alarm.vibration,
  0x04: Alarm.geofenceEnter,
  0x05: Alarm.geofenceExit,
  0x06: Alarm.overspeed,
  0x0c: Alarm.tampering,
  0x0e: Alarm.lowBattery,
  0x0f: Alarm.lowBattery,
  0x11: Alarm.powerOff,
  0x13: Alarm.tampering,
  0x14: Alarm.door,
  0x1a: Alarm.hardBraking,
  0x1b: Alarm.hardCornering,
  0x23: Alarm.fallDown,
  0x25: Alarm.tampering,
  0x26: Alarm.hardAcceleration,
  0x27: Alarm.hardBraking,
  0x2a: Alarm.hardCornering,
  0x2b: Alarm.hardCornering,
  0x2c: Alarm.accident,
  0x2e: Alarm.hardCornering,
};

/** Event codes of the alarm message (0x95). */
const EVENT_ALARMS: Record<number, string> = {
  0x0e: Alarm.lowPower,
  0x76: Alarm.temperature,
  0x80: Alarm.vibration,
  0x87: Alarm.overspeed,
  0x88: Alarm.powerCut,
  0x90: Alarm.hardAcceleration,
  0x91: Alarm.hardBraking,
  0x92: Alarm.hardCornering,
  0x93: Alarm.accident,
};

/** Voltage/battery grade byte: 0..6 is a grade, up to 100 a percentage. */
function setBatteryGrade(rec: DeviceRecord, v: number): void {
  if (v <= 6) rec.attributes[Attr.batteryLevel] = Math.trunc((v * 100) / 6);
  else if (v <= 100) rec.attributes[Attr.batteryLevel] = v;
}

const isPrintable = (b: Buffer) => b.every((c) => (c >= 0x20 && c < 0x7f) || c === 0x0d || c === 0x0a || c === 0x09);

// ---------------------------------------------------------------------------------------------
// Reply frames
// ---------------------------------------------------------------------------------------------

/** A protocol frame: header, length, type, content, serial, X-25 CRC, CR LF. */
export function buildFrame(long: boolean, type: number, serial: number, content: Buffer = Buffer.alloc(0)): Buffer {
  const head = long ? 4 : 3;
  const out = Buffer.alloc(head + 1 + content.length + 6);
  out[0] = out[1] = long ? 0x79 : 0x78;
  if (long) out.writeUInt16BE(5 + content.length, 2);
  else out[2] = 5 + content.length;
  out[head] = type;
  content.copy(out, head + 1);
  const at = head + 1 + content.length;
  out.writeUInt16BE(serial & 0xffff, at);
  out.writeUInt16BE(crc16X25(out, 2, at + 2), at + 2);
  out[at + 4] = 0x0d;
  out[at + 5] = 0x0a;
  return out;
}

/** The serial number sits 6 bytes before the end (serial, CRC, CR LF). */
function frameSerial(frame: Buffer): number {
  if (frame.length < 6) throw new DecodeError('gt06: frame too short for a serial number');
  return frame.readUInt16BE(frame.length - 6);
}

const ack = (m: Msg, long = false) => buildFrame(long, m.type, frameSerial(m.frame));

// ---------------------------------------------------------------------------------------------
// Short (0x7878) messages
// ---------------------------------------------------------------------------------------------

function decodeLogin(m: Msg, session: Record<string, unknown>): DecodeResult {
  const { r } = m;
  const deviceId = r.hex(8).slice(1);
  r.skip(2); // type identification code (or the serial on short logins)
  let tz = 0;
  if (m.dataLength > 10) {
    // time zone language word: offset hhmm * 10 in bits 4-15, bit 3 set for west
    const ext = r.u16();
    const hhmm = ext >> 4;
    tz = (Math.trunc(hhmm / 100) * 60 + (hhmm % 100)) * 60000 * (ext & 0x08 ? -1 : 1);
  }
  session.tz = tz;
  return { deviceId, reply: ack(m) };
}

function decodeHeartbeat(m: Msg): Out {
  const { r, rec } = m;
  const status = r.u8();
  rec.attributes[Attr.armed] = (status & 0x01) !== 0;
  rec.attributes[Attr.ignition] = (status & 0x02) !== 0;
  rec.attributes[Attr.charge] = (status & 0x04) !== 0;
  if (r.remaining >= 8) rec.attributes[Attr.battery] = r.u16() * 0.01;
  if (r.remaining >= 7) rec.attributes[Attr.rssi] = r.u8();
  return { rec };
}

/** The device asks for a street address; we have none to give. */
function decodeAddressRequest(): Out {
  const text = Buffer.from('NA&&NA&&0##', 'ascii');
  const content = Buffer.concat([Buffer.from([text.length, 0, 0, 0, 0]), text]);
  return { reply: buildFrame(true, T.addressResponse, 0, content) };
}

function decodeTimeRequest(m: Msg): Out {
  const d = new Date(m.now);
  const content = Buffer.from([
    d.getUTCFullYear() - 2000, d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(),
  ]);
  return { reply: buildFrame(false, T.timeRequest, 0, content) };
}

/** X1 fix: alarm word, GPS, odometer, cell, driver, voltages, ports and ADC inputs. No ack expected. */
function decodeX1Gps(m: Msg): Out {
  const { r, rec } = m;
  r.skip(4); // data and alarm
  readGps(m);
  r.skip(2); // terminal info
  rec.attributes[Attr.odometer] = r.u32();
  rec.cells = [{ mcc: r.u16(), mnc: r.u8(), lac: r.u16(), cid: r.u32() }];
  const driver = r.u32();
  if (driver > 0) rec.attributes[Attr.driverUniqueId] = String(driver);
  rec.attributes[Attr.battery] = r.u16() * 0.01;
  rec.attributes[Attr.power] = r.u16() * 0.01;
  const ports = r.u32();
  rec.attributes[Attr.input] = r.u8();
  rec.attributes[Attr.output] = r.u8();
  const adcCount = (ports >> 20) & 0x0f;
  for (let i = 1; i <= adcCount; i++) rec.attributes[indexed.adc(i)] = r.u16() * 0.01;
  return { rec, reply: null };
}

/** Wi-Fi scan (+ cells). The ack echoes the BCD time in a frame without serial and CRC. */
function decodeWifi(m: Msg): Out {
  const { r, rec, type } = m;
  const timeAt = r.pos;
  rec.time = readBcdDate(r);
  const wifiCount = type === T.wifi4 ? r.u8() : m.frame[2];
  for (let i = 0; i < wifiCount; i++) r.skip(type === T.wifi4 ? 2 + 6 : 6 + 1); // MAC (+ signal)
  if (type === T.wifi4) return { rec, reply: null };
  const cellCount = r.u8();
  const mcc = r.u16();
  const mnc = r.u8();
  const cells: Cell[] = [];
  for (let i = 0; i < cellCount; i++) cells.push({ mcc, mnc, lac: r.u16(), cid: r.u16(), rssi: r.u8() });
  rec.cells = cells;
  rec.attributes.wifiCount = wifiCount;
  const reply = Buffer.concat([Buffer.from([0x78, 0x78, 0x00, type]), m.frame.subarray(timeAt, timeAt + 6), Buffer.from([0x0d, 0x0a])]);
  return { rec, reply };
}

function decodeInfoShort(m: Msg): Out {
  m.rec.attributes[Attr.power] = m.r.i16() * 0.01;
  return { rec: m.rec, reply: null };
}

function decodeSr411(m: Msg): Out {
  const { r, rec } = m;
  readGps(m);
  readLbs(m, m.type, false);
  rec.attributes[Attr.ignition] = r.u8() > 0;
  rec.attributes[Attr.power] = r.u16() * 0.01;
  rec.attributes[Attr.battery] = r.u16() * 0.01;
  return { rec, reply: null };
}

/** Multi-cell scans: time, MCC/MNC, 6-7 towers (or a counted list), timing advance, optional Wi-Fi list. */
function decodeLbsList(m: Msg): Out {
  const { r, rec, type, variant } = m;
  rec.time = readDate(r, m.tz);
  const taFirst = variant === 'wanwayS20' || variant === 'sl4x';
  if (taFirst) r.skip(1);
  const mccRaw = r.u16();
  const mnc = mccRaw & 0x8000 || variant === 'sl4x' ? r.u16() : r.u8();
  const count = variant === 'wanwayS20' ? r.u8() : type === T.wifi5 ? 6 : 7;
  const cells: Cell[] = [];
  for (let i = 0; i < count; i++) {
    let lac: number;
    let cid: number;
    if (type === T.lbs2 || type === T.wifi3) [lac, cid] = [r.i32(), r.i64()];
    else if (type === T.wifi5 || type === T.x1Gps) [lac, cid] = [r.u16(), r.u32()];
    else [lac, cid] = [r.u16(), r.u24()];
    const rssi = -r.u8();
    if (lac > 0) cells.push({ mcc: mccRaw & 0x7fff, mnc, lac, cid, rssi });
  }
  if (!taFirst) r.skip(1);
  if (!LBS_LIST_NO_WIFI.has(type)) {
    const wifiCount = r.u8();
    r.skip(wifiCount * 7);
    rec.attributes.wifiCount = wifiCount;
  }
  rec.cells = cells;
  return { rec };
}

/** Text from the device: a command reply, or its ICCID. */
function decodeString(m: Msg): Out {
  const { r, rec } = m;
  const length = r.u8();
  if (length > 0) {
    r.skip(4); // server flag
    const text = r.ascii(length - 4).replace(/\0+$/, '');
    if (text.startsWith('<ICCID:')) rec.attributes[Attr.iccid] = text.substring(7, 27);
    else rec.attributes[Attr.result] = text;
  }
  return { rec };
}

/** Battery management system report of electric scooters (WD-209). */
function decodeBms(m: Msg): Out {
  const { r, rec } = m;
  const a = rec.attributes;
  r.skip(8); // serial number
  rec.time = r.u32() * 1000;
  a.relativeCapacity = r.u8();
  a.remainingCapacity = r.u16();
  a.absoluteCapacity = r.u8();
  a.fullCapacity = r.u16();
  a.batteryHealth = r.u8();
  a.batteryTemp = r.u16() * 0.1 - 273.1;
  a.current = r.u16();
  a[Attr.battery] = r.u16() * 0.001;
  a.cycleIndex = r.u16();
  for (let i = 1; i <= 14; i++) a[`batteryCell${i}`] = r.u16() * 0.001;
  a.currentChargeInterval = r.u16();
  a.maxChargeInterval = r.u16();
  a.barcode = r.ascii(16).trim();
  a.batteryVersion = r.u16();
  a.manufacturer = r.ascii(16).trim();
  a.batteryStatus = r.u32();
  a.controllerStatus = r.u32();
  a.controllerFault = r.u32();
  return { rec };
}

/** Long status frame (22 bytes after the type): battery level and temperature. */
function decodeStatusLong(m: Msg): Out {
  const { r, rec } = m;
  r.skip(1 + 2 + 1 + 1); // information content, satellites, alarm, language
  rec.attributes[Attr.batteryLevel] = r.u8();
  r.skip(1 + 2 + 1 + 2 + 2); // working mode, voltage, reserved, working times, working time
  const t = r.u16();
  rec.attributes[indexed.temp(1)] = (t & 0x8000 ? 1 : -1) * (t & 0x7fff) * 0.1;
  return { rec };
}

function decodeIbutton(m: Msg): Out {
  const { r, rec } = m;
  r.skip(8); // imei
  readGps(m);
  readLbs(m, m.type, false);
  const high = r.u32();
  rec.attributes[Attr.driverUniqueId] = String(high * 65536 + r.u16());
  return { rec };
}

/** Step counter report of GL21L-style personal trackers (0xA3 with 19 content bytes). */
function decodeSteps(m: Msg): Out {
  m.r.skip(9);
  m.rec.attributes[Attr.steps] = m.r.u32();
  return { rec: m.rec };
}

/** Status block after GPS/LBS: terminal info, voltage grade, GSM signal, alarm/language. */
function readStatusBlock(m: Msg): void {
  const { r, rec, type } = m;
  if (type === T.wifi3) r.skip(1); // network indicator
  readStatusByte(m);
  if (m.variant === 'obd6') {
    const signal = r.u16();
    rec.satellites = ((signal >> 10) & 0x1f) + ((signal >> 5) & 0x1f);
    rec.attributes[Attr.rssi] = signal & 0x1f;
    addAlarm(rec, statusAlarm(m, r.u8()));
    r.skip(1); // language
    rec.attributes[Attr.batteryLevel] = r.u8();
    const mode = r.u8();
    rec.attributes[Attr.power] = r.u16() / 100;
    r.skip(1 + 2); // reserved, working time
    if (mode === 4) rec.attributes[indexed.temp(1)] = r.i16() / 10;
    return;
  }
  if (type === T.wifi3 || ntFrame(m)) rec.attributes[Attr.power] = r.u16() * 0.01;
  if (type === T.status && m.model === 'R11') rec.attributes[Attr.power] = r.u16() * 0.01;
  else {
    const grade = r.u8();
    if (ntFrame(m)) rec.attributes[Attr.battery] = grade / 10;
    else setBatteryGrade(rec, grade);
  }
  rec.attributes[Attr.rssi] = r.u8();
  if (type === T.status && m.lw) {
    rec.attributes[Attr.power] = (r.u16() & 0x0fff) / 10;
    return;
  }
  let ext = r.u8();
  if (type === T.gpsLbsStatus3 || type === T.fenceMulti) ext += (r.peekU8() >> 4) << 8;
  if (type === T.status && m.sw) rec.attributes[Attr.power] = ext;
  else if (m.variant !== 'vxt01') addAlarm(rec, statusAlarm(m, ext));
  if (m.vl && type === T.gpsLbsStatus1) rec.attributes[Attr.event] = ext; // VL models report their event code here
}

/** Extra fields of 0x12 frames, by model family. */
function readGpsLbs1Extras(m: Msg): void {
  const { r, rec } = m;
  const a = rec.attributes;
  switch (m.variant) {
    case 'gt06eCard': {
      a[Attr.odometer] = r.u32();
      const card = r.ascii(r.u8());
      r.skip(2); // alarm, swiped
      a.card = card.trim();
      break;
    }
    case 'benway': {
      const mask = r.u16();
      a[Attr.ignition] = (mask & 0x8000) !== 0;
      a[indexed.in(2)] = (mask & 0x4000) !== 0;
      if (mask & 0x1000) {
        const v = mask & 0x1ff;
        a[indexed.temp(1)] = mask & 0x200 ? -v : v;
      } else {
        const v = mask & 0x3ff;
        a[indexed.adc(1)] = mask & 0x2000 ? v : v * 0.1;
      }
      break;
    }
    case 'vxt01':
      readStatusByte(m);
      a[Attr.power] = r.u16() * 0.01;
      a[Attr.rssi] = r.u8();
      r.skip(1); // alarm extension
      break;
    case 's5': {
      readStatusByte(m);
      a[Attr.power] = r.u16() * 0.01;
      a[Attr.rssi] = r.u8();
      addAlarm(rec, statusAlarm(m, r.u8()));
      a.oil = r.u16();
      const t = r.u8();
      a[indexed.temp(1)] = t & 0x80 ? -(t & 0x7f) : t;
      a[Attr.odometer] = r.u32() * 10;
      break;
    }
    case 'wetrust':
      a[Attr.odometer] = r.u32();
      a.card = r.ascii(r.u8());
      if (r.u8() > 0) addAlarm(rec, Alarm.general);
      a.cardStatus = r.u8();
      a.drivingTime = r.u16();
      break;
    default:
      break;
  }
}

/** Language byte and the module list of 0x36 status frames; LWxG odometer, hours and inputs. */
function readStatusExtras(m: Msg): void {
  const { r, type } = m;
  const a = m.rec.attributes;
  if (type === T.status2 || type === T.wifi3 || type === T.gpsLbsStatus3 || type === T.fenceMulti || ntFrame(m)) r.skip(1); // language
  while (type === T.status2 && r.remaining > 6) {
    const id = r.u16();
    const len = r.u8();
    if (id === 0x18) a[Attr.battery] = r.u16() / 100;
    else if (id === 0x32) a.startupStatus = r.u8();
    else if (id === 0x6a) a[Attr.batteryLevel] = r.u8();
    else r.skip(len);
  }
  if (type === T.wifi3) {
    a[Attr.odometer] = r.u32();
    a[Attr.hours] = r.u32() * 1000;
    r.skip(8); // terminal id
    a[Attr.input] = r.u16();
  }
}

/** SeeWorld 0x22 tail: ACC, modes, odometer, travel time, temperature, humidity. */
function readSeeworldTail(m: Msg): void {
  const { r } = m;
  const a = m.rec.attributes;
  a[Attr.ignition] = r.u8() > 0;
  r.skip(2); // reporting mode, supplementary transmission
  a[Attr.odometer] = r.u32();
  r.skip(4); // travel time
  const t = r.u16();
  a[indexed.temp(1)] = (t & 0x8000 ? -(t & 0x7fff) : t) * 0.01;
  a.humidity = r.u16() * 0.01;
}

/** ACC / upload reason / re-upload block of 0x22, 0x37, 0x2D, 0x31 (SL4X adds odometer and altitude). */
function readUploadBlock(m: Msg): void {
  const { r, rec } = m;
  const a = rec.attributes;
  a[Attr.ignition] = r.u8() > 0;
  a[Attr.event] = r.u8(); // upload reason
  a[Attr.archive] = r.u8() > 0;
  if (m.variant === 'sl4x') {
    if (r.remaining > 8) a[Attr.odometer] = r.u32();
    rec.altitude = r.i16();
  }
}

/** One extension module of 0x37 frames. */
function readGpsLbs3Module(m: Msg): void {
  const { r, rec } = m;
  const module = r.u16();
  const len = r.u8();
  if (module === 0x27) rec.attributes[Attr.power] = r.u16() * 0.01;
  else if (module === 0x2e) rec.attributes[Attr.odometer] = r.u32();
  else if (module === 0x3b) rec.precision = r.u16() * 0.01;
  else r.skip(len);
}

/** NT-family tail: odometer, engine minutes and (0x25) the driver id. */
function readNtTail(m: Msg): void {
  const { r } = m;
  const a = m.rec.attributes;
  a[Attr.odometer] = r.u24();
  a[Attr.hours] = r.u24() * 60000;
  if (m.type !== T.gpsLbsDriver) return;
  const len = r.u8();
  if (len > 0) {
    r.skip(1); // identifier type
    a[Attr.driverUniqueId] = r.hex(len - 1);
  }
}

/** Tail of fix/status frames: model extras, ACC/upload mode, odometer, modules, geofence. */
function readFixTail(m: Msg): void {
  const { r, rec, type, variant } = m;
  const a = rec.attributes;
  readStatusExtras(m);
  if (type === T.gpsLbs1) readGpsLbs1Extras(m);
  if (type === T.gpsLbs2 && variant === 'seeworld') readSeeworldTail(m);
  if (type === T.gpsLbsStatus4 && variant === 'sl4x') rec.altitude = r.i16();
  const uploadTypes = type === T.gpsLbs2 || type === T.gpsLbs3 || type === T.gpsLbs4 || type === T.gpsLbs5;
  if (uploadTypes && r.remaining >= 9 && !m.nt) readUploadBlock(m);
  if (type === T.gpsLbs3) readGpsLbs3Module(m);
  if (type === T.wifi) {
    a[Attr.driverUniqueId] = r.hex(8); // RFID variant
    r.skip(1); // validity
  }
  if (ntFrame(m)) readNtTail(m);
  if (m.vl && type === T.gpsLbsStatus1 && r.remaining >= 15) {
    r.skip(1); // language
    setDriver(rec, r.bytes(8));
  }
  // what is left tells the layout: ACC + upload mode + re-upload (+ odometer), or odometer alone
  if (r.remaining === 9 || r.remaining === 13) {
    a[Attr.ignition] = r.u8() > 0;
    r.skip(1); // upload mode
    if (r.u8() > 0) a[Attr.archive] = true;
  }
  if (r.remaining === 10) a[Attr.odometer] = r.u32();
  if (type === T.gpsLbsStatus3 || type === T.fenceMulti) a.geofence = r.u8();
}

/** GPS / LBS / status frames, the bulk of the traffic. */
function decodeFix(m: Msg): Out {
  const { r, rec, type } = m;
  if (type === T.lbsStatus && m.variant === 'space10x') return { reply: ack(m) }; // multi-LBS layout, no fix
  rec.attributes.type = type;
  if (type === T.gpsLbs1 && m.model === 'QH302R') r.skip(8); // imei
  if (ntFrame(m)) {
    r.skip(1 + 8); // location source, imei
    rec.attributes.deviceTime = readDate(r, m.tz);
  }
  if (hasGps(m, type)) readGps(m);
  if (hasLbs(m, type) && r.remaining > 6) {
    const withLength =
      hasStatus(m, type) &&
      type !== T.lbsStatus &&
      type !== T.lbsAlarm &&
      !(type === T.gpsLbsStatus1 && m.variant === 'vxt01') &&
      type !== T.wifi3;
    readLbs(m, type, withLength);
  }
  if (hasStatus(m, type)) readStatusBlock(m);
  readFixTail(m);
  return { rec };
}

/** An all-zero driver (RFID / iButton) field means no driver. */
function setDriver(rec: DeviceRecord, id: Buffer): void {
  if (id.some((b) => b !== 0)) rec.attributes[Attr.driverUniqueId] = id.toString('hex');
}

/**
 * VL-family GPS+LBS frame with driver identification (0x36): fix, serving cell (4-byte CID),
 * ACC, upload mode, re-upload flag, odometer, voltage grade, GSM signal, battery (0.1 V), alarm,
 * language, one reserved byte, 8-byte driver id.
 */
function decodeVlDriver(m: Msg): Out {
  const { r, rec } = m;
  const a = rec.attributes;
  a.type = m.type;
  readGps(m);
  const mccRaw = r.u16();
  const mnc = mccRaw & 0x8000 ? r.u16() : r.u8();
  rec.cells = [{ mcc: mccRaw & 0x7fff, mnc, lac: r.u16(), cid: r.u32() }];
  a[Attr.ignition] = r.u8() > 0;
  r.skip(1); // upload mode
  if (r.u8() > 0) a[Attr.archive] = true;
  a[Attr.odometer] = r.u32();
  setBatteryGrade(rec, r.u8());
  a[Attr.rssi] = r.u8();
  a[Attr.battery] = r.u8() / 10;
  addAlarm(rec, statusAlarm(m, r.u8()));
  r.skip(2); // language, reserved
  setDriver(rec, r.bytes(8));
  return { rec };
}

/** Alarm message (JC100/JC400 dashcams): optional fix, event code, event files. */
function decodeAlarm(m: Msg): Out {
  const { r, rec } = m;
  const jc400 = m.variant === 'jc400';
  const extended = m.dataLength > 7;
  if (extended) {
    if (jc400) r.skip(3); // marker, version
    readGps(m, jc400 ? { satellites: true, speed: true, jc400: true } : {});
  } else rec.time = readDate(r, m.tz);
  if (jc400) rec.attributes[Attr.power] = r.u16() * 0.1;
  const event = r.u8();
  rec.attributes[Attr.event] = event;
  rec.attributes.eventData = r.u16();
  addAlarm(rec, event === 0x01 ? (extended ? Alarm.sos : Alarm.general) : EVENT_ALARMS[event]);
  const files = r.remaining - 6;
  if (files > 0) rec.attributes.eventFiles = r.ascii(files);
  return { rec };
}

/** Anything else: acknowledge (except echoes of our own command types) and produce nothing. */
function decodeOther(m: Msg): Out {
  const command = m.type === T.command0 || m.type === T.command1 || m.type === T.command2;
  return { reply: command ? null : ack(m) };
}

type Rule = [(m: Msg) => boolean, (m: Msg) => Out];

/** Short-frame dispatch, first match wins (several type codes mean different things per model). */
const SHORT_RULES: Rule[] = [
  [(m) => m.type === T.heartbeat, decodeHeartbeat],
  [(m) => m.type === T.addressRequest, decodeAddressRequest],
  [(m) => m.type === T.timeRequest, decodeTimeRequest],
  [(m) => m.type === T.x1Gps && m.variant !== 'sl4x', decodeX1Gps],
  [(m) => m.type === T.x1PhotoInfo, () => ({ reply: null })], // photos are not fetched
  [(m) => (m.type === T.wifi && m.variant !== 'rfid') || m.type === T.wifi2 || m.type === T.wifi4, decodeWifi],
  [(m) => m.type === T.info, decodeInfoShort],
  [(m) => m.type === T.lbsMultiple3 && m.variant === 'sr411mini', decodeSr411],
  [(m) => LBS_LIST_TYPES.has(m.type) && !(m.type === T.wifi3 && m.variant === 'lw4g'), decodeLbsList],
  [(m) => m.type === T.string, decodeString],
  [(m) => m.type === T.bms, decodeBms],
  [(m) => m.type === T.status && m.r.remaining === 22, decodeStatusLong],
  [(m) => m.type === T.ibutton, decodeIbutton],
  [(m) => m.variant === 'steps', decodeSteps],
  [(m) => m.type === T.status2 && m.vl, decodeVlDriver],
  [(m) => hasGps(m, m.type) || hasLbs(m, m.type) || hasStatus(m, m.type), decodeFix],
  [(m) => m.type === T.alarm, decodeAlarm],
];

// ---------------------------------------------------------------------------------------------
// Long (0x7979) messages
// ---------------------------------------------------------------------------------------------

const CURRENT_POSITION =
  /^Current position!Lat:([NS])(\d+\.\d+),Lon:([EW])(\d+\.\d+),Course:(\d+\.\d+),Speed:(\d+\.\d+),DateTime:(\d{4})-(\d\d)-(\d\d) +(\d\d):(\d\d):(\d\d)/;

/** Text reply (ASCII or UTF-16); "Current position!" replies carry a fix. */
function decodeStringInfo(m: Msg): Out {
  const { r, rec } = m;
  r.skip(4); // server flag
  const encoding = r.u8();
  const raw = r.bytes(r.remaining - 6);
  const text = encoding === 1 ? raw.toString('latin1') : utf16be(raw);
  const p = CURRENT_POSITION.exec(text);
  if (!p) {
    rec.attributes[Attr.result] = text;
    return { rec, reply: null };
  }
  rec.valid = true;
  rec.lat = Number(p[2]) * (p[1] === 'S' ? -1 : 1);
  rec.lng = Number(p[4]) * (p[3] === 'W' ? -1 : 1);
  rec.course = Number(p[5]);
  rec.speed = Number(p[6]);
  rec.time = Date.UTC(+p[7], +p[8] - 1, +p[9], +p[10], +p[11], +p[12]);
  return { rec, reply: null };
}

function utf16be(b: Buffer): string {
  const even = Buffer.from(b.subarray(0, b.length & ~1));
  return even.swap16().toString('utf16le');
}

const FUEL = /^!AIOIL,\d+,\d+\.\d+,(\d+\.\d+),[^,]+,\d{3}\d,(\d+\.\d+),[01],\d+,[0-9A-Fa-f]{2}$/;

/** Information frame (0x94) sub-types. */
const INFO_SUBTYPES: Record<number, (m: Msg) => boolean> = {
  0x00: (m) => ((m.rec.attributes[indexed.adc(1)] = m.r.u16() * 0.01), true),
  0x04: (m) => {
    // "ALM1=C5;ALM2=CC;STA1=C0;DYD=01;..." alarm and status registers in hex
    const text = m.r.ascii(m.r.remaining - 6);
    for (const pair of text.split(';')) {
      const [key, value] = pair.split('=');
      const n = parseInt(value ?? '', 16);
      if (Number.isNaN(n)) continue;
      if (/^ALM[123]$/.test(key)) m.rec.attributes[`alarm${key[3]}Status`] = n;
      else if (key === 'STA1') m.rec.attributes.otherStatus = n;
      else if (key === 'DYD') m.rec.attributes.engineStatus = n;
    }
    return true;
  },
  0x05: (m) => {
    if (m.r.remaining >= 13) m.rec.attributes.deviceTime = readDate(m.r, m.tz);
    const flags = m.r.u8();
    m.rec.attributes[Attr.door] = (flags & 0x01) !== 0;
    m.rec.attributes[indexed.io(1)] = (flags & 0x04) !== 0;
    return true;
  },
  0x0a: (m) => {
    m.r.skip(16); // imei, imsi
    m.rec.attributes[Attr.iccid] = m.r.hex(10).replace(/f/g, '');
    return true;
  },
  0x0b: (m) => {
    const len = m.length - 6;
    if (len === 1) m.rec.attributes.networkTechnology = m.r.i8() > 0 ? '4G' : '2G';
    else if (len === 2) m.rec.attributes[Attr.power] = m.r.u16() / 100;
    return true;
  },
  0x0d: (m) => {
    // fuel level sensor line, optionally after a 6-byte time
    if (m.r.peekU8() !== 0x21) m.r.skip(6);
    const p = FUEL.exec(m.r.ascii(m.r.remaining - 6));
    if (!p) return false;
    m.rec.attributes[indexed.temp(1)] = Number(p[1]);
    m.rec.attributes[Attr.fuel] = Number(p[2]);
    return true;
  },
  0x1b: (m) => {
    const first = m.r.peekU8();
    if ((first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a)) {
      m.rec.attributes[Attr.serial] = m.r.ascii(m.r.remaining - 6).trim();
    } else {
      m.r.skip(2); // header, type
      m.rec.attributes[Attr.driverUniqueId] = m.r.hex(4);
    }
    return true;
  },
  0x1e: (m) => {
    m.rec.attributes[indexed.temp(1)] = m.r.i32() / 10;
    m.rec.attributes.humidity = m.r.i32() / 10;
    return true;
  },
};

function decodeInfoLong(m: Msg): Out {
  const handler = INFO_SUBTYPES[m.r.u8()];
  return handler && handler(m) ? { rec: m.rec, reply: null } : { reply: null };
}

/** AZ735 GPS/alarm frame with counted blocks. */
const AZ735_STATUS: Record<number, (rec: DeviceRecord) => void> = {
  0xa0: (rec) => (rec.attributes[Attr.armed] = true),
  0xa1: (rec) => (rec.attributes[Attr.armed] = false),
  0xa2: (rec) => addAlarm(rec, Alarm.lowBattery),
  0xa3: (rec) => addAlarm(rec, Alarm.lowBattery),
  0xa4: (rec) => addAlarm(rec, Alarm.general),
  0xa5: (rec) => addAlarm(rec, Alarm.door),
};

function decodeAz735(m: Msg): Out {
  const { r, rec } = m;
  readGps(m, { hasLength: true, satellites: true, speed: true }); // false: no fix, time only
  if (readLbs(m, m.type, true)) rec.attributes[Attr.rssi] = r.u8();
  r.skip(r.u8()); // additional cell towers
  r.skip(r.u8()); // wifi access points
  const status = r.u8();
  rec.attributes[Attr.status] = status;
  if (m.type === T.wifi5) AZ735_STATUS[status]?.(rec);
  r.skip(r.u8()); // reserved extension
  return { rec, reply: ack(m, true) };
}

/** OBD frame: "PID=hex" pairs keyed by the first two hex digits. */
const OBD_PIDS: Record<number, (rec: DeviceRecord, v: string) => void> = {
  0x28: (rec, v) => setIf(rec, Attr.odometer, parseInt(v, 16) * 0.01),
  0x2b: (rec, v) => setIf(rec, Attr.fuel, parseInt(v, 16) * 0.01),
  0x2d: (rec, v) => setIf(rec, Attr.coolantTemp, parseInt(v, 16) * 0.01),
  0x35: (rec, v) => setIf(rec, Attr.obdSpeed, parseInt(v, 16) * 0.01),
  0x36: (rec, v) => setIf(rec, Attr.rpm, parseInt(v, 16) * 0.01),
  0x47: (rec, v) => setIf(rec, Attr.fuelUsed, parseInt(v, 16) * 0.01),
  0x49: (rec, v) => setIf(rec, Attr.hours, parseInt(v, 16) * 0.01 * 3600000), // hundredths of an hour
  0x4a: (rec, v) => setIf(rec, Attr.vin, v),
};

function decodeObd(m: Msg): Out {
  const { r, rec } = m;
  rec.time = readDate(r, m.tz);
  rec.attributes[Attr.ignition] = r.u8() > 0;
  const text = r.ascii(r.remaining - 18);
  for (const pair of text.split(',')) {
    const [key, value] = pair.split('=');
    if (value === undefined || value === '') continue;
    OBD_PIDS[parseInt(key.substring(0, 2), 16)]?.(rec, value);
  }
  return { rec, reply: null };
}

/** Modules of the modular frame (0x70): id -> reader over exactly that module's bytes. */
const MODULE_EVENTS: Record<number, string> = {
  0x10: Alarm.door,
  0x12: Alarm.removing,
  0x14: Alarm.geofenceEnter,
  0x15: Alarm.geofenceExit,
  0x16: Alarm.temperature,
  0x1a: Alarm.lowBattery,
  0x1b: Alarm.overspeed,
  0x1c: Alarm.powerOn,
  0x1d: Alarm.powerOff,
  0x20: Alarm.vibration,
  0x21: Alarm.powerCut,
  0x23: Alarm.tampering,
};

const MODULES: Record<number, (r: Reader, rec: DeviceRecord) => void> = {
  0x03: (r, rec) => (rec.attributes[Attr.iccid] = r.hex(10)),
  0x09: (r, rec) => (rec.satellites = r.u8()),
  0x0a: (r, rec) => (rec.attributes.satVisible = r.u8()),
  0x11: (r, rec) => {
    const cell = { mcc: r.u16(), mnc: r.u16(), lac: r.u16(), cid: r.u24(), rssi: r.u8() };
    if (cell.cid > 0) rec.cells = [cell];
  },
  0x18: (r, rec) => (rec.attributes[Attr.battery] = r.u16() * 0.01),
  0x28: (r, rec) => (rec.hdop = r.u8() * 0.1),
  0x29: (r, rec) => (rec.attributes[Attr.index] = r.u32()),
  0x2a: (r, rec) => {
    const input = r.u8();
    rec.attributes[Attr.door] = (input & 0x0f) > 0;
    rec.attributes.tamper = input >> 4 > 0;
  },
  0x2b: (r, rec) => (rec.attributes.bootReason = r.u8()),
  0x2e: (r, rec) => (rec.attributes[Attr.odometer] = r.u32le()),
  0x33: (r, rec) => {
    rec.time = r.u32() * 1000;
    rec.satellites = r.u8();
    rec.altitude = r.i16();
    const lat = r.u32() / 1800000;
    const lng = r.u32() / 1800000;
    rec.speed = r.u8();
    applyCourseFlags(rec, r.u16(), lat, lng);
  },
  0x34: (r, rec) => {
    const event = r.u8();
    addAlarm(rec, MODULE_EVENTS[event]);
    rec.attributes[Attr.event] = event;
    r.skip(4); // time
    r.skip(r.u8()); // content
  },
  0x7f: (r, rec) => {
    const a = rec.attributes;
    a.tag1Id = r.hex(6);
    a.tag1Battery = r.u16() / 1000;
    a.tag1BatteryLevel = r.u8();
    a.tag1Temp = r.i16() / 10;
    a.tag1Humidity = r.i16();
    a.tag1Status = r.u8();
  },
};

function decodeModular(m: Msg): Out {
  const { r, rec } = m;
  while (r.remaining > 6) {
    const id = r.u16();
    const len = r.u16();
    const body = new Reader(m.frame, r.pos, r.pos + len);
    r.skip(len);
    MODULES[id]?.(body, rec);
  }
  if (rec.lat === undefined) delete rec.valid;
  return { rec, reply: buildFrame(false, T.modular, r.u16()) };
}

/** Camera frames: we do not collect media, only acknowledge. */
function decodeMultimedia(m: Msg): Out {
  return { reply: ack(m, true) };
}

/** Data from an external serial device: printable text or hex. */
function decodeSerial(m: Msg): Out {
  const { r, rec } = m;
  r.skip(1); // external device type
  const data = r.bytes(r.remaining - 6);
  rec.attributes[Attr.result] = isPrintable(data) ? data.toString('latin1').trim() : data.toString('hex');
  return { rec, reply: null };
}

/** Status words of 0xF1 frames: id -> (name, conversion). Unknown ids are kept as io<id>. */
const STATUS_TLV: Record<number, [string, (v: number) => AttrValue]> = {
  0x05: [Attr.power, (v) => v / 100],
};

function decodeStatusTlv(m: Msg): Out {
  const { r, rec } = m;
  rec.time = r.u32() * 1000;
  while (r.remaining > 6) {
    const id = r.u16();
    const len = r.u8();
    const value = len >= 1 && len <= 6 ? r.uint(len) : (r.skip(len), undefined);
    if (value === undefined) continue;
    const [name, convert] = STATUS_TLV[id] ?? [indexed.io(id), (v: number) => v];
    rec.attributes[name] = convert(value);
  }
  return { rec, reply: ack(m) };
}

/** Peripheral report (VL842): Bluetooth tags and external battery. */
function decodePeripheral(m: Msg): Out {
  const { r, rec } = m;
  const a = rec.attributes;
  rec.time = r.u32() * 1000;
  while (r.remaining > 6) {
    const id = r.u16();
    if (id === 0x0a) {
      const len = r.u16();
      r.skip(1); // mac address type
      a.mac = r.hex(6);
      const event = r.u8();
      a[Attr.event] = event;
      const eventData = r.u8();
      if (event > 0) a.eventData = eventData;
      a.dataType = r.u8();
      a.dataDetails = r.hex(len - 10);
    } else if (id === 0x0c) {
      r.skip(1); // length
      a.externalBatteryLevel = r.u8();
      if (r.u8() > 0) a.externalBatteryCharge = true;
      a.externalBatteryCycles = r.u16();
      r.skip(6);
    } else {
      const len = r.u8();
      r.skip(len === 0 ? r.u8() : len);
    }
  }
  return { rec, reply: ack(m) };
}

function decodeGpsLbs8(m: Msg): Out {
  readGps(m);
  m.r.skip(2); // upload mode, re-upload
  readLbs(m, m.type, false);
  return { rec: m.rec, reply: null };
}

const LONG_HANDLERS: Record<number, (m: Msg) => Out> = {
  [T.stringInfo]: decodeStringInfo,
  [T.info]: decodeInfoLong,
  [T.status2]: () => ({ reply: null }), // photo data: photos are not fetched
  [T.gpsLbsStatus4]: decodeAz735,
  [T.wifi5]: decodeAz735,
  [T.obd]: decodeObd,
  [T.modular]: decodeModular,
  [T.multimedia]: decodeMultimedia,
  [T.serial]: decodeSerial,
  [T.statusTlv]: decodeStatusTlv,
  [T.peripheral]: decodePeripheral,
  [T.gpsLbs8]: decodeGpsLbs8,
};

// ---------------------------------------------------------------------------------------------
// Decode entry
// ---------------------------------------------------------------------------------------------

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 5) throw new DecodeError('gt06: frame too short');
  const head = frame.readUInt16BE(0);
  if (head !== 0x7878 && head !== 0x7979) throw new DecodeError('gt06: bad header');
  const long = head === 0x7979;
  const r = new Reader(frame, 2);
  const length = long ? r.u16() : r.u8();
  const type = r.u8();
  const model = String(ctx.config.modelOverride ?? ctx.config.model ?? '').toUpperCase();
  const m: Msg = {
    r,
    frame,
    type,
    length,
    dataLength: length - 5,
    variant: detectVariant(frame, type),
    model,
    lw: model.startsWith('LW'),
    sw: model === 'SEEWORLD',
    nt: NT_MODELS.has(model),
    vl: VL_MODELS.has(model),
    tz: typeof ctx.session.tz === 'number' ? ctx.session.tz : 0,
    now: ctx.now,
    rec: { attributes: {} },
  };
  if (!long && type === T.login) return decodeLogin(m, ctx.session);
  if (!ctx.deviceId) return {}; // nothing is accepted before the login
  let out: Out;
  if (long) out = LONG_HANDLERS[type]?.(m) ?? { reply: null };
  else out = SHORT_RULES.find(([match]) => match(m))?.[1](m) ?? decodeOther(m);
  const reply = out.reply === undefined ? ack(m) : out.reply ?? undefined;
  const result: DecodeResult = {};
  if (out.rec) result.records = [out.rec];
  if (reply) result.reply = reply;
  if (long ? type === T.stringInfo : type === T.string) result.commandAck = true; // the answer to a 0x80 command
  return result;
}

// ---------------------------------------------------------------------------------------------
// Encoder
// ---------------------------------------------------------------------------------------------

/**
 * Server command frame (0x80): command length, 4-byte server flag, ASCII command, optional language
 * word (config `language`: English = 2), serial 0. The device answers with a 0x15 or 0x21 text frame.
 */
export function encodeContent(text: string, language = false): Buffer {
  const command = Buffer.from(text, 'utf8');
  if (command.length > 240) throw new Error('gt06: command text too long');
  const content = Buffer.alloc(1 + 4 + command.length + (language ? 2 : 0));
  content[0] = 4 + command.length;
  command.copy(content, 5);
  if (language) content.writeUInt16BE(2, 5 + command.length);
  return buildFrame(false, T.command0, 0, content);
}

const COMMANDS: Record<string, (c: Command, alt: boolean, password: string) => string> = {
  engineStop: (_c, alt, pw) => (alt ? `DYD,${pw}#` : 'Relay,1#'),
  engineResume: (_c, alt, pw) => (alt ? `HFYD,${pw}#` : 'Relay,0#'),
  custom: (c) => String(c.attributes.data ?? ''),
  message: (c) => String(c.attributes.message ?? ''),
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`gt06: unsupported command ${command.type}`);
  const alt = ctx.config.alternative === true || ctx.config.alternative === 'true';
  const password = String(ctx.config.password ?? '123456');
  const language = ctx.config.language === true || ctx.config.language === 'true';
  return encodeContent(build(command, alt, password), language);
}

export const protocol: Protocol = {
  name: 'gt06',
  defaultPort: 5023,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: true,
  commandAcks: true,
  encode,
};
