/** JT808 location report (0x0200) and batch (0x0704), with the table of additional information items. */
import { Alarm, Attr, indexed } from '../attributes.ts';
import { Reader } from '../binary.ts';
import { DecodeError, type AttrValue, type Cell, type DeviceRecord } from '../types.ts';
import { MSG, PADLOCK_MODELS, AOVX_MODELS, JC_MODELS, MV_MODELS, bit, trimJava, stripNul, newRecord, set, addAlarm, readDate, type Header } from './message.ts';

// ---------------------------------------------------------------------------------------------
// Location report (0x0200) with its additional information items

interface Item {
  r: Reader;
  rec: DeviceRecord;
  len: number;
  end: number;
  /** End of the enclosing body (the 0x80 OBD block runs to it). */
  bodyEnd: number;
  model?: string;
  cells: Cell[];
  id: number;
}
type ItemDecoder = (c: Item) => void;

type AlarmBits = Array<[number[], string]>;
const PADLOCK_ALARMS: AlarmBits = [[[0, 4], Alarm.removing], [[1], Alarm.tampering]];
const AOVX_ALARMS: AlarmBits = [[[16], Alarm.movement]];
/** JT/T 808 alarm flag bits (table 24 of the standard) and the alarms they raise. */
const STANDARD_ALARMS: AlarmBits = [
  [[0], Alarm.sos],
  [[1], Alarm.overspeed],
  [[2], Alarm.fatigueDriving],
  [[5, 6], Alarm.gpsAntennaCut],
  [[4, 9, 10, 11], Alarm.fault],
  [[7, 18], Alarm.lowBattery],
  [[8], Alarm.powerOff],
  [[15], Alarm.vibration],
  [[16, 17], Alarm.tampering],
  [[19], Alarm.parking],
  [[20], Alarm.geofence],
  [[26], Alarm.general],
  [[28], Alarm.movement],
  [[29, 30], Alarm.accident],
];
const VL300_ALARMS = STANDARD_ALARMS.slice(0, -1); // its bits 29/30 mean something else

function alarmsFromFlags(rec: DeviceRecord, model: string | undefined, value: number): void {
  if (!value) return;
  const table = PADLOCK_MODELS.has(model ?? '') ? PADLOCK_ALARMS
    : AOVX_MODELS.has(model ?? '') ? AOVX_ALARMS
      : model === 'VL300' ? VL300_ALARMS : STANDARD_ALARMS;
  for (const [bits, alarm] of table) if (bits.some((b) => bit(value, b))) addAlarm(rec, alarm);
}

/** Status word and coordinates (shared by 0x0200 and the 0x0900 vendor reports). */
export function decodeCoordinates(r: Reader, rec: DeviceRecord, model?: string): void {
  const status = r.u32();
  set(rec, Attr.ignition, bit(status, 0));
  if (model === 'G1C Pro') set(rec, Attr.motion, bit(status, 4));
  set(rec, Attr.blocked, bit(status, 10));
  if (MV_MODELS.has(model ?? '')) set(rec, Attr.door, bit(status, 16));
  set(rec, Attr.charge, bit(status, 26));
  rec.valid = bit(status, 1);
  const lat = r.u32() / 1e6;
  const lng = r.u32() / 1e6;
  rec.lat = bit(status, 2) ? -lat : lat;
  rec.lng = bit(status, 3) ? -lng : lng;
}

/** Fixed-point pair: signed integer part, then 1/255 fractions. */
function customDouble(r: Reader): number {
  const b1 = r.i8();
  const b2 = r.u8();
  return (b1 < 0 ? -1 : 1) * (Math.abs(b1) + b2 / 255);
}

export const signedMagnitude = (v: number) => (v & 0x8000 ? -(v & 0x7fff) : v & 0x7fff);

/** `$OBD-RT,power,rpm,speed,throttle,load,coolant,instant,average,trip,odometer,tripFuel,fuelUsed`. */
const OBD_RT_FIELDS = [Attr.power, Attr.rpm, 'obdSpeed', Attr.throttle, Attr.engineLoad, Attr.coolantTemp,
  Attr.fuelConsumption, Attr.fuelConsumption, 'tripOdometer', 'obdOdometer', 'tripFuelUsed', Attr.fuelUsed];

