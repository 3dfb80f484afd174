/** GL200 text report decoders, first half: INF, VER, FRI, ERI, IGN, DAT, LSW, IDA, DAR, DTT, accessories, OBD. */
import { Alarm, Attr, indexed } from '../attributes.ts';
import type { DecodeContext, DeviceRecord } from '../types.ts';
import { RE, VIN, bad, at, num, hexNum, countOf, parseHours, newRecord, put, putAnalog, putStatus, readGroup, readAppend, findCoordinates } from './fields.ts';

// ---------------------------------------------------------------------------------------------
// Text report decoders. Each gets the split sentence and returns its records.
// ---------------------------------------------------------------------------------------------

export interface Msg {
  v: string[];
  type: string; // three letters after GT
  model: string;
  ctx: DecodeContext;
  sendTime?: number;
}

export type TextDecoder = (m: Msg) => DeviceRecord[];

/** GTINF motion state -> [ignition, moving]. */
const INF_STATES: Record<number, [boolean | undefined, boolean]> = {
  0x16: [false, true], 0x1a: [false, true], 0x12: [false, true], 0x11: [false, false],
  0x21: [true, false], 0x22: [true, true], 0x41: [undefined, false], 0x42: [undefined, true],
};

/** `+RESP:GTINF`: device information (state, ICCID, signal, power, battery, ...). */
export function decodeInf({ v, model }: Msg): DeviceRecord[] {
  const rec = newRecord();
  let i = VIN.test(at(v, 3)) ? 5 : 4; // OBD models put the VIN before the device name
  const state = INF_STATES[hexNum(at(v, i++)) ?? -1];
  if (state) {
    put(rec, Attr.ignition, state[0]);
    put(rec, Attr.motion, state[1]);
  }
  put(rec, Attr.iccid, at(v, i++));
  put(rec, Attr.rssi, num(at(v, i++)));
  i += 2; // signal quality, external power supply flag
  if (at(v, i + 1).length >= 12) {
    i++; // ble sensor mac
    put(rec, Attr.deviceTemp, num(at(v, i++)));
    put(rec, 'humidity', num(at(v, i++)));
  }
  const power = at(v, i++);
  if (power.includes('.')) put(rec, Attr.odometer, num(power) !== undefined ? num(power)! * 1000 : undefined);
  else if (num(power) !== undefined) put(rec, Attr.power, num(power)! / 1000);
  if (model === 'GV350M' || model === 'GV310LAU') i++; // expand mask / network type
  else put(rec, 'power2', num(at(v, i++)) !== undefined ? num(v[i - 1])! / 1000 : undefined);
  put(rec, Attr.battery, num(at(v, i++)));
  if (at(v, i++) === '1') rec.attributes[Attr.charge] = true;
  if (model === 'GV310LAU') {
    i += 5; // led state, power saving, external antenna, last fix time, pin mask
    for (let n = 1; n <= 3; n++) put(rec, indexed.adc(n), num(at(v, i++)));
  }
  return [rec];
}

/** `+RESP:GTVER`: device type, firmware and hardware versions. */
export function decodeVer({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, 'deviceType', at(v, 4));
  put(rec, 'versionFw', hexNum(at(v, 5)));
  put(rec, 'versionHw', hexNum(at(v, 6)));
  return [rec];
}

/** Pieces of a FRI tail (after the last location group) in the layouts the firmware families use. */
const TAIL_GL5 = [/^\d{1,2}$/, /^\d{0,5}$/, /^\d{1,3}$/, /^[01]$/, /^[01]?$/, /^(-?\d{1,2}\.\d)?$/];
const ODOMETER = /^\d{1,7}\.\d$/;
const STATUS6 = /^[0-9A-Fa-f]{6}$/;

