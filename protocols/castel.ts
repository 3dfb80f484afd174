/**
 * Castel (Sinocastel) OBD trackers: IDD-213, CC-830, MPIP and PT-690 families.
 *
 * Every packet, both directions, little-endian except the type:
 *   `@@ | u16 length | u8 version | device id (20 bytes ASCII, NUL-padded) | u16 type (BE) | data | u16 CRC | \r\n`
 * The length counts the whole packet; the CRC is CRC-16/X-25 over everything before it. Older CC
 * devices start with `$$` and carry no version byte.
 *
 * Versions 3 and 4 speak the "SC" (OBD smart) message set: login 0x1001, logout 0x1002, heartbeat
 * 0x1003, GPS 0x4001, OBD data 0x4002, supported PIDs 0x4004, snapshot 0x4005, DTCs 0x4006/0x400B,
 * alarms 0x4007, cell 0x4008, GPS while asleep 0x4009, comprehensive 0x401F, query reply 0xA002.
 * Most carry STAT_DATA first (34 bytes: last ignition-on time, UTC time, total and trip mileage in m,
 * total fuel in 0.01 l, trip fuel, vehicle state, 8 reserved). A GPS item is 19 bytes: day, month,
 * year, hour, minute, second, latitude and longitude (u32, 1/3 600 000 degree), speed (cm/s), course
 * (0.1 degree), flags (bit 0 east, bit 1 north, bits 2-3 fix, bits 4-7 satellites).
 * Other versions (5, 12) and `$$` packets speak the older "CC" set: login 0x4001, heartbeat 0x4206.
 */
import { Alarm, Attr } from './attributes.ts';
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

const AT = 0x40;
const DOLLAR = 0x24;
const MAX_FRAME = 4096;
const ID_LENGTH = 20;
/** `@@`, length, version, id, type, CRC, CR LF. */
const MIN_AT = 2 + 2 + 1 + ID_LENGTH + 2 + 2 + 2;
const MIN_DOLLAR = MIN_AT - 1;
/** GPS items in one message: the devices buffer at most a few dozen. */
const MAX_FIXES = 64;

const SC = {
  login: 0x1001,
  logout: 0x1002,
  heartbeat: 0x1003,
  gps: 0x4001,
  pidData: 0x4002,
  supportedPids: 0x4004,
  snapshot: 0x4005,
  dtcs: 0x4006,
  alarm: 0x4007,
  cell: 0x4008,
  gpsSleep: 0x4009,
  dtcsCommercial: 0x400b,
  comprehensive: 0x401f,
  queryReply: 0xa002,
  loginReply: 0x9001,
  heartbeatReply: 0x9003,
  alarmReply: 0xc007,
} as const;

const CC = {
  login: 0x4001,
  heartbeat: 0x4206,
  loginReply: 0x8001,
  heartbeatReply: 0x8206,
  petrolControl: 0x4583,
} as const;

type Attrs = Record<string, AttrValue>;

interface Header {
  dollar: boolean;
  version: number;
  id: string;
  rawId: Buffer;
  type: number;
}

// ---- framing ----------------------------------------------------------------------------------

/** `@@`/`$$` + u16le total length; anything else before a start marker is skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start + 1 < buffer.length && !(buffer[start] === buffer[start + 1] && (buffer[start] === AT || buffer[start] === DOLLAR))) start++;
      if (buffer.length - start < 4) {
        if (start > MAX_FRAME) throw new FrameError('castel: no frame start');
        return null;
      }
      const length = buffer.readUInt16LE(start + 2);
      const min = buffer[start] === AT ? MIN_AT : MIN_DOLLAR;
      if (length < min || length > MAX_FRAME) throw new FrameError(`castel: bad length ${length}`);
      if (buffer.length - start < length) return null;
      return { frame: buffer.subarray(start, start + length), consumed: start + length };
    },
  };
}

// ---- shared pieces ----------------------------------------------------------------------------

/** Build a packet: the reply keeps the device's start marker, version and id. */
function packet(h: Pick<Header, 'dollar' | 'version' | 'rawId'>, type: number, content: Buffer = Buffer.alloc(0)): Buffer {
  const head = h.dollar ? 4 + ID_LENGTH : 5 + ID_LENGTH;
  const out = Buffer.alloc(head + 2 + content.length + 4);
  out[0] = out[1] = h.dollar ? DOLLAR : AT;
  out.writeUInt16LE(out.length, 2);
  if (!h.dollar) out[4] = h.version;
  h.rawId.copy(out, head - ID_LENGTH);
  out.writeUInt16BE(type, head);
  content.copy(out, head + 2);
  out.writeUInt16LE(crc16X25(out, 0, out.length - 4), out.length - 4);
  out[out.length - 2] = 0x0d;
  out[out.length - 1] = 0x0a;
  return out;
}