export function decodeObdRt(rec: DeviceRecord, text: string): void {
  const values = text.split(',');
  OBD_RT_FIELDS.forEach((key, i) => {
    const v = values[i + 1];
    if (v !== undefined && v !== '' && Number.isFinite(Number(v))) set(rec, key, Number(v));
  });
}

/** Items of the 0x80 OBD block: id -> (reader -> value) under a fixed name. */
const OBD_ITEMS: Record<number, [string, (r: Reader, len: number) => AttrValue]> = {
  0x01: [Attr.odometer, (r) => r.u32() * 100],
  0x02: [Attr.fuel, (r) => r.u16() / 10],
  0x03: ['obdSpeed', (r) => r.u16() / 10],
  0x56: [Attr.batteryLevel, (r) => (r.skip(1), r.u8())],
  0x61: [Attr.power, (r) => r.u16() / 100],
  0x69: [Attr.battery, (r) => r.u16() / 100],
  0x80: ['obdSpeed', (r) => r.u8()],
  0x81: [Attr.rpm, (r) => r.u16()],
  0x82: [Attr.power, (r) => r.u16() / 10],
  0x83: [Attr.engineLoad, (r) => r.u8()],
  0x84: [Attr.coolantTemp, (r) => r.u8() - 40],
  0x85: [Attr.fuelConsumption, (r) => r.u16()],
  0x86: ['intakeTemp', (r) => r.u8() - 40],
  0x87: ['intakeFlow', (r) => r.u16()],
  0x88: ['intakePressure', (r) => r.u8()],
  0x89: [Attr.throttle, (r) => r.u8()],
  0x8b: [Attr.vin, (r) => r.ascii(17)],
  0x8c: ['obdOdometer', (r) => r.u32() * 100],
  0x8d: ['tripOdometer', (r) => r.u16() * 1000],
  0x8e: [Attr.fuel, (r) => r.u8()],
  0xa0: [Attr.dtcs, (r, len) => r.ascii(len).replace(/,/g, ' ')],
  0xcc: [Attr.iccid, (r) => r.ascii(20)],
};

function decodeObdBlock(c: Item): void {
  const { rec } = c;
  const r = new Reader(c.r.buf, c.r.pos, c.bodyEnd); // the block runs to the end of the report
  c.end = c.bodyEnd;
  r.skip(1); // content flag
  while (r.pos + 2 <= c.bodyEnd) {
    const id = r.u8();
    const len = r.u8();
    const end = r.pos + len;
    const item = OBD_ITEMS[id];
    if (item) set(rec, item[0], item[1](r, len));
    r.pos = Math.max(r.pos, Math.min(end, c.bodyEnd));
  }
}

/** 0xEB as a list of u16-length, u16-type sub-items (battery, ICCID, alarms...). */
const EB_ITEMS: Record<number, (r: Reader, rec: DeviceRecord, len: number, cells: Cell[]) => void> = {
  0x0001: (r, rec) => set(rec, 'fuel1', r.u16() / 10),
  0x0023: (r, rec) => {
    const v = Number(r.ascii(6));
    if (Number.isFinite(v)) set(rec, 'fuel2', v);
  },
  0x002d: (r, rec, len) => (len === 6 ? set(rec, Attr.power, r.u32() / 1000) : set(rec, Attr.battery, r.u16() / 1000)),
  0x0089: (r, rec) => {
    const v = r.u32();
    if (!bit(v, 0)) addAlarm(rec, Alarm.powerOff);
    if (!bit(v, 12)) addAlarm(rec, Alarm.removing);
  },
  0x00b2: (r, rec) => set(rec, Attr.iccid, r.hex(10).replace(/f+$/, '')),
  0x00c5: (r, rec) => {
    const v = r.u32();
    if (!bit(v, 6)) addAlarm(rec, Alarm.vibration);
    const motion = Math.floor(v / 2 ** 23) % 4;
    if (motion <= 1) set(rec, Attr.motion, motion === 0);
  },
  0x00c6: (r, rec) => {
    const v = r.u8();
    if (v === 0x03 || v === 0x04) set(rec, Attr.alarm, Alarm.lowBattery);
    set(rec, 'batteryAlarm', v);
  },
  0x00ce: (r, rec) => set(rec, Attr.power, r.u16() / 100),
  0x00d8: (r, _rec, _len, cells) => cells.push({ mcc: r.u16(), mnc: r.u8(), lac: r.u16(), cid: r.u32() }),
  0x00a8: (r, rec) => set(rec, Attr.batteryLevel, r.u8()),
  0x00e1: (r, rec) => set(rec, Attr.batteryLevel, r.u8()),
};

