/** JT808 other reports: the JT701-style 0x5501/0x5502 report and 0x0900 transparent data (vendor F0, sensor and OBD payloads). */
import { Alarm, Attr, indexed } from '../attributes.ts';
import { Reader } from '../binary.ts';
import type { AttrValue, DecodeContext, DeviceRecord } from '../types.ts';
import { MSG, bit, bcd, trimJava, newRecord, set, addAlarm, readDate, type Header } from './message.ts';
import { decodeCoordinates, decodeObdRt, decodeLock, type LocationContext } from './location.ts';

// ---------------------------------------------------------------------------------------------
// 0x5501 / 0x5502: JT701-style report (BCD date and ddmm coordinates)

function bcdDigits(r: Reader, digits: number): number {
  let v = 0;
  for (let i = 0; i < digits >> 1; i++) {
    const b = r.u8();
    v = v * 100 + (b >> 4) * 10 + (b & 0x0f);
  }
  if (digits % 2) v = v * 10 + (r.peekU8() >> 4); // half byte: the rest of it holds flags
  return v;
}
const ddmm = (raw: number) => Math.floor(raw / 1e6) + (raw % 1e6) / 1e4 / 60;

export function decodeLocation2(h: Header, ctx: DecodeContext): DeviceRecord {
  const { r } = h;
  const rec = newRecord();
  const [d, mo, y, hh, mi, s] = [...r.bytes(6)].map(bcd);
  rec.time = Date.UTC(2000 + y, mo - 1, d, hh, mi, s);
  const lat = ddmm(bcdDigits(r, 8));
  const lng = ddmm(bcdDigits(r, 9));
  const flags = r.u8();
  rec.lat = flags & 0x02 ? lat : -lat;
  rec.lng = flags & 0x04 ? lng : -lng;
  rec.speed = bcd(r.u8()) * 1.852; // knots
  rec.course = r.u8() * 2;
  rec.valid = h.type !== MSG.location2Blind;
  set(rec, Attr.rssi, r.u8());
  rec.satellites = r.u8();
  set(rec, 'sat', rec.satellites);
  set(rec, Attr.odometer, r.u32() * 1000);
  const battery = r.u8();
  if (battery <= 100) set(rec, Attr.batteryLevel, battery);
  else if (battery === 0xaa || battery === 0xab) set(rec, Attr.charge, true);
  const cid = r.u32();
  const lac = r.u16();
  const product = r.u8();
  const status = r.u16();
  const alarm = r.u16();
  if (product === 1 || product === 2) {
    if (bit(alarm, 0)) addAlarm(rec, Alarm.lowPower);
  } else if (product === 3) {
    set(rec, Attr.blocked, bit(status, 5));
    const bits = [Alarm.overspeed, Alarm.lowPower, Alarm.vibration, Alarm.lowBattery, '', Alarm.geofenceEnter, Alarm.geofenceExit];
    bits.forEach((a, b) => a && bit(alarm, b) && addAlarm(rec, a));
  }
  set(rec, Attr.status, status);
  let mcc = Number(ctx.config.mcc ?? 0);
  let mnc = Number(ctx.config.mnc ?? 0);
  while (r.remaining >= 2) {
    const id = r.u8();
    const len = r.u8();
    const end = r.pos + len;
    if (id === 0x02) rec.altitude = r.i16();
    else if (id === 0x10) set(rec, 'wakeSource', r.u8());
    else if (id === 0x0a && len === 3) [mcc, mnc] = [r.u16(), r.u8()];
    else if (id === 0x0b) decodeLock(r, rec, len);
    else if (id === 0x0c) {
      const [x, yy, z] = [r.u16(), r.u16(), r.u16()].map((v) => (v > 0x8000 ? v - 0x10000 : v));
      set(rec, 'tilt', `[${x},${yy},${z}]`);
    } else if (id === 0xfc) set(rec, 'geofence', r.u8());
    r.pos = Math.min(end, r.end);
  }
  if (cid > 0 && lac > 0) rec.cells = [{ mcc, mnc, lac, cid }];
  return rec;
}