/** One 19-byte GPS item. */
function readFix(r: Reader, attributes: Attrs = {}): DeviceRecord {
  const [day, month, year, hour, minute, second] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  let lat = r.u32le() / 3600000;
  let lng = r.u32le() / 3600000;
  const speed = r.u16le() * 0.036; // cm/s -> km/h
  const course = r.u16le() / 10;
  const flags = r.u8();
  if (!(flags & 0x02)) lat = -lat;
  if (!(flags & 0x01)) lng = -lng;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('castel: coordinates out of range');
  return {
    time: Date.UTC(2000 + year, month - 1, day, hour, minute, second),
    valid: (flags & 0x0c) !== 0,
    lat,
    lng,
    speed,
    course: course > 360 ? course % 360 : course,
    satellites: flags >> 4,
    attributes: { ...attributes },
  };
}

/** `u8 count` GPS items. */
function readFixes(r: Reader, attributes: Attrs): DeviceRecord[] {
  const count = r.u8();
  if (count > MAX_FIXES) throw new DecodeError(`castel: ${count} GPS items`);
  const fixes: DeviceRecord[] = [];
  for (let i = 0; i < count; i++) fixes.push(readFix(r, attributes));
  return fixes;
}

/** STAT_DATA: the counters every SC message carries. Returns the UTC time and the attributes. */
function readStat(r: Reader): { time: number; attributes: Attrs } {
  r.skip(4); // last ignition-on time
  const time = r.u32le() * 1000;
  const attributes: Attrs = {
    [Attr.odometer]: r.u32le(),
    tripOdometer: r.u32le(),
    [Attr.fuelUsed]: r.u32le() / 100,
    tripFuelUsed: r.u16le() / 100,
    [Attr.status]: r.u32le(),
  };
  r.skip(8);
  return { time, attributes };
}

// ---- OBD ----------------------------------------------------------------------------------------

/** Value sizes of the SAE J1979 mode 01 PIDs (bytes). The devices send the values already scaled. */
const PID_SIZE: Record<number, number> = {
  0x00: 4, 0x01: 4, 0x02: 2, 0x03: 2, 0x04: 1, 0x05: 1, 0x06: 1, 0x07: 1, 0x08: 1, 0x09: 1, 0x0a: 1, 0x0b: 1,
  0x0c: 2, 0x0d: 1, 0x0e: 1, 0x0f: 1, 0x10: 2, 0x11: 1, 0x12: 1, 0x13: 1, 0x1c: 1, 0x1d: 1, 0x1e: 1, 0x1f: 2,
  0x20: 4, 0x21: 2, 0x22: 2, 0x23: 2, 0x2c: 1, 0x2d: 1, 0x2e: 1, 0x2f: 1, 0x30: 1, 0x31: 2, 0x32: 2, 0x33: 1,
  0x3c: 2, 0x3d: 2, 0x3e: 2, 0x3f: 2, 0x40: 4, 0x41: 4, 0x42: 2, 0x43: 2, 0x44: 2, 0x45: 1, 0x46: 1, 0x47: 1,
  0x48: 1, 0x49: 1, 0x4a: 1, 0x4b: 1, 0x4c: 1, 0x4d: 2, 0x4e: 2, 0x4f: 4, 0x50: 4, 0x51: 1, 0x52: 1, 0x53: 2,
  0x54: 2, 0x59: 2, 0x5a: 1, 0x5b: 1, 0x5c: 1, 0x5d: 2, 0x5e: 2, 0x5f: 1, 0x61: 1, 0x62: 1, 0x63: 2, 0x64: 5,
  0x65: 2, 0x66: 5, 0x67: 3, 0x68: 7,
};
for (let p = 0x14; p <= 0x1b; p++) PID_SIZE[p] = 2;
for (let p = 0x24; p <= 0x2b; p++) PID_SIZE[p] = 4;
for (let p = 0x34; p <= 0x3b; p++) PID_SIZE[p] = 4;
for (let p = 0x55; p <= 0x58; p++) PID_SIZE[p] = 2;