const isPrintable = (b: Buffer) => b.every((x) => x >= 0x20 && x < 0x7f);

function decodeEb({ r, rec, len, end, cells }: Item): void {
  if (len >= 3 && r.buf.readUInt16BE(r.pos) > 200 && (len - 3) % 5 === 0) {
    const mcc = r.u16();
    const mnc = r.u8();
    while (r.pos < end) cells.push({ mcc, mnc, lac: r.u16(), cid: r.u16(), rssi: r.u8() });
  } else if (isPrintable(r.buf.subarray(r.pos, end))) {
    set(rec, 'timezone', r.ascii(len));
  } else {
    while (r.pos < end) {
      const subLen = r.u16();
      const subEnd = r.pos + subLen;
      const type = r.u16();
      EB_ITEMS[type]?.(r, rec, subLen, cells);
      r.pos = subEnd;
    }
  }
}

/** JC (Jimi dashcam) 0xE8: a typed status block or an alarm code. */
const JC_ALARMS: Record<number, string> = {
  0x0001: Alarm.fault,
  0x0400: Alarm.hardAcceleration, 0x0412: Alarm.hardAcceleration,
  0x0401: Alarm.hardBraking, 0x0413: Alarm.hardBraking,
  0x0402: Alarm.hardCornering, 0x0414: Alarm.hardCornering,
  0x0403: Alarm.overspeed,
  0x0405: Alarm.accident, 0x0416: Alarm.accident, 0x0417: Alarm.accident,
  0x0406: Alarm.vibration,
  0x0407: Alarm.tow,
  0x0408: Alarm.geofenceEnter,
  0x0409: Alarm.geofenceExit,
  0x040c: Alarm.door,
  0x0415: Alarm.laneChange,
  0x0c01: Alarm.sos,
  0x0c02: Alarm.lowPower,
  0x0c05: Alarm.general,
  0x0c0e: Alarm.powerCut,
  0x0c0f: Alarm.lowBattery,
  0x0c10: Alarm.powerOff,
  0x0c12: Alarm.tampering,
};

const JC_STATUS: Record<number, (r: Reader, rec: DeviceRecord) => void> = {
  0x0001: (r, rec) => set(rec, Attr.battery, r.u16() / 100),
  0x0002: (r, rec) => set(rec, 'dataUsage', r.u32()),
  0x0003: (r, rec) => set(rec, Attr.batteryLevel, r.u8()),
  0x0004: (r, rec) => set(rec, Attr.charge, r.u8() === 0),
  0x0005: (r, rec) => set(rec, Attr.iccid, r.hex(10).substring(0, 19)),
  0x0007: (r, rec) => (rec.hdop = r.u16() / 10),
  0x2001: (r, rec) => set(rec, Attr.power, r.u16() / 10),
};

function decodeJc({ r, rec, end }: Item): void {
  const type = r.u16();
  if (type === 0x2002) {
    r.skip(1);
    set(rec, 'uploadMode', r.u8());
    set(rec, 'buffered', r.u8() === 1);
  } else if (type === 0x2003) {
    r.skip(1);
    set(rec, Attr.charge, r.u8() === 1);
    const level = r.u8();
    if (level >= 1 && level <= 6) set(rec, Attr.batteryLevel, Math.floor((level * 100) / 6));
    set(rec, Attr.battery, r.u16() / 100);
    set(rec, Attr.rssi, r.u8());
    set(rec, Attr.power, r.u16() / 100);
  } else if (type === 0x2005) {
    r.skip(1);
    while (r.pos < end) {
      const id = r.u16();
      const len = r.u8();
      const start = r.pos;
      const statusEnd = start + len;
      JC_STATUS[id]?.(r, rec);
      r.pos = Math.max(start, statusEnd);
    }
  } else if (type === 0x0c03 || type === 0x0c04) {
    set(rec, Attr.ignition, type === 0x0c03);
  } else if (JC_ALARMS[type]) {
    addAlarm(rec, JC_ALARMS[type]);
  }
}