// ---------------------------------------------------------------------------------------------
// 0x0900 transparent data (vendor payloads)

/** 0xF0 / 0x01 vehicle data items: id -> name and value. Unknown ids of 1, 2 or 4 bytes become io<id>. */
const F0_ITEMS: Record<number, [string, (r: Reader, len: number) => AttrValue]> = {
  0x0102: [Attr.odometer, (r) => r.u32() * 100],
  0x0528: [Attr.odometer, (r) => r.u32() * 100],
  0x0546: [Attr.odometer, (r) => r.u32() * 100],
  0x0103: [Attr.fuel, (r) => r.u32() / 100],
  0x0111: ['fuelTemp', (r) => r.u8() - 40],
  0x012e: ['oilLevel', (r) => r.u16() / 10],
  0x052a: [Attr.fuel, (r) => r.u16() / 100],
  0x0105: [Attr.fuelUsed, (r) => r.u32() / 100],
  0x052c: [Attr.fuelUsed, (r) => r.u32() / 100],
  0x014a: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x0537: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x0538: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x0539: [Attr.fuelConsumption, (r) => r.u16() / 100],
  0x052b: [Attr.fuel, (r) => r.u8()],
  0x052d: [Attr.coolantTemp, (r) => r.u8() - 40],
  0x052e: ['airTemp', (r) => r.u8() - 40],
  0x0530: [Attr.power, (r) => r.u16() / 1000],
  0x0535: ['obdSpeed', (r) => r.u16() / 10],
  0x0536: [Attr.rpm, (r) => r.u16()],
  0x053d: ['intakePressure', (r) => r.u16() / 10],
  0x0544: ['liquidLevel', (r) => r.u8()],
  0x0547: [Attr.throttle, (r) => r.u8()],
  0x0548: [Attr.throttle, (r) => r.u8()],
  0xfeec: [Attr.vin, (r, len) => r.ascii(len)],
};

/** 0xF0 / 0x03 event ids. */
const F0_ALARMS: Record<number, string> = {
  0x01: Alarm.powerRestored, 0x02: Alarm.powerCut, 0x0e: Alarm.idle,
  0x1a: Alarm.hardAcceleration, 0x1b: Alarm.hardBraking, 0x1c: Alarm.hardCornering,
  0x1d: Alarm.laneChange, 0x1e: Alarm.laneChange, 0x1f: Alarm.laneChange,
  0x23: Alarm.fatigueDriving, 0x25: Alarm.overspeed,
  0x26: Alarm.accident, 0x27: Alarm.accident, 0x28: Alarm.accident,
  0x31: Alarm.door, 0x32: Alarm.door,
};

const F0_EVENTS: Record<number, string> = {
  51: Alarm.hardAcceleration, 52: Alarm.hardBraking, 53: Alarm.hardCornering, 54: Alarm.laneChange, 56: Alarm.accident,
};

function decodeF0(r: Reader, lc: LocationContext): DeviceRecord | undefined {
  const time = readDate(r, lc.offset);
  const rec = newRecord(time);
  if (r.u8() > 0) set(rec, Attr.archive, true);
  r.skip(1); // vehicle type
  const subtype = r.u8();
  if (subtype === 0x01) {
    for (let count = r.u8(); count > 0; count--) {
      const id = r.u16();
      const len = r.u8();
      const end = r.pos + len;
      const item = F0_ITEMS[id];
      if (item) set(rec, item[0], item[1](r, len));
      else if (len === 1 || len === 2 || len === 4) set(rec, indexed.io(id), r.uint(len));
      r.pos = end;
    }
  } else if (subtype === 0x02) {
    const codes: string[] = [];
    for (let count = r.u16(); count > 0; count--) {
      for (let n = r.skip(4).u16(); n > 0; n--) codes.push(trimJava(r.skip(8).ascii(r.u16())));
    }
    set(rec, Attr.dtcs, codes.join(' '));
  } else if (subtype === 0x03) {
    for (let count = r.u8(); count > 0; count--) {
      const alarm = F0_ALARMS[r.u8()];
      if (alarm) addAlarm(rec, alarm);
      r.skip(r.u8());
    }
  } else if (subtype === 0x04) {
    const property = r.u8();
    set(rec, 'tripNumber', r.u32());
    r.skip(6); // start time
    if (property === 0x02) {
      r.skip(6 + 8 + 8 + 1); // end time, start and end location, flags
      set(rec, 'idlingCount', r.u16());
      set(rec, 'idlingTime', r.u16());
      set(rec, 'tripOdometer', r.u16() * 100);
      set(rec, 'tripFuel', r.u16() / 100);
    }
    return rec;
  } else if (subtype === 0x0b) {
    if (r.u8() > 0) set(rec, Attr.vin, r.ascii(17));
    return rec;
  } else if (subtype === 0x15) {
    const event = r.i32();
    if (F0_EVENTS[event]) addAlarm(rec, F0_EVENTS[event]);
    else set(rec, Attr.event, event);
    return rec;
  } else {
    return undefined;
  }
  decodeCoordinates(r, rec, lc.model);
  return rec;
}