/** PIDs with a vocabulary name; the others are kept as `pid<hex>`. */
const PID_NAME: Record<number, string> = {
  0x04: Attr.engineLoad,
  0x05: Attr.coolantTemp,
  0x0c: Attr.rpm,
  0x0d: Attr.obdSpeed,
  0x0f: 'intakeTemp',
  0x11: Attr.throttle,
  0x21: 'milDistance',
  0x2f: Attr.fuelLevel,
  0x31: 'clearedDistance',
  0x46: 'ambientTemp',
};

const pidName = (pid: number) => PID_NAME[pid] ?? `pid${pid.toString(16).padStart(2, '0')}`;

/**
 * `u8 count | count × u16 PID | u8 groups | u8 group size | groups × values`; the values of one group
 * follow the PID list. Only the newest group is kept; an unknown PID size ends the group's decoding.
 */
function readObd(r: Reader, a: Attrs): void {
  const count = r.u8();
  const pids: number[] = [];
  for (let i = 0; i < count; i++) pids.push(r.u16le() & 0xff);
  const groups = r.u8();
  const size = r.u8();
  for (let g = 0; g < groups; g++) {
    const group = new Reader(r.bytes(size));
    for (const pid of pids) {
      const n = PID_SIZE[pid];
      if (!n || group.remaining < n) break;
      a[pidName(pid)] = n <= 4 ? group.uintle(n) : group.hex(n);
    }
  }
}

/** DTC as the OBD standard writes it: two bits for the system letter, then four digits. */
function dtc(code: number): string {
  return 'PCBU'[code >> 14] + ((code >> 12) & 0x3).toString() + (code & 0xfff).toString(16).toUpperCase().padStart(3, '0');
}

function readDtcs(r: Reader, a: Attrs, itemSize: number): void {
  r.skip(1); // 0 = codes present, 1 = codes cleared
  const count = r.u8();
  const codes: string[] = [];
  for (let i = 0; i < count; i++) {
    codes.push(dtc(r.u16le()));
    r.skip(itemSize - 2);
  }
  if (codes.length) a[Attr.dtcs] = codes.join(' ');
}

// ---- alarms -------------------------------------------------------------------------------------

/** ALARM_DATA types: the ones with a shared name; ignition on/off become the `ignition` state. */
const ALARMS: Record<number, string> = {
  0x01: Alarm.overspeed,
  0x02: Alarm.lowPower,
  0x03: Alarm.temperature,
  0x04: Alarm.hardAcceleration,
  0x05: Alarm.hardBraking,
  0x06: Alarm.idle,
  0x07: Alarm.tow,
  0x08: Alarm.highRpm,
  0x09: Alarm.powerOn,
  0x0b: Alarm.laneChange,
  0x0c: Alarm.hardCornering,
  0x0d: Alarm.fatigueDriving,
  0x0e: Alarm.powerOff,
  0x0f: Alarm.geofence,
  0x10: Alarm.sos,
  0x11: Alarm.accident,
  0x12: Alarm.tampering,
  0x1c: Alarm.vibration,
};

/** `u8 count | count × (u8 new, u8 type, u16 description, u16 threshold)`. */
function readAlarms(r: Reader, a: Attrs): void {
  const count = r.u8();
  const alarms: string[] = [];
  for (let i = 0; i < count; i++) {
    r.skip(1);
    const type = r.u8();
    r.skip(4);
    if (type === 0x16) a[Attr.ignition] = true;
    else if (type === 0x17) a[Attr.ignition] = false;
    else if (ALARMS[type]) alarms.push(ALARMS[type]);
  }
  if (alarms.length) a[Attr.alarm] = alarms.join(',');
}

// ---- SC messages --------------------------------------------------------------------------------

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A status record: the STAT_DATA time and attributes, no position. */
const status = (time: number, attributes: Attrs): DeviceRecord[] => [{ time, attributes }];