/** Non-AOVX 0xF3: OBD items with u16 type and u8 length. */
const F3_OBD: Record<number, [string, (r: Reader, len: number) => AttrValue | undefined]> = {
  0x0002: ['obdSpeed', (r) => r.u16() / 10],
  0x0003: [Attr.rpm, (r) => r.u16()],
  0x0004: [Attr.power, (r) => r.u16() / 1000],
  0x0005: ['obdOdometer', (r) => r.u32() * 100],
  0x0007: [Attr.fuelConsumption, (r) => r.u16() / 10],
  0x0008: [Attr.engineLoad, (r) => r.u16() / 10],
  0x0009: [Attr.coolantTemp, (r) => r.u16() - 40],
  0x000b: ['intakePressure', (r) => r.u16()],
  0x000c: ['intakeTemp', (r) => r.u16() - 40],
  0x000d: ['intakeFlow', (r) => r.u16()],
  0x000e: [Attr.throttle, (r) => Math.floor((r.u16() * 100) / 255)],
  0x0050: [Attr.vin, (r) => stripNul(r.ascii(17))],
  0x0051: ['cvn', (r, len) => (len > 0 ? r.hex(len) : undefined)],
  0x0052: ['calid', (r, len) => (len > 0 ? stripNul(r.ascii(len)) : undefined)],
  0x0100: ['tripOdometer', (r) => r.u16() / 10],
  0x0102: ['tripFuel', (r) => r.u16() / 10],
  0x0112: ['hardAccelerationCount', (r) => r.u16()],
  0x0113: ['hardDecelerationCount', (r) => r.u16()],
  0x0114: ['hardCorneringCount', (r) => r.u16()],
};

function decodeF3({ r, rec, end, model }: Item): void {
  if (AOVX_MODELS.has(model ?? '')) {
    // BLE tags; the mask says which optional fields follow each MAC + RSSI
    const mask = r.u8();
    for (let i = 1; r.pos < end; i++) {
      set(rec, `tag${i}Mac`, r.hex(6));
      set(rec, `tag${i}Rssi`, r.i8());
      if (bit(mask, 0)) set(rec, `tag${i}Name`, trimJava(r.ascii(10)));
      if (bit(mask, 1)) r.skip(2); // firmware version
      if (bit(mask, 2)) set(rec, `tag${i}Battery`, r.u16() / 1000);
      if (bit(mask, 3)) set(rec, `tag${i}Temp`, r.i16() / 10);
      if (bit(mask, 4)) set(rec, `tag${i}Humidity`, r.i16() / 10);
      if (bit(mask, 5)) r.skip(6); // accelerometer
      if (bit(mask, 6)) r.skip(2);
      if (bit(mask, 7)) r.skip(2);
    }
    return;
  }
  while (r.pos + 3 <= end) {
    const type = r.u16();
    const len = r.u8();
    const subEnd = r.pos + len;
    const item = F3_OBD[type];
    const value = item ? item[1](r, len) : undefined;
    if (item && value !== undefined) set(rec, item[0], value);
    r.pos = subEnd;
  }
}

function decodeF6({ r, rec, len, model }: Item): void {
  const aovx = AOVX_MODELS.has(model ?? '');
  if (!aovx && len === 2) return set(rec, 'airPressure', r.u16());
  if (!aovx && len === 8) return set(rec, 'imei', r.hex(8).substring(1));
  const event = r.u8();
  set(rec, Attr.event, event);
  if (event === 2) set(rec, Attr.motion, true);
  const mask = r.u8();
  if (bit(mask, 0)) set(rec, 'lightSensor', r.u16());
  if (bit(mask, 1)) set(rec, indexed.temp(1), r.i16() / 10);
  if (bit(mask, 2)) set(rec, 'humidity', r.i16() / 10);
  if (bit(mask, 3)) set(rec, 'gSensor', `[${r.i16()},${r.i16()},${r.i16()}]`);
  if (bit(mask, 4)) r.skip(10); // threshold configuration
  if (bit(mask, 5)) set(rec, 'airPressure', r.u16());
}