function decodeFriTail(t: string[], rec: DeviceRecord, reportType: number | undefined): void {
  if (t.length >= 6 && TAIL_GL5.every((re, k) => re.test(t[k]))) {
    // csq ber, battery mV, battery %, mode, motion, temperature
    put(rec, Attr.battery, num(t[1]) !== undefined ? num(t[1])! / 1000 : undefined);
    put(rec, Attr.batteryLevel, num(t[2]));
    put(rec, indexed.temp(1), num(t[5]));
  } else if (t.length >= 9 && /^(\d{1,7}\.\d)?$/.test(t[0]) && /^(\d{5}:\d\d:\d\d)?$/.test(t[1])) {
    // odometer, hour meter, adc1, adc2, [reserved], battery %, device status, rpm, fuel consumption, fuel level
    put(rec, Attr.odometer, num(t[0]) !== undefined ? num(t[0])! * 1000 : undefined);
    put(rec, Attr.hours, parseHours(t[1]));
    if (t[2]) putAnalog(rec, 1, t[2]);
    if (t[3]) putAnalog(rec, 2, t[3]);
    const k = !STATUS6.test(t[5]) && STATUS6.test(t[6] ?? '') ? 5 : 4;
    put(rec, Attr.batteryLevel, num(t[k]));
    if (STATUS6.test(t[k + 1])) putStatus(rec, t[k + 1]);
    put(rec, Attr.rpm, num(t[k + 2]));
    put(rec, Attr.fuel, num(t[k + 4]));
  } else if (t.length >= 2 && /^-?\d$/.test(t[0]) && /^\d{1,3}$/.test(t[1])) {
    // rssi, battery %; the report type carries motion and charging bits
    if (reportType !== undefined) {
      rec.attributes[Attr.motion] = (reportType & 1) !== 0;
      rec.attributes[Attr.charge] = (reportType & 2) !== 0;
    }
    put(rec, Attr.rssi, num(t[0]));
    put(rec, Attr.batteryLevel, num(t[1]));
  } else if (t.length >= 2 && (t[0] === '' || ODOMETER.test(t[0]))) {
    put(rec, Attr.odometer, num(t[0]) !== undefined ? num(t[0])! * 1000 : undefined);
    put(rec, Attr.batteryLevel, /^\d{1,3}$/.test(t[1]) ? num(t[1]) : undefined);
  } else if (t.length >= 1 && /^\d{1,3}$/.test(t[0])) {
    put(rec, Attr.batteryLevel, num(t[0]));
  }
}

/**
 * `GTFRI` and friends (GEO, RTL, DOG): `[vin],name,<prefix: power,report type,count,...>` then one or
 * more location groups (each ending with rssi or odometer), then a model-dependent tail.
 */
export function decodeFri(m: Msg): DeviceRecord[] {
  const { v } = m;
  let i = 3;
  const vin = VIN.test(at(v, i)) ? v[i++] : undefined;
  i++; // device name
  const anchor = findCoordinates(v, i);
  const groupStart = anchor >= 0 ? anchor - 4 : i + 3;
  if (groupStart < i) bad('location group overlaps header');
  const prefix = v.slice(i, groupStart);
  const records: DeviceRecord[] = [];
  let j = groupStart;
  do {
    const rec = newRecord();
    put(rec, Attr.vin, vin);
    j = readGroup(v, j, rec);
    const last = at(v, j++);
    if (ODOMETER.test(last)) put(rec, Attr.odometer, Number(last) * 1000);
    records.push(rec);
  } while (records.length < 100 && RE.coord.test(v[j + 4] ?? '') && RE.coord.test(v[j + 5] ?? ''));
  const rec = records[records.length - 1];
  const power = num(prefix[0]);
  if (power !== undefined && power > 10) put(rec, Attr.power, power / 1000);
  if (prefix.length >= 5) put(rec, Attr.batteryLevel, num(prefix[4]));
  decodeFriTail(v.slice(j, v.length - 2), rec, num(prefix[1]));
  return records;
}

/** `GTERI`: FRI with an ERI mask announcing the peripheral blocks that follow the fixed fields. */
export function decodeEri(m: Msg): DeviceRecord[] {
  const { v, model } = m;
  let i = 3;
  const vin = model === 'GV500' ? at(v, i++) : undefined;
  i++; // device name
  const mask = hexNum(at(v, i++)) ?? 0;
  const power = num(at(v, i++));
  i++; // report type
  const count = countOf(at(v, i++));
  if (count === 0) bad('ERI without location');
  const records: DeviceRecord[] = [];
  for (let n = 0; n < count; n++) {
    const rec = newRecord();
    put(rec, Attr.vin, vin);
    i = readAppend(v, readGroup(v, i, rec), rec, model);
    records.push(rec);
  }
  const rec = records[records.length - 1];
  put(rec, Attr.power, power !== undefined ? power / 1000 : undefined);
  i = eriFixed(v, i, rec, model, mask);
  eriBlocks(v, i, rec, model, mask);
  return records;
}

export const bit = (mask: number, n: number) => Math.floor(mask / 2 ** n) % 2 === 1;