function decodeSc(h: Header, r: Reader, ctx: DecodeContext): DecodeResult {
  const base = { deviceId: h.id };
  switch (h.type) {
    case SC.login: {
      const { attributes } = readStat(r);
      const records = readFixes(r, attributes);
      // The login is answered with the server address to use (all ones: keep this one) and the time.
      const reply = Buffer.alloc(10);
      reply.writeUInt32LE(0xffffffff, 0);
      reply.writeUInt16LE(0, 4);
      reply.writeUInt32LE(seconds(ctx.now), 6);
      return { ...base, records, reply: packet(h, SC.loginReply, reply) };
    }
    case SC.logout:
      return { ...base, records: readFixes(r, readStat(r).attributes) };
    case SC.heartbeat:
      return { ...base, reply: packet(h, SC.heartbeatReply) };
    case SC.gps: {
      r.skip(1); // 0 real time, 1 history
      const records = readFixes(r, readStat(r).attributes);
      // RPM samples taken along the fixes: the newest one goes with the last fix.
      if (r.remaining >= 3 && records.length) {
        const n = r.u8();
        let rpm: number | undefined;
        for (let i = 0; i < n && r.remaining >= 2; i++) rpm = r.u16le();
        if (rpm !== undefined) records[records.length - 1].attributes[Attr.rpm] = rpm;
      }
      return { ...base, records };
    }
    case SC.alarm: {
      const sequence = r.u32le();
      const { attributes } = readStat(r);
      const records = readFixes(r, attributes);
      // The alarms belong to the message: they go with its newest (last) fix.
      if (records.length) readAlarms(r, records[records.length - 1].attributes);
      const ack = Buffer.alloc(4);
      ack.writeUInt32LE(sequence);
      return { ...base, records, reply: packet(h, SC.alarmReply, ack) };
    }
    case SC.pidData: {
      const { time, attributes } = readStat(r);
      r.skip(2); // sampling interval, s
      readObd(r, attributes);
      return { ...base, records: status(time, attributes) };
    }
    case SC.supportedPids:
      return base; // the supported-PID list is configuration, not a reading
    case SC.snapshot: {
      // Freeze-frame values follow in a model-specific layout: the counters are what is kept.
      const { time, attributes } = readStat(r);
      return { ...base, records: status(time, attributes) };
    }
    case SC.dtcs:
    case SC.dtcsCommercial: {
      const { time, attributes } = readStat(r);
      readDtcs(r, attributes, h.type === SC.dtcs ? 2 : 4);
      return { ...base, records: status(time, attributes) };
    }
    case SC.cell: {
      const { time, attributes } = readStat(r);
      const cell: Cell = { mcc: Number(ctx.config.mcc ?? 0), mnc: Number(ctx.config.mnc ?? 0), lac: r.u16le(), cid: r.u16le() };
      return { ...base, records: [{ time, cells: [cell], attributes }] };
    }
    case SC.gpsSleep: {
      r.skip(4); // UTC time of the report; the GPS item has its own
      return { ...base, records: [readFix(r)] };
    }
    case SC.comprehensive:
      return { ...base, records: decodeComprehensive(r) };
    case SC.queryReply:
      return { ...base, records: decodeQueryReply(r) };
    default:
      return base;
  }
}

/**
 * 0x401F: `u8 flag | u32 sequence | STAT_DATA | GPS items | TLVs (u16 tag, u16 length, value)`.
 * Tag 0x0021 is the internal battery in 0.01 V.
 */
function decodeComprehensive(r: Reader): DeviceRecord[] {
  r.skip(5);
  const stat = readStat(r);
  const fixes = readFixes(r, stat.attributes);
  const record = fixes[fixes.length - 1] ?? { time: stat.time, attributes: stat.attributes };
  while (r.remaining >= 4) {
    const tag = r.u16le();
    const length = r.u16le();
    const value = r.bytes(Math.min(length, r.remaining));
    if (tag === 0x21 && value.length === 2) record.attributes[Attr.battery] = value.readUInt16LE() / 100;
    else if (value.length >= 1 && value.length <= 4) record.attributes[`tlv${tag.toString(16)}`] = value.readUIntLE(0, value.length);
  }
  return fixes.length ? fixes : [record];
}

