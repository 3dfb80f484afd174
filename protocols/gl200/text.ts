/** GL200 text report decoders, second half (CAN, Wi-Fi, cells, basic reports), the decoder table and the text entry point. */
import { Alarm, Attr, indexed } from '../attributes.ts';
import type { Cell, DecodeContext, DecodeResult, DeviceRecord } from '../types.ts';
import { MODELS, RE, bad, at, num, hexNum, countOf, parseTime, newRecord, put, fillLast, remember, putCell, findCoordinates } from './fields.ts';
import { type Msg, type TextDecoder, decodeInf, decodeVer, decodeFri, decodeEri, bit, decodeIgn, decodeDat, decodeLsw, decodeIda, decodeDar, decodeDtt, decodeAccessory, decodeObd } from './reports.ts';

type Conv = (s: string) => string | number | boolean | undefined;
const strip = (prefix: string) => (s: string) => num(s.startsWith(prefix) ? s.slice(prefix.length) : s);
const CAN_FIELDS: Array<[number, string | null, Conv]> = [
  [0, Attr.vin, (s) => s],
  [1, Attr.ignition, (s) => (num(s) !== undefined ? num(s)! > 0 : undefined)],
  [2, 'obdOdometer', (s) => (s.startsWith('H') && num(s.slice(1)) !== undefined ? num(s.slice(1))! * 100 : undefined)],
  [3, Attr.fuelUsed, (s) => (s.startsWith('K') ? undefined : strip('L')(s))],
  [5, Attr.rpm, num],
  [4, Attr.obdSpeed, num],
  [6, Attr.coolantTemp, num],
  [7, Attr.fuelConsumption, (s) => (s.startsWith('L/H') ? num(s.slice(3)) : undefined)],
  [8, Attr.fuel, (s) => num(s.slice(1))],
  [9, 'range', (s) => (num(s) !== undefined ? num(s)! * 100 : undefined)],
  [10, Attr.throttle, num],
  [11, Attr.hours, (s) => (num(s) !== undefined ? Math.round(num(s)! * 3600000) : undefined)],
  [12, 'drivingTime', num],
  [13, 'idleHours', num],
  [14, 'idleFuelConsumption', (s) => (s.startsWith('K') ? undefined : strip('L')(s))],
  [15, 'axleWeight', num],
  [16, 'tachographInfo', hexNum],
  [17, 'indicators', hexNum],
  [18, 'lights', hexNum],
  [19, 'doors', hexNum],
  [20, 'vehicleOverspeed', num],
  [21, 'engineOverspeed', num],
];

/** Expansion-mask fields (null attribute = skipped). */
const CAN_EXT_FIELDS: Array<[number, string | null, Conv]> = [
  [0, 'adBlueLevel', (s) => num(/^[LP]/.test(s) ? s.slice(1) : s)],
  [1, 'axleWeight1', num],
  [2, 'axleWeight3', num],
  [3, 'axleWeight4', num],
  [4, null, num], [5, null, num], [6, null, num], // tachograph overspeed, motion, direction
  [7, indexed.adc(1), (s) => (num(s) !== undefined ? num(s)! / 1000 : undefined)],
  [8, null, num], [9, null, num], [10, null, num], [11, null, num], [12, null, num], [13, null, num], [14, null, num],
  [15, 'driver1Card', (s) => s],
  [16, 'driver2Card', (s) => s],
  [17, 'driver1Name', (s) => s],
  [18, 'driver2Name', (s) => s],
  [19, 'registration', (s) => s],
  [20, null, num], [21, null, num], [22, null, num], [23, null, num], [24, null, num], [25, null, num],
];

function walkFields(v: string[], i: number, rec: DeviceRecord, mask: number, fields: Array<[number, string | null, Conv]>): number {
  for (const [b, key, conv] of fields) {
    if (!bit(mask, b)) continue;
    const s = at(v, i++);
    if (key && s !== '') put(rec, key, conv(s));
  }
  return i;
}

/** Skips one masked block `<mask>,<one field per set bit>`. */
function skipMasked(v: string[], i: number): number {
  const m = hexNum(at(v, i)) ?? 0;
  let bits = 0;
  for (let b = 0; b < 48; b++) if (bit(m, b)) bits++;
  return i + 1 + bits;
}