/** The fixed ERI fields between the locations and the mask blocks, which differ per model family. */
function eriFixed(v: string[], i: number, rec: DeviceRecord, model: string, mask: number): number {
  const gl5 = model.startsWith('GL5');
  if (!gl5) put(rec, Attr.odometer, num(at(v, i++)) !== undefined ? num(v[i - 1])! * 1000 : undefined);
  if (!gl5 && model !== 'GL320M') {
    put(rec, Attr.hours, parseHours(at(v, i++)));
    if (at(v, i++)) putAnalog(rec, 1, v[i - 1]);
  }
  if (model.startsWith('GV') && !model.startsWith('GV6') && model !== 'GV350M' && model !== 'GV65') {
    if (at(v, i++)) putAnalog(rec, 2, v[i - 1]);
  }
  if (model === 'GV200' || model === 'GV310LAU' || model === 'GV350CEU') {
    if (at(v, i++)) putAnalog(rec, 3, v[i - 1]);
  } else if ((model.startsWith('GV3') && model.endsWith('CEU')) || model.startsWith('GV600M')) {
    i++; // reserved
  }
  if (gl5) {
    put(rec, Attr.batteryLevel, num(at(v, i++)));
    i++; // mode selection
    if (at(v, i++)) put(rec, Attr.motion, (num(v[i - 1]) ?? 0) > 0);
  } else if (model === 'GV200') {
    put(rec, Attr.input, hexNum(at(v, i++)));
    put(rec, Attr.output, hexNum(at(v, i++)));
    i++; // uart device type
  } else if (model === 'GL320M') {
    put(rec, Attr.batteryLevel, num(at(v, i++)));
    if (bit(mask, 7)) put(rec, 'externalBattery', num(at(v, i++)));
  } else {
    put(rec, Attr.batteryLevel, num(at(v, i++)));
    putStatus(rec, at(v, i++));
    i++; // reserved / uart device type
  }
  return i;
}

/** ERI mask blocks: fuel sensors, 1-wire temperatures, BLE accessories. */
function eriBlocks(v: string[], i: number, rec: DeviceRecord, model: string, mask: number): void {
  const end = v.length - 2;
  if (bit(mask, 0) && model !== 'GV350M') put(rec, Attr.fuel, hexNum(at(v, i++)));
  if (bit(mask, 29)) {
    i += 2; // reserved
    const dataMask = hexNum(at(v, i++)) ?? 0;
    if (dataMask & 1) put(rec, Attr.fuel, hexNum(at(v, i++)));
    if (dataMask & 2) i++; // fuel height
  }
  if (bit(mask, 1)) {
    const n = countOf(at(v, i++));
    for (let k = 1; k <= n; k++) {
      i += 2; // sensor id, type
      const raw = hexNum(at(v, i++));
      if (raw !== undefined) put(rec, indexed.temp(k), ((raw << 16) >> 16) * 0.0625); // int16, 1/16 degree
    }
  }
  if (bit(mask, 2)) return; // CAN block follows: reported separately as GTCAN
  const gv350fuel = bit(mask, 0) && model === 'GV350M';
  if ((bit(mask, 3) || bit(mask, 4) || gv350fuel) && i < end) {
    const n = countOf(at(v, i++));
    for (let k = 0; k < n; k++) {
      i++; // sensor type
      if (model === 'GV350M') {
        i++; // uart id
        if (bit(mask, 0)) put(rec, Attr.fuel, hexNum(at(v, i++)));
      }
      if (bit(mask, 3)) put(rec, Attr.fuel, num(at(v, i++)));
      if (bit(mask, 4)) i++; // volume
      if (bit(mask, 10)) i++; // fuel temperature
    }
  }
  if (bit(mask, 7) && model !== 'GL320M') {
    const n = countOf(at(v, i++));
    for (let k = 0; k < n; k++) {
      i++; // serial number
      const type = num(at(v, i++));
      i += type === 2 ? 2 : 1; // temperature, [humidity]
    }
  }
  if (bit(mask, 8) && model !== 'GL320M') i = eriAccessories(v, i, rec, model);
}

/** BLE accessory fields by append-mask bit: [attribute suffix or null to skip]. */
const ACCESSORY_FIELDS: Array<[number, string | null, 'text' | 'number']> = [
  [0, null, 'text'], // name
  [1, 'Id', 'text'],
  [2, null, 'text'], // status
  [3, null, 'text'], // battery level
  [4, 'Temp', 'number'],
  [5, 'Humidity', 'number'],
  [7, null, 'text'], // input / output
  [8, null, 'text'], // event notification
  [9, null, 'text'], // tire pressure
  [10, null, 'text'], // timestamp
  [11, null, 'text'], // enhanced temperature
  [12, null, 'text'], // magnet
  [13, 'Battery', 'number'],
  [14, null, 'text'], // relay
];

function eriAccessories(v: string[], i: number, rec: DeviceRecord, model: string): number {
  const n = countOf(at(v, i++));
  for (let k = 1; k <= n; k++) {
    i += model.startsWith('GV600M') ? 5 : 4; // index, type, model, [raw length], raw data
    const deviceMask = hexNum(at(v, i++)) ?? 0;
    for (const [b, suffix, kind] of ACCESSORY_FIELDS) {
      if (!bit(deviceMask, b)) continue;
      const s = at(v, i++);
      if (suffix) put(rec, `tag${k}${suffix}`, kind === 'number' ? num(s) : s);
    }
  }
  return i;
}