/** 0xA002 answers a query: 6 header bytes, then TLVs; tag 0x2001 is the VIN. */
function decodeQueryReply(r: Reader): DeviceRecord[] {
  r.skip(6);
  const a: Attrs = {};
  while (r.remaining >= 4) {
    const tag = r.u16le();
    const value = r.ascii(Math.min(r.u16le(), r.remaining));
    if (tag === 0x2001) a[Attr.vin] = value.replace(/\0+$/, '');
  }
  if (a[Attr.vin] === undefined) return [];
  a[Attr.result] = a[Attr.vin];
  return [{ attributes: a }];
}

// ---- CC messages --------------------------------------------------------------------------------

/** CC status word: bit 0 is ignition. */
const ccStatus = (value: number): Attrs => ({ [Attr.status]: value, [Attr.ignition]: (value & 1) === 1 });

function decodeCc(h: Header, r: Reader): DecodeResult {
  const base = { deviceId: h.id };
  if (h.type === CC.heartbeat) {
    r.skip(1); // history flag
    const count = r.u8();
    if (count > MAX_FIXES) throw new DecodeError(`castel: ${count} GPS items`);
    const records: DeviceRecord[] = [];
    for (let i = 0; i < count; i++) {
      const f = readFix(r);
      Object.assign(f.attributes, ccStatus(r.u32le()));
      r.skip(Math.min(11, r.remaining));
      records.push(f);
    }
    return { ...base, records, reply: packet(h, CC.heartbeatReply) };
  }
  if (h.type === CC.login) {
    const f = readFix(r);
    Object.assign(f.attributes, ccStatus(r.u32le()));
    return { ...base, records: [f], reply: packet(h, CC.loginReply) };
  }
  if (h.dollar && h.type === 0x2001) {
    // `$$` report: u32 counter, u32 UTC time, u8, then one GPS item and the status word.
    r.skip(9);
    const f = readFix(r);
    if (r.remaining >= 4) Object.assign(f.attributes, ccStatus(r.u32le()));
    return { ...base, records: [f] };
  }
  return base;
}

// ---- entry ----------------------------------------------------------------------------------------

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const dollar = frame[0] === DOLLAR;
  if (frame.length < MIN_DOLLAR || frame[1] !== frame[0] || (!dollar && frame[0] !== AT)) throw new DecodeError('castel: no start marker');
  const length = frame.readUInt16LE(2);
  if (length < (dollar ? MIN_DOLLAR : MIN_AT) || length > frame.length) throw new DecodeError('castel: bad length');
  if (crc16X25(frame, 0, length - 4) !== frame.readUInt16LE(length - 4)) throw new DecodeError('castel: bad CRC');
  const r = new Reader(frame, 4, length - 4);
  const version = dollar ? 0 : r.u8();
  const rawId = r.bytes(ID_LENGTH);
  const id = rawId.toString('latin1').replace(/\0[\s\S]*$/, '').trim();
  if (!id) throw new DecodeError('castel: empty device id');
  const h: Header = { dollar, version, id, rawId: Buffer.from(rawId), type: r.u16() };
  return !dollar && (version === 3 || version === 4) ? decodeSc(h, r, ctx) : decodeCc(h, r);
}

// ---- commands ---------------------------------------------------------------------------------------

/** Fuel/power cut relay (CC petrol control): 1 cuts, 0 restores. Sent as protocol version 1. */
function encode(command: Command, ctx: EncodeContext): Buffer {
  const rawId = Buffer.alloc(ID_LENGTH);
  rawId.write(ctx.deviceId.slice(0, ID_LENGTH), 'latin1');
  const h = { dollar: false, version: 1, rawId };
  switch (command.type) {
    case 'engineStop':
      return packet(h, CC.petrolControl, Buffer.from([1]));
    case 'engineResume':
      return packet(h, CC.petrolControl, Buffer.from([0]));
    default:
      throw new Error(`castel: unsupported command ${command.type}`);
  }
}

export const protocol: Protocol = {
  name: 'castel',
  defaultPort: 5086,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['engineStop', 'engineResume'],
  carriesText: false,
  encode,
};
