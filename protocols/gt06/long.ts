/** GT06 long (0x7979) messages: one decoder per message type. */
import { Alarm, Attr, indexed } from '../attributes.ts';
import { Reader } from '../binary.ts';
import type { AttrValue, DeviceRecord } from '../types.ts';
import { T, type Msg, type Out, addAlarm, setIf, readDate, applyCourseFlags, readGps, readLbs, isPrintable, buildFrame, ack } from './messages.ts';

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

export const LONG_HANDLERS: Record<number, (m: Msg) => Out> = {
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