/** `GTCAN`: vehicle CAN-bus data, laid out by the CAN report mask and its expansion masks. */
function decodeCan(m: Msg): DeviceRecord[] {
  const { v, model } = m;
  const rec = newRecord();
  const ceu = /^GV35.CEU$/.test(model);
  const mask = hexNum(at(v, 6)) ?? 0;
  let i = walkFields(v, 7, rec, mask, CAN_FIELDS);
  const modelBits = model === 'GV350M' ? [22, 23, 24] : ceu ? [23, 24, 25, 26, 27] : [];
  for (const b of modelBits) if (bit(mask, b)) i++;
  let ext = 0;
  if (bit(mask, 29) && at(v, i++) !== '') ext = hexNum(v[i - 1]) ?? 0;
  i = walkFields(v, i, rec, ext, CAN_EXT_FIELDS);
  if (!ceu && bit(ext, 26)) i++; // tachograph driver 1 working time mask
  if (!ceu && bit(ext, 27)) i++; // tachograph driver 2 working time mask
  if (bit(ext, 28)) i += 1 + (ceu && at(v, i) !== '' ? countOf(v[i]) : 0); // dtc codes
  if (bit(ext, 29)) i++; // gaseous fuel level
  if (bit(ext, 30)) i++; // tachograph information expand
  let can = 0;
  if (bit(ext, 31) && at(v, i++) !== '') can = hexNum(v[i - 1]) ?? 0;
  i = skipCanExpansion(v, i, model, ceu, mask, ext, can);
  if (model !== 'GV355CEU' && bit(mask, 30)) {
    while (at(v, i) === '') i++;
    rec.valid = (num(v[i++]) ?? 0) > 0;
    if (at(v, i) !== '') {
      const valid = rec.valid;
      readCanLocation(v, i, rec);
      rec.valid = valid && rec.lat !== undefined;
      i += 6;
      if (bit(mask, 31)) putCell(rec, v, i);
    }
  }
  return [rec];
}

function readCanLocation(v: string[], i: number, rec: DeviceRecord): void {
  rec.speed = num(at(v, i)) ?? 0;
  rec.course = num(at(v, i + 1)) ?? 0;
  rec.altitude = num(at(v, i + 2)) ?? 0;
  const lng = num(at(v, i + 3));
  const lat = num(at(v, i + 4));
  const time = parseTime(at(v, i + 5));
  if (lng !== undefined && lat !== undefined && time !== undefined) Object.assign(rec, { lng, lat, time });
}

/** Fields of the third CAN mask and the model-specific masked blocks that carry nothing we map. */
function skipCanExpansion(v: string[], i: number, model: string, ceu: boolean, mask: number, ext: number, can: number): number {
  if (bit(can, 0)) i++; // retarder usage
  if (bit(can, 1)) i++; // power mode
  if (model !== 'GV350CEU' && bit(can, 2)) i++; // tachograph timestamp
  if (ceu) {
    for (let b = 4; b <= 12; b++) if (bit(can, b)) i++;
    if (bit(can, 14)) i++; // gross vehicle weight
    if (bit(can, 15)) i += 1 + (at(v, i) === '' ? 0 : countOf(v[i])) * 5; // tyres
    for (let b = 16; b <= 19; b++) if (bit(can, b)) i++;
    if (bit(can, 3)) i = skipMasked(v, i); // e-genset data
    if (bit(mask, 28)) i = skipMasked(v, i); // electric vehicle data
  }
  if (model === 'GV355CEU') {
    for (const b of [26, 27]) if (bit(ext, b)) i = skipMasked(v, i); // tachograph working times
  }
  return i;
}