/** 0x53 BLE tag list / 0x54 sensor samples, after a basic location block. */
function decodeSensorReport(r: Reader, type: number, lc: LocationContext): DeviceRecord {
  const rec = newRecord();
  decodeCoordinates(r, rec, lc.model);
  rec.altitude = r.i16();
  rec.speed = r.u16() / 10;
  rec.course = r.u16();
  rec.time = readDate(r, lc.offset);
  if (type === 0x53) {
    r.skip(1); // total node count
    while (r.remaining > 0) {
      const i = r.u8() + 1;
      set(rec, `tag${i}Mac`, r.hex(6));
      set(rec, `tag${i}Rssi`, r.i8());
      set(rec, `tag${i}Data`, r.hex(r.u8()));
    }
    return rec;
  }
  while (r.remaining > 0) {
    const mask = r.u16();
    r.skip(6); // sample time
    if (bit(mask, 0)) set(rec, 'lightSensor', r.u16());
    if (bit(mask, 1)) {
      set(rec, Attr.deviceTemp, r.i16() / 10);
      set(rec, 'humidity', r.i16() / 10);
    }
    if (bit(mask, 2)) set(rec, indexed.temp(3), r.i16() / 10);
    if (bit(mask, 3)) r.skip(6); // acceleration
    if (bit(mask, 4)) set(rec, 'airPressure', r.u16());
  }
  return rec;
}

export function decodeTransparent(r: Reader, lc: LocationContext, now: number): DeviceRecord | undefined {
  const type = r.u8();
  if (type === 0x40) {
    const rec = newRecord(now);
    const text = trimJava(r.ascii(r.remaining));
    if (text.startsWith('GTSL')) {
      const id = text.split('|')[4];
      if (id !== undefined) set(rec, Attr.driverUniqueId, id);
    } else if (text) set(rec, 'data', text);
    return Object.keys(rec.attributes).length ? rec : undefined;
  }
  if (type === 0x41) {
    const rec = newRecord(now);
    decodeObdRt(rec, trimJava(r.ascii(r.remaining)));
    return rec;
  }
  if (type === 0xf0) return decodeF0(r, lc);
  if (type === 0xff) {
    const rec = newRecord();
    rec.valid = true;
    rec.time = readDate(r, lc.offset);
    rec.lat = r.i32() / 1e6;
    rec.lng = r.i32() / 1e6;
    rec.altitude = r.i16();
    rec.speed = r.u16() / 10;
    rec.course = r.u16();
    return rec;
  }
  if (type === 0xf3) {
    const rec = newRecord(now);
    while (r.remaining > 2) {
      const subtype = r.u16();
      const end = r.pos + r.u16();
      if (subtype === 0x0002) set(rec, 'collision', r.u16() / 256 / 100);
      else if (subtype === 0x0006) rec.time = readDate(r, lc.offset);
      r.pos = Math.min(end, r.end);
    }
    return rec;
  }
  if (type === 0x53 || type === 0x54) return decodeSensorReport(r, type, lc);
  return undefined;
}