function decodeBatteryOrCells(c: Item): void {
  const { r, rec, len, id, end, cells } = c;
  if (len === 1) {
    const level = r.u8();
    if (level === 0xff) set(rec, Attr.charge, true);
    else set(rec, Attr.batteryLevel, level);
  } else if (id === 0xe1 && len >= 12 && (len - 4) % 8 === 0) {
    const mcc = r.u16();
    const mnc = r.u16();
    while (r.pos < end) {
      const lac = r.u24();
      const cid = r.u32();
      const rssi = r.u8();
      if (lac > 0 && lac <= 0xffff && cid <= 0xfffffff) cells.push({ mcc, mnc, lac, cid, rssi });
    }
  } else if (id === 0xe1 && len === 2) {
    set(rec, Attr.power, r.u16() / 10);
  } else {
    set(rec, Attr.driverUniqueId, String(r.u32()));
  }
}

export function decodeLock(r: Reader, rec: DeviceRecord, len: number): void {
  set(rec, 'lockCommand', r.u8());
  if (len >= 5 && len <= 6) set(rec, 'lockCard', r.u32());
  else if (len >= 7) set(rec, 'lockPassword', r.ascii(6));
  if (len % 2 === 0) set(rec, 'unlockResult', r.u8());
}

const HARD_DRIVING = [Alarm.hardAcceleration, Alarm.hardBraking, Alarm.hardCornering, Alarm.accident, Alarm.tampering];