/** `GTWIF`: Wi-Fi access points seen (no GNSS). */
function decodeWif({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  const macs: string[] = [];
  for (let i = 5; i + 1 < v.length - 3; i += 5) if (RE.hex12.test(v[i])) macs.push(`${v[i]}:${v[i + 1]}`);
  put(rec, 'wifi', macs.join(' '));
  put(rec, Attr.batteryLevel, num(at(v, v.length - 3)));
  return [rec];
}

/** Cell blocks of 6 fields (`mcc,mnc,lac,cid,rxlevel,reserved`) starting at `i`, up to `end`. */
function readCells(v: string[], i: number, end: number, rec: DeviceRecord, max: number): void {
  const cells: Cell[] = [];
  for (let n = 0; n < max && i + 4 < end; n++, i += 6) {
    const [mcc, mnc, lac, cid, rssi] = [num(v[i]), num(v[i + 1]), hexNum(v[i + 2]), hexNum(v[i + 3]), num(v[i + 4])];
    if (mcc !== undefined && mnc !== undefined && lac !== undefined && cid !== undefined) {
      cells.push(rssi !== undefined ? { mcc, mnc, lac, cid, rssi } : { mcc, mnc, lac, cid });
    }
  }
  if (cells.length) rec.cells = cells;
}

/** `GTGSM`: neighbouring and serving cells. */
function decodeGsm({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  readCells(v, 4, v.length - 2, rec, 7);
  return [rec];
}

/** `GTLBS`: battery and up to seven cells. */
function decodeLbs({ v }: Msg): DeviceRecord[] {
  const rec = newRecord();
  put(rec, Attr.batteryLevel, num(at(v, 6)));
  readCells(v, 12, v.length - 2, rec, 7);
  return [rec];
}

/** `GTPNA/GTPFA`: power on / off. */
function decodePna({ type }: Msg): DeviceRecord[] {
  const rec = newRecord();
  rec.attributes[Attr.alarm] = type === 'PNA' ? Alarm.powerOn : Alarm.powerOff;
  return [rec];
}

/** Alarms that a report type stands for. */
const TYPE_ALARMS: Record<string, string> = {
  SOS: Alarm.sos, SPD: Alarm.overspeed, TOW: Alarm.tow, IDL: Alarm.idle,
  EPN: Alarm.powerRestored, MPN: Alarm.powerRestored, EPF: Alarm.powerCut, MPF: Alarm.powerCut,
  BPL: Alarm.lowBattery, STT: Alarm.movement, SWG: Alarm.geofence, TMP: Alarm.temperature, TEM: Alarm.temperature,
  JDR: Alarm.jamming, JDS: Alarm.jamming,
};

/** Harsh behaviour kind in the low nibble of the GTHBM report type. */
const HBM_ALARMS = [Alarm.hardBraking, Alarm.hardAcceleration, Alarm.hardCornering, Alarm.hardBraking, Alarm.hardAcceleration];

/** Report-type effects of the generic decoder. */
const REPORT_TYPE_EFFECTS: Record<string, (rec: DeviceRecord, t: number, m: Msg) => void> = {
  NMR: (rec, t) => (rec.attributes[Attr.motion] = t === 1),
  DIS: (rec, t) => (rec.attributes[indexed.in(t >> 4)] = (t & 0xf) === 1),
  IGL: (rec, t) => (rec.attributes[Attr.ignition] = (t & 0xf) === 1),
  HBM: (rec, t) => {
    if (HBM_ALARMS[t & 0xf]) rec.attributes[Attr.alarm] = HBM_ALARMS[t & 0xf];
  },
  STR: (rec, _t, m) => putStrBattery(rec, m),
  CTN: (rec, _t, m) => putStrBattery(rec, m),
};

function putStrBattery(rec: DeviceRecord, { v, model }: Msg): void {
  if (/^GL5[03]0$/.test(model)) put(rec, Attr.batteryLevel, num(v[8]));
}

/**
 * Any other report: the layouts share `...,hdop,speed,course,altitude,lon,lat,utc,mcc,mnc,lac,cid,...`,
 * so the fix is found by its coordinate pair and the cell by its shape.
 */
function decodeBasic(m: Msg): DeviceRecord[] {
  const { v, type } = m;
  const rec = newRecord();
  const rt = [v[4], v[5]].find((s) => s !== undefined && /^[0-9A-Fa-f]{1,2}$/.test(s));
  if (rt !== undefined) REPORT_TYPE_EFFECTS[type]?.(rec, parseInt(rt, 16), m);
  const k = findCoordinates(v, 4);
  let i = 3;
  if (k >= 0 && k + 2 < v.length) {
    readGroupAt(v, k - 4, rec);
    i = k + 3;
  }
  for (; i + 3 < v.length; i++) {
    if (/^\d{4}$/.test(v[i]) && /^\d{4}$/.test(v[i + 1]) && /^[0-9A-Fa-f]{4}$/.test(v[i + 2]) && /^[0-9A-Fa-f]{4,8}$/.test(v[i + 3])) {
      putCell(rec, v, i);
      break;
    }
  }
  if (rec.lat !== undefined && /^(0|[1-9]\d{0,2})$/.test(v[v.length - 3] ?? '')) put(rec, Attr.batteryLevel, num(v[v.length - 3]));
  if (TYPE_ALARMS[type]) rec.attributes[Attr.alarm] = TYPE_ALARMS[type];
  return rec.lat !== undefined || rec.cells || Object.keys(rec.attributes).length ? [rec] : [];
}

/** hdop..utc of a location group whose longitude is at `i + 4`, without the cell part. */
function readGroupAt(v: string[], i: number, rec: DeviceRecord): void {
  const hdop = num(v[i]);
  if (hdop !== undefined) rec.hdop = hdop;
  rec.speed = num(v[i + 1]) ?? 0;
  rec.course = num(v[i + 2]) ?? 0;
  rec.altitude = num(v[i + 3]) ?? 0;
  rec.lng = Number(v[i + 4]);
  rec.lat = Number(v[i + 5]);
  rec.valid = hdop === undefined || hdop > 0;
  const time = parseTime(v[i + 6]);
  if (time !== undefined) rec.time = time;
}

/** Report type -> decoder; anything else goes to `decodeBasic`. */
const TEXT_DECODERS: Record<string, TextDecoder> = {
  INF: decodeInf, VER: decodeVer, OBD: decodeObd, CAN: decodeCan,
  FRI: decodeFri, GEO: decodeFri, RTL: decodeFri, DOG: decodeFri,
  ERI: decodeEri, IGN: decodeIgn, IGF: decodeIgn, VGN: decodeIgn, VGF: decodeIgn,
  LSW: decodeLsw, TSW: decodeLsw, IDA: decodeIda, WIF: decodeWif, GSM: decodeGsm, PNA: decodePna, PFA: decodePna,
  DAR: decodeDar, DTT: decodeDtt, BAA: decodeAccessory, BID: decodeAccessory, LBS: decodeLbs, DAT: decodeDat,
};

/** Status-only reports: their records never borrow the last known position. */
const STATUS_TYPES = new Set(['INF', 'VER', 'WIF', 'GSM', 'LBS', 'PNA', 'PFA', 'DTT']);

export function decodeText(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const sentence = frame.toString('latin1').replace(/[\r\n\0]+$/, '').replace(/\$$/, '');
  const header = /^\+(RESP|BUFF|ACK|NACK):GT([A-Z0-9]{3})(?:,|$)/.exec(sentence);
  if (!header) bad('not an @Track sentence');
  const [, kind, type] = header!;
  const v = sentence.split(',');
  const gt300 = /^\d{15}$/.test(v[1] ?? ''); // GT300 dialect: no protocol version, IMEI first
  const imei = gt300 ? v[1] : at(v, 2);
  if (!RE.imei.test(imei)) bad(`bad IMEI ${imei}`);
  const count = v[v.length - 1];
  if (kind === 'ACK' || kind === 'NACK') return decodeTextAck(v, type, imei, sentence);
  const result: DecodeResult = { deviceId: imei };
  const sendTime = parseTime(v[v.length - 2]);
  const m: Msg = { v, type, model: modelOf(gt300 ? '' : v[1], ctx), ctx, sendTime };
  let records: DeviceRecord[];
  if (gt300 && type === 'INF') records = []; // GT300 information layout is not decoded
  else if (gt300) records = decodeBasic(m);
  else {
    records = TEXT_DECODERS[type]?.(m) ?? [];
    if (!records.length) records = decodeBasic(m);
  }
  for (const rec of records) {
    rec.attributes.type = type;
    if (kind === 'BUFF') rec.attributes[Attr.archive] = true;
    if (STATUS_TYPES.has(type)) {
      if (rec.time === undefined) rec.time = sendTime;
    } else fillLast(rec, ctx, sendTime);
  }
  remember(records, ctx);
  result.records = records;
  if (ctx.config.ack && RE.count.test(count)) result.reply = Buffer.from(`+SACK:${count}$`, 'latin1');
  return result;
}

/** `+ACK:GTHBD` is the heartbeat (answered with `+SACK:GTHBD`); other ACKs are command replies. */
function decodeTextAck(v: string[], type: string, imei: string, sentence: string): DecodeResult {
  if (type === 'HBD') {
    const count = v[v.length - 1];
    return { deviceId: imei, reply: Buffer.from(`+SACK:GTHBD,${v[1]},${count}$`, 'latin1') };
  }
  const rec = newRecord();
  rec.attributes[Attr.result] = sentence;
  rec.attributes.type = type;
  const time = parseTime(v[v.length - 2]);
  if (time !== undefined) rec.time = time;
  return { deviceId: imei, records: [rec] };
}

function modelOf(version: string, ctx: DecodeContext): string {
  const declared = ctx.config.model ?? ctx.config.modelOverride;
  if (typeof declared === 'string' && declared) return declared.toUpperCase();
  const prefix = (version.length > 6 ? version.slice(0, 6) : version.slice(0, 2)).toUpperCase();
  return MODELS[prefix] ?? '';
}