/** `GTIGN/GTIGF/GTVGN/GTVGF`: ignition on/off with its duration, location, hour meter and mileage. */
export function decodeIgn(m: Msg): DeviceRecord[] {
  const { v, model, type } = m;
  const rec = newRecord();
  let i = 4; // after device name
  if (model === 'CV200') i += 2; // reserved, report type
  i++; // duration of the previous ignition state
  i = readAppend(v, readGroup(v, i, rec), rec, model);
  rec.attributes[Attr.ignition] = type.includes('GN');
  put(rec, Attr.hours, parseHours(at(v, i++)));
  const odometer = num(at(v, i++));
  put(rec, Attr.odometer, odometer !== undefined ? odometer * 1000 : undefined);
  return [rec];
}

/** `GTDAT`: transparent data from the serial port, with location. */
export function decodeDat({ v, model }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, 'data', at(v, 7));
  readAppend(v, readGroup(v, 8, rec), rec, model);
  return [rec];
}

/** Reads one location group at `i` plus an optional odometer field after the cell block. */
function groupWithOdometer(v: string[], i: number, rec: DeviceRecord): number {
  i = readGroup(v, i, rec);
  for (const s of [v[i], v[i + 1]]) {
    if (s !== undefined && ODOMETER.test(s)) put(rec, Attr.odometer, Number(s) * 1000);
  }
  return i;
}

/** `GTLSW/GTTSW`: input 1 / input 2 (ignition) switch state. */
export function decodeLsw({ v, type }: Msg): DeviceRecord[] {
  const rec = newRecord();
  rec.attributes[indexed.in(type === 'LSW' ? 1 : 2)] = at(v, 5) === '1';
  groupWithOdometer(v, 6, rec);
  return [rec];
}

/** `GTIDA`: driver identification (RFID / iButton). */
export function decodeIda({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, Attr.driverUniqueId, at(v, 5));
  groupWithOdometer(v, 8, rec);
  return [rec];
}

/** `GTDAR`: driver behaviour (fatigue) warning. */
export function decodeDar({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  const warning = num(at(v, 4));
  if (warning === 1) {
    rec.attributes[Attr.alarm] = Alarm.fatigueDriving;
    put(rec, 'fatigueDegree', num(at(v, 5)));
  } else put(rec, 'warningType', warning);
  groupWithOdometer(v, 8, rec);
  return [rec];
}

/** `GTDTT`: transparent data as hex; a fuel sensor `COMB` line carries the fuel level. */
export function decodeDtt({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  const hex = at(v, 8);
  if (!RE.hex.test(hex) || hex.length % 2) bad('bad DTT data');
  const data = Buffer.from(hex, 'hex').toString('latin1');
  const comb = data.indexOf('COMB');
  if (comb >= 0) put(rec, Attr.fuel, num(data.slice(comb).split(',')[2]));
  else put(rec, Attr.result, data);
  return [rec];
}

/** Accessory fields of GTBAA (bits 0..5 of the append mask) and GTBID (bits 1 and 3). */
const BAA_FIELDS: Array<[number, string, (s: string) => string | number | undefined]> = [
  [0, 'accessoryName', (s) => s],
  [1, 'accessoryMac', (s) => s],
  [2, 'accessoryStatus', num],
  [3, 'accessoryVoltage', (s) => (num(s) !== undefined ? num(s)! / 1000 : undefined)],
  [4, 'accessoryTemp', num],
  [5, 'accessoryHumidity', num],
];

export function decodeAccessory({ v, type }: Msg): DeviceRecord[] {
  const rec = newRecord();
  let i = type === 'BAA' ? 8 : 6; // position of the append mask
  const mask = hexNum(at(v, i++)) ?? 0;
  for (const [b, key, conv] of BAA_FIELDS) {
    if (type === 'BID' && b !== 1 && b !== 3) continue;
    if (bit(mask, b)) put(rec, key, conv(at(v, i++)));
  }
  groupWithOdometer(v, i, rec);
  return [rec];
}

/** `GTOBD`: OBD-II data (positional after the echoed VIN), then location and mileage. */
export function decodeObd({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  let i = 3;
  if (VIN.test(at(v, i))) put(rec, Attr.vin, v[i]);
  i += 4; // vin, device name, report type, report mask
  if (VIN.test(at(v, i))) put(rec, Attr.vin, v[i]);
  i++;
  i += 3; // obd connection, obd voltage, supported pids
  put(rec, Attr.rpm, num(at(v, i++)));
  put(rec, Attr.obdSpeed, num(at(v, i++)));
  put(rec, Attr.coolantTemp, num(at(v, i++)));
  put(rec, Attr.fuelConsumption, num(at(v, i++)));
  const anchor = findCoordinates(v, i);
  if (anchor >= 0) groupWithOdometer(v, anchor - 4, rec);
  return [rec];
}

/** `GTCAN` report-mask fields in bit order of appearance: [bit, attribute, conversion]. */