/** Additional information items of a location report, by id. */
const ITEMS: Record<number, ItemDecoder> = {
  0x01: ({ r, rec }) => set(rec, Attr.odometer, r.u32() * 100), // 0.1 km
  0x02: ({ r, rec }) => {
    const v = r.u16();
    set(rec, Attr.fuel, v & 0x8000 ? v & 0x7fff : v / 10);
  },
  0x06: ({ r, rec }) => set(rec, Attr.batteryLevel, r.u8()),
  0x0b: ({ r, rec, len }) => decodeLock(r, rec, len),
  0x14: ({ r, rec }) => set(rec, 'videoAlarm', r.u32()),
  0x25: ({ r, rec }) => set(rec, Attr.input, r.u32()),
  0x2b: ({ r, rec }) => {
    set(rec, indexed.adc(1), r.u16() / 100);
    set(rec, indexed.adc(2), r.u16() / 100);
  },
  0x30: ({ r, rec }) => set(rec, Attr.rssi, r.u8()),
  0x31: ({ r, rec }) => {
    rec.satellites = r.u8();
    set(rec, 'sat', rec.satellites);
  },
  0x33: ({ r, rec, len }) => {
    if (len === 1) return set(rec, 'mode', r.u8());
    const text = r.ascii(len);
    const volts = text.startsWith('*M00') ? Number(text.substring(10, 13)) : NaN;
    if (Number.isFinite(volts)) set(rec, Attr.battery, volts / 100);
  },
  0x51: ({ r, rec, len }) => {
    if (len !== 2 && len !== 16) return;
    for (let i = 1; i <= len / 2; i++) {
      const v = r.u16();
      if (v !== 0xffff) set(rec, indexed.temp(i), signedMagnitude(v) / 10);
    }
  },
  0x56: ({ r, rec }) => set(rec, Attr.batteryLevel, r.u8() * 10),
  0x57: ({ r, rec, model }) => {
    const a = r.u16();
    if (bit(a, 8)) addAlarm(rec, Alarm.hardAcceleration);
    if (bit(a, 9)) addAlarm(rec, Alarm.hardBraking);
    if (bit(a, 10)) addAlarm(rec, Alarm.hardCornering);
    r.skip(2); // external switch state
    if (bit(r.u32(), 16) && MV_MODELS.has(model ?? '')) addAlarm(rec, Alarm.door);
  },
  0x60: ({ r, rec }) => {
    const event = r.u16();
    set(rec, Attr.event, event);
    if (event >= 0x61 && event <= 0x66) set(rec, Attr.driverUniqueId, r.skip(6).ascii(8));
  },
  0x63: ({ r, rec, len }) => {
    for (let i = 1; i <= Math.floor(len / 11); i++) {
      set(rec, `lock${i}Id`, r.hex(6));
      set(rec, `lock${i}Battery`, r.u16() / 1000);
      set(rec, `lock${i}Seal`, r.u8() === 0x31);
      r.skip(2); // physical state, rssi
    }
  },
  0x64: ({ r, rec, len, end, id }) => {
    set(rec, id === 0x64 ? 'adasAlarm' : 'dmsAlarm', r.skip(5).u8());
    if (len >= 47) set(rec, 'alarmLabel', ((r.pos = end - 16), r.hex(16)));
  },
  0x67: ({ r, rec }) => set(rec, 'password', r.ascii(8)),
  0x68: ({ r, rec }) => set(rec, Attr.batteryLevel, r.u16() / 100),
  0x69: ({ r, rec }) => set(rec, Attr.battery, r.u16() / 100),
  0x70: ({ r, rec }) => {
    const a = { 0x01: Alarm.hardAcceleration, 0x02: Alarm.hardBraking, 0x03: Alarm.hardCornering, 0x16: Alarm.accident }[r.skip(5).u8()];
    if (a) addAlarm(rec, a);
  },
  0x77: ({ r, rec, end }) => {
    while (r.pos < end) {
      const i = r.u8();
      set(rec, `tire${i}SensorId`, r.hex(3));
      set(rec, `tire${i}Pressure`, (r.u16() & 0x3ff) / 40);
      set(rec, `tire${i}Temp`, r.u8() - 50);
      set(rec, `tire${i}Status`, r.u8());
    }
  },
  0x80: decodeObdBlock,
  0x82: ({ r, rec }) => set(rec, Attr.power, r.u16() / 10),
  0x91: ({ r, rec }) => {
    set(rec, Attr.battery, r.u16() / 10);
    set(rec, Attr.rpm, r.u16());
    set(rec, 'obdSpeed', r.u8());
    set(rec, Attr.throttle, Math.floor((r.u8() * 100) / 255));
    set(rec, Attr.engineLoad, Math.floor((r.u8() * 100) / 255));
    set(rec, Attr.coolantTemp, r.u8() - 40);
    set(rec, Attr.fuelConsumption, r.skip(2).u16() / 100);
    set(rec, Attr.fuelUsed, r.skip(8).u16() / 100);
  },
  0x94: ({ r, rec, len }) => len > 0 && set(rec, Attr.vin, r.ascii(len)),
  0xac: ({ r, rec }) => set(rec, Attr.odometer, r.u32()),
  0xbc: ({ r, rec, len }) => set(rec, 'driver', trimJava(r.ascii(len))),
  0xbd: ({ r, rec, len }) => set(rec, Attr.driverUniqueId, r.ascii(len)),
  0xd0: ({ r, rec }) => bit(r.u32(), 3) && addAlarm(rec, Alarm.vibration),
  0xd3: ({ r, rec }) => set(rec, Attr.power, r.u16() / 10),
  0xd4: decodeBatteryOrCells,
  0xd5: ({ r, rec, len }) => {
    if (len === 2) return set(rec, Attr.battery, r.u16() / 100);
    const count = r.u8();
    for (let i = 1; i <= count; i++) {
      set(rec, `lock${i}Id`, r.hex(5));
      set(rec, `lock${i}Card`, r.hex(5));
      set(rec, `lock${i}Battery`, r.u8());
      set(rec, `lock${i}Locked`, !bit(r.u16(), 5));
    }
  },
  0xda: ({ r, rec, len }) => {
    if (len < 3) return;
    const s = r.skip(2).u8(); // after the string-cut count
    set(rec, 'string', bit(s, 0));
    set(rec, Attr.motion, bit(s, 2));
    set(rec, 'cover', bit(s, 3));
  },
  0xe2: ({ r, rec, model }) => model !== 'DT800' && set(rec, Attr.fuel, r.u32() / 10),
  0xe3: ({ r, rec }) => {
    set(rec, Attr.batteryLevel, r.skip(1).u8());
    set(rec, Attr.battery, r.u16() / 100);
  },
  0xe4: ({ r, rec }) => {
    if (r.u8() === 0) set(rec, Attr.charge, true);
    set(rec, Attr.batteryLevel, r.u8());
  },
  0xe5: ({ r, rec, len }) => len === 1 && set(rec, Attr.motion, r.u8() === 1),
  0xe6: ({ r, rec, len, end }) => {
    if (len >= 7 && r.buf.toString('latin1', r.pos, r.pos + 7) === '$OBD-RT') return decodeObdRt(rec, r.ascii(len));
    if (len < 11 || len % 11 !== 0) return;
    while (r.pos < end) {
      const i = r.u8();
      r.skip(6); // sensor MAC
      set(rec, indexed.temp(i), customDouble(r));
      set(rec, `humidity${i}`, customDouble(r));
    }
  },
  0xe7: ({ r, rec, len }) => {
    if (len !== 8) return;
    const a = r.u16();
    if (bit(a, 0)) addAlarm(rec, Alarm.vibration);
    if (a & 0x0e) addAlarm(rec, Alarm.sos);
  },
  0xe8: (c) => (JC_MODELS.has(c.model ?? '') ? decodeJc(c) : c.len > 0 && set(c.rec, 'lockStatus', c.r.uint(Math.min(c.len, 3)))),
  0xea: ({ r, rec, len, end }) => {
    if (len <= 2) return;
    r.skip(1); // extended info type
    while (r.pos + 2 <= end) {
      const type = r.u8();
      const subEnd = r.pos + r.u8();
      if (subEnd > end) break;
      if (type === 0x11) {
        set(rec, 'externalAlarms', r.u16());
        set(rec, 'alarmThresholdType', r.u8());
      } else if (type === 0x13) set(rec, 'externalIlluminance', r.u16());
      else if (type === 0x14) set(rec, 'externalAirPressure', r.u16());
      else if (type === 0x15) set(rec, 'externalHumidity', r.u16() / 10);
      else if (type === 0x16) set(rec, 'externalTemp', r.u16() / 10 - 50);
      r.pos = subEnd;
    }
  },
  0xeb: decodeEb,
  0xed: ({ r, rec, len }) => set(rec, 'card', trimJava(r.ascii(len))),
  0xee: ({ r, rec, len }) => {
    if (len !== 6) return;
    set(rec, Attr.rssi, r.u8());
    set(rec, Attr.power, r.u16() / 1000);
    set(rec, Attr.battery, r.u16() / 1000);
    rec.satellites = r.u8();
    set(rec, 'sat', rec.satellites);
  },
  0xf0: ({ r, end, cells }) => {
    while (r.pos < end) {
      const mcc = r.u16();
      const mnc = r.u16();
      const cid = r.u32();
      const lac = r.u32();
      cells.push({ mcc, mnc, lac, cid, rssi: r.u8() });
    }
  },
  0xf1: ({ r, rec }) => set(rec, Attr.power, r.u32() / 1000),
  0xf2: ({ r, rec, len }) => set(rec, 'versionFw', r.ascii(len)),
  0xf3: decodeF3,
  0xf5: ({ r, rec, len }) => len === 2 && set(rec, 'illuminance', r.u16()),
  0xf6: decodeF6,
  0xf7: ({ r, rec, len }) => {
    if (len === 2) return set(rec, 'humidity', r.u16() / 10);
    set(rec, Attr.battery, r.u32() / 1000);
    if (len >= 5 && [2, 3].includes(r.u8())) set(rec, Attr.charge, true);
    if (len >= 6) set(rec, Attr.batteryLevel, r.u8());
  },
  0xf8: ({ r, rec, model }) => {
    if (AOVX_MODELS.has(model ?? '')) set(rec, Attr.iccid, r.skip(9).hex(10));
    else if (model === 'C5' || model === 'C5L') set(rec, Attr.steps, r.u16());
    else set(rec, indexed.temp(2), r.u16() / 10 - 50);
  },
  0xf9: ({ r, rec }) => {
    const mask = r.u16();
    if (bit(mask, 0)) r.skip(4); // GNSS age
    if (bit(mask, 1)) r.skip(4); // ACC on time
    if (bit(mask, 2)) rec.hdop = r.u16() / 10;
    if (bit(mask, 3)) r.skip(6); // GNSS time
    if (bit(mask, 5)) r.skip(8); // sampling and report interval
    if (bit(mask, 6)) set(rec, indexed.temp(3), r.i16() / 10);
  },
  0xfb: ({ r, rec, len }) => set(rec, 'container', r.ascii(len)),
  0xfc: ({ r, rec }) => set(rec, 'geofence', r.u8()),
  0xfe: ({ r, rec, len, end }) => {
    if (len === 1) return set(rec, Attr.batteryLevel, r.u8());
    if (len === 2) return set(rec, Attr.power, r.u16() / 10);
    if (len === 4) return set(rec, Attr.odometer, r.u32());
    if (r.u8() === 0x7c) {
      while (r.pos + 2 <= end) {
        const type = r.u8();
        const subEnd = r.pos + r.u8();
        if (type === 0x01) {
          const a = r.u32();
          HARD_DRIVING.forEach((alarm, b) => bit(a, b) && addAlarm(rec, alarm));
        }
        r.pos = subEnd;
      }
    }
    if (r.pos < end) set(rec, Attr.batteryLevel, r.u8());
  },
};
ITEMS[0xa7] = ITEMS[0x2b];
ITEMS[0x65] = ITEMS[0x64];
ITEMS[0xe1] = ITEMS[0xe9] = decodeBatteryOrCells;
ITEMS[0xec] = ITEMS[0xf4] = () => {}; // Wi-Fi scans: not carried by records

