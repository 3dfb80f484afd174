/** GT06 message types, protocol variants, field readers and reply frames, shared by the short and long messages. */
import { Alarm, Attr } from '../attributes.ts';
import { Reader, crc16X25 } from '../binary.ts';
import { DecodeError, type AttrValue, type DeviceRecord } from '../types.ts';

// ---------------------------------------------------------------------------------------------
// Message types and variants
// ---------------------------------------------------------------------------------------------

export const T = {
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

export function detectVariant(frame: Buffer, type: number): Variant {
  if (frame[0] !== 0x78) return 'standard';
  const len = frame[2];
  if (type === T.gpsLbs1 && len >= 0x71) return 'gt06eCard';
  if (type === T.lbsStatus && len >= 0x17) return 'space10x';
  if (type === T.alarm && frame.length >= 6 && frame.readUInt16BE(4) === 0xffff) return 'jc400';
  return VARIANTS.find(([t, l]) => t === type && l === len)?.[2] ?? 'standard';
}

/** Models whose GPS+LBS frames carry their own status block, odometer and engine hours. */
export const NT_MODELS = new Set(['NT11', 'NT20', 'NT26', 'NT40', 'NT46', 'VL100', 'XT40']);
export const VL_MODELS = new Set(['VL103', 'LL303', 'VL512', 'G18']);

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
export const LBS_LIST_TYPES = new Set<number>([
  T.lbsMultiple1, T.lbsMultiple2, T.lbsMultiple3, T.lbsExtend, T.lbsWifi, T.lbs2, T.x1Gps, T.wifi3, T.wifi5,
]);
export const LBS_LIST_NO_WIFI = new Set<number>([T.lbsMultiple1, T.lbsMultiple2, T.lbsMultiple3, T.lbs2, T.x1Gps]);

/** One decoding job: the frame, its reader and everything the layouts depend on. */
export interface Msg {
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
export interface Out {
  rec?: DeviceRecord;
  reply?: Buffer | null;
}

export const hasGps = (m: Msg, t: number) => GPS_TYPES.has(t) || (t === T.fenceSingle && m.variant !== 'seeworld');
export const hasLbs = (m: Msg, t: number) => LBS_TYPES.has(t) || (t === T.fenceSingle && m.variant !== 'seeworld');
export const ntFrame = (m: Msg) => m.nt && (m.type === T.gpsLbs2 || m.type === T.gpsLbsDriver);
export function hasStatus(m: Msg, t: number): boolean {
  if (STATUS_TYPES.has(t)) return true;
  if (t === T.gpsLbs2 || t === T.gpsLbsDriver) return m.nt;
  return t === T.fenceSingle && m.variant === 'seeworld';
}

// ---------------------------------------------------------------------------------------------
// Field helpers
// ---------------------------------------------------------------------------------------------

export function addAlarm(rec: DeviceRecord, alarm: string | undefined): void {
  if (!alarm) return;
  const prev = rec.attributes[Attr.alarm];
  rec.attributes[Attr.alarm] = prev ? `${prev},${alarm}` : alarm;
}

export function setIf(rec: DeviceRecord, key: string, value: AttrValue | undefined): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isNaN(value))) rec.attributes[key] = value;
}

/** yy mm dd hh mm ss in the device zone -> ms UTC. */
export function readDate(r: Reader, tz: number): number {
  const [y, mo, d, h, mi, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  return Date.UTC(y < 100 ? 2000 + y : y, mo - 1, d, h, mi, s) - tz;
}

/** Same as readDate with BCD digits (Wi-Fi scans). */
export function readBcdDate(r: Reader): number {
  const v = r.bytes(6);
  const n = (i: number) => (v[i] >> 4) * 10 + (v[i] & 0x0f);
  return Date.UTC(2000 + n(0), n(1) - 1, n(2), n(3), n(4), n(5));
}

/** Course/status word shared by every fix layout: course bits 0-9, north bit 10, west bit 11, valid bit 12, ACC bits 14-15. */
export function applyCourseFlags(rec: DeviceRecord, flags: number, lat: number, lng: number): void {
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
export function readGps(m: Msg, layout: GpsLayout = { satellites: true, speed: true }): boolean {
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
export function readLbs(m: Msg, type: number, hasLength: boolean): boolean {
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

export function readStatusByte(m: Msg): void {
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
export function statusAlarm(m: Msg, v: number): string | undefined {
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
export const EVENT_ALARMS: Record<number, string> = {
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
export function setBatteryGrade(rec: DeviceRecord, v: number): void {
  if (v <= 6) rec.attributes[Attr.batteryLevel] = Math.trunc((v * 100) / 6);
  else if (v <= 100) rec.attributes[Attr.batteryLevel] = v;
}

export const isPrintable = (b: Buffer) => b.every((c) => (c >= 0x20 && c < 0x7f) || c === 0x0d || c === 0x0a || c === 0x09);

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

export const ack = (m: Msg, long = false) => buildFrame(long, m.type, frameSerial(m.frame));