export interface LocationContext {
  model?: string;
  offset: number;
}

/** Basic 28-byte location block followed by additional information items up to `r.end`. */
export function decodeLocation(r: Reader, lc: LocationContext): DeviceRecord {
  const rec = newRecord();
  alarmsFromFlags(rec, lc.model, r.u32());
  decodeCoordinates(r, rec, lc.model);
  rec.altitude = r.i16();
  rec.speed = r.u16() / 10; // 0.1 km/h
  rec.course = r.u16();
  rec.time = readDate(r, lc.offset);
  if (r.remaining === 18) {
    // fixed trailer of some devices instead of items
    set(rec, Attr.odometer, r.skip(4).u32() * 1000);
    set(rec, Attr.battery, r.u16() / 10);
    set(rec, Attr.rssi, r.skip(4).u8());
    return rec;
  }
  const cells: Cell[] = [];
  while (r.remaining >= 2) {
    const id = r.u8();
    const len = r.u8();
    const end = r.pos + len;
    if (end > r.end) break;
    // each item reads through its own bounded reader: a vendor item we misread is dropped, not the fix
    const item: Item = { r: new Reader(r.buf, r.pos, end), rec, len, end, bodyEnd: r.end, model: lc.model, cells, id };
    try {
      ITEMS[id]?.(item);
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
    }
    r.pos = item.end;
  }
  if (cells.length) rec.cells = cells;
  return rec;
}

export function decodeBatch(h: Header, lc: LocationContext): DeviceRecord[] {
  const { r } = h;
  let archive = false;
  if (h.type === MSG.locationBatch) archive = r.skip(2).u8() > 0; // count, then 0 = normal, 1 = blind-spot
  const records: DeviceRecord[] = [];
  while (r.remaining > 0) {
    const length = h.type === MSG.locationBatch2 ? r.u8() : r.u16();
    const at = r.pos;
    r.skip(length);
    const rec = decodeLocation(new Reader(r.buf, at, at + length), lc);
    if (archive) set(rec, Attr.archive, true);
    records.push(rec);
  }
  return records;
}
