/**
 * Suntech trackers (ST300/ST340/ST500/ST600/SA200/ST4xx/ST910 legacy text, the "universal" text and binary
 * formats of ST4300/ST8300..., and the legacy zip format).
 *
 *   legacy     `ST300STT;<id>;<model>;<fw>;<yyyymmdd>;<hh:mm:ss>;<cell>;<lat>;<lon>;<km/h>;<course>;<sats>;<fix>;
 *              <dist m>;<power V>;<io>;<type fields>[;<hour meter min>;<backup V>;<real time 1|0>;...]`
 *              (SA200 has no model, ST500 no cell, ST600 adds mcc;mnc;lac;rssi after the cell)
 *   universal  `STT;<id>;<hex field mask>;...`: bit n of the mask says whether field n is present
 *   UEX        serial data: `<len>;<len bytes, may hold ; and CR LF>;<checksum>`; 0x00/0x01 travel as 01 10 / 01 11
 *   zip        0x02 <u16 len> <hdr> <BCD id> ... 0x03;  binary universal: 0x81/0x82 <u16 len> <id> <u24 mask> ...
 *   command replies `...CMD;Res;<id>;<text>` / `RES;<id>;<text>` become `result` records.
 * Text frames end with CR; CR LF inside UEX serial data does not end a frame. Devices expect no ACKs.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 8192;
const CR = 0x0d;
const LF = 0x0a;

// ---------------------------------------------------------------------------------------------- text fields

/** A cursor over `;`-separated fields that also reads raw runs (UEX serial data). Reads past the end throw. */
class Fields {
  private pos = 0;
  private done = false;
  constructor(readonly s: string) {}
  has(): boolean {
    return !this.done;
  }
  /** Fields left, as `split(';')` would count them. */
  left(): number {
    if (this.done) return 0;
    let n = 1;
    for (let i = this.s.indexOf(';', this.pos); i >= 0; i = this.s.indexOf(';', i + 1)) n++;
    return n;
  }
  next(): string {
    if (this.done) throw new DecodeError('suntech: missing field');
    const i = this.s.indexOf(';', this.pos);
    if (i < 0) {
      this.done = true;
      return this.s.slice(this.pos);
    }
    const v = this.s.slice(this.pos, i);
    this.pos = i + 1;
    return v;
  }
  num(what = 'number'): number {
    const v = this.next();
    if (!/^[-+]?\d+(\.\d+)?$/.test(v)) throw new DecodeError(`suntech: bad ${what}: ${v}`);
    return Number(v);
  }
  hex(what = 'hex'): number {
    const v = this.next();
    if (!/^[0-9a-fA-F]{1,12}$/.test(v)) throw new DecodeError(`suntech: bad ${what}: ${v}`);
    return parseInt(v, 16);
  }
  skip(n = 1): void {
    for (let i = 0; i < n; i++) this.next();
  }
  rest(): string[] {
    const out: string[] = [];
    while (this.has()) out.push(this.next());
    return out;
  }
  /**
   * Serial data of declared length `n`: whole fields are taken until they cover `n` characters (the data may
   * hold `;`, and devices count a CR LF they do not always send), then 01 10 / 01 11 are unescaped.
   */
  raw(n: number): Buffer {
    const parts: string[] = [];
    for (let left = n; left > 0 && this.has(); ) {
      const v = this.next();
      parts.push(v);
      left -= v.length + 1;
    }
    const text = parts.join(';');
    const out: number[] = [];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x01 && (text.charCodeAt(i + 1) & 0xfe) === 0x10) out.push(text.charCodeAt(++i) - 0x10);
      else out.push(c & 0xff);
    }
    return Buffer.from(out);
  }
}

function utc(date: string, time: string): number {
  const d = /^(\d{4})(\d\d)(\d\d)$/.exec(date);
  const t = /^(\d\d):(\d\d):(\d\d)$/.exec(time);
  if (!d || !t) throw new DecodeError(`suntech: bad date/time ${date} ${time}`);
  return Date.UTC(+d[1], +d[2] - 1, +d[3], +t[1], +t[2], +t[3]);
}

const int = (v: string): number => {
  if (!/^[-+]?\d+$/.test(v)) throw new DecodeError(`suntech: bad integer ${v}`);
  return Number(v);
};

/** Input/output states come as bit strings (`00000101`, rightmost = bit 0) or plain numbers. */
const bits = (v: string): number => (/^[01]{2,}$/.test(v) ? parseInt(v, 2) : int(v));

// ---------------------------------------------------------------------------------------------- alarms

/** EMG ids. */
const EMERGENCIES: Record<number, string> = { 1: Alarm.sos, 2: Alarm.parking, 3: Alarm.powerCut, 5: Alarm.door, 6: Alarm.door, 7: Alarm.movement, 8: Alarm.vibration };

/** ALT ids. */
const ALERTS: Record<number, string> = {
  1: Alarm.overspeed,
  5: Alarm.geofenceExit,
  6: Alarm.geofenceEnter,
  14: Alarm.lowBattery,
  15: Alarm.vibration,
  16: Alarm.accident,
  40: Alarm.powerRestored,
  41: Alarm.powerCut,
  42: Alarm.sos,
  46: Alarm.hardAcceleration,
  47: Alarm.hardBraking,
  50: Alarm.jamming,
  132: Alarm.door,
};

function setAlarm(attrs: Record<string, AttrValue>, alarm: string | undefined): void {
  if (alarm) attrs[Attr.alarm] = alarm;
}

// ---------------------------------------------------------------------------------------------- UEX serial data

/** Serial accessory data: fuel sensors (`CabAVL...`, `N_x=`), temperatures (`t_x=`), driver ids (`GTSL|...`). */
function decodeSerial(attrs: Record<string, AttrValue>, data: Buffer): void {
  const printable = data.every((b) => b >= 0x20 || b === CR || b === LF);
  if (!printable) {
    attrs.serial = data.toString('hex');
    return;
  }
  let totalFuel = 0;
  for (const item of data.toString('latin1').split(';')) {
    const text = item.trim();
    if (text.startsWith('CabAVL')) {
      const parts = text.split(',');
      for (const [i, key] of [[2, 'fuel1'], [3, 'fuel2']] as const) {
        const v = Number(parts[i]);
        if (v > 0) {
          attrs[key] = v;
          totalFuel += v;
        }
      }
    } else if (text.startsWith('GTSL')) {
      const id = text.split('|')[4];
      if (id) attrs[Attr.driverUniqueId] = id;
    } else if (/^[tNQ]_\w=[0-9A-Fa-f]+(\.\d*)?$/.test(text)) {
      const [key, raw] = text.split('=');
      const value = parseInt(raw.split('.')[0], 16);
      if (key[0] === 't') attrs[indexed.temp(Number(key[2]) || 0)] = value;
      else if (key[0] === 'N') {
        attrs[`fuel${key[2]}`] = value;
        totalFuel += value;
      } else attrs.drivingQuality = value;
    } else if (text) attrs.serial = text;
  }
  if (totalFuel > 0) attrs[Attr.fuel] = totalFuel;
}

// ---------------------------------------------------------------------------------------------- legacy ST300/ST500/ST600/SA200

/** Options that the device configuration decides (they change which fields follow the standard ones). */
interface Options {
  hbm: number;
  includeAdc: boolean;
  includeRpm: boolean;
  includeTemp: boolean;
  protocolType: number;
}

function options(ctx: DecodeContext): Options {
  const c = ctx.config;
  return {
    hbm: Number(c.hbm ?? 0) || 0,
    includeAdc: c.includeAdc === true || c.includeAdc === 'true',
    includeRpm: c.includeRpm === true || c.includeRpm === 'true',
    includeTemp: c.includeTemp === true || c.includeTemp === 'true',
    protocolType: Number(c.protocolType ?? 0) || 0,
  };
}

function setIoString(attrs: Record<string, AttrValue>, io: string): void {
  if (io.length < 6) return;
  attrs[Attr.ignition] = io[0] === '1';
  for (let i = 1; i <= 3; i++) attrs[indexed.in(i)] = io[i] === '1';
  for (let i = 1; i <= 2; i++) attrs[indexed.out(i)] = io[3 + i] === '1';
}

/** The fields after the report-specific ones: hour meter, backup battery, ADCs, RPM, driver, temperatures, cell. */
function decodeHbm(rec: DeviceRecord, f: Fields, o: Options): void {
  const a = rec.attributes;
  if (o.hbm < 1) return;
  if (f.has()) a[Attr.hours] = f.num('hour meter') * 60000;
  if (f.has()) a[Attr.battery] = f.num('battery');
  if (f.has() && f.next() === '0') a[Attr.archive] = true;
  if (o.includeAdc) {
    for (let i = 1; i <= 3 && f.has(); i++) {
      const v = f.next();
      if (v) a[indexed.adc(i)] = Number(v) || 0;
    }
  }
  if (o.includeRpm && f.has()) a[Attr.rpm] = f.num('rpm');
  if (f.left() >= (o.hbm === 1 ? 2 : 7)) {
    const driver = f.next();
    if (driver) a[Attr.driverUniqueId] = driver;
    f.skip(); // driver registered
  }
  if (o.includeTemp) {
    for (let i = 1; i <= 3 && f.has(); i++) {
      const t = f.next();
      const v = t.slice(t.indexOf(':') + 1);
      if (v) a[indexed.temp(i)] = Number(v);
    }
  }
  if (o.hbm >= 2 && f.left() >= 5) {
    const cid = f.num('cid');
    const mcc = f.num('mcc');
    const mnc = f.num('mnc');
    const rssi = f.num('rssi');
    const lac = f.num('lac');
    rec.cells = [{ mcc, mnc, lac, cid, rssi }];
  }
}

function decodeLegacy(values0: string, f: Fields, o: Options): DecodeResult {
  const model = values0.slice(0, 5);
  const type = values0.slice(5);
  let id = f.has() ? f.next() : '';
  if (id === 'Res') {
    id = f.next();
    return { deviceId: id, records: [{ attributes: { [Attr.result]: f.rest().join(';') } }] };
  }
  if (!/^\w+$/.test(id)) return {};
  if (!['STT', 'EMG', 'EVT', 'ALT', 'UEX'].includes(type)) return { deviceId: id }; // ALV keep-alive and the like
  const attrs: Record<string, AttrValue> = { type };
  const rec: DeviceRecord = { attributes: attrs };
  if (model.startsWith('ST3') || model === 'ST500' || model === 'ST600') f.skip(); // model id
  attrs.versionFw = f.next();
  rec.time = utc(f.next(), f.next());
  if (model !== 'ST500') {
    const cid = f.hex('cell');
    if (model === 'ST600') rec.cells = [{ cid, mcc: f.num('mcc'), mnc: f.num('mnc'), lac: f.hex('lac'), rssi: f.num('rssi') }];
  }
  rec.lat = f.num('latitude');
  rec.lng = f.num('longitude');
  rec.speed = f.num('speed');
  rec.course = f.num('course');
  rec.satellites = f.num('satellites');
  rec.valid = f.next() === '1';
  attrs[Attr.odometer] = f.num('distance');
  attrs[Attr.power] = f.num('power');
  setIoString(attrs, f.next());
  switch (type) {
    case 'STT':
      attrs[Attr.status] = f.num('status');
      attrs[Attr.index] = f.num('index');
      break;
    case 'EMG':
      setAlarm(attrs, EMERGENCIES[f.num('emergency')]);
      break;
    case 'EVT':
      attrs[Attr.event] = f.num('event');
      break;
    case 'ALT':
      setAlarm(attrs, ALERTS[f.num('alert')]);
      break;
    case 'UEX':
      decodeSerial(attrs, f.raw(f.num('serial length')));
      if (f.has()) f.skip(); // checksum
      break;
  }
  decodeHbm(rec, f, o);
  return { deviceId: id, records: [rec] };
}

// ---------------------------------------------------------------------------------------------- ST4xx (cell list reports)

function decodeSt4(values0: string, f: Fields): DecodeResult {
  const type = values0.slice(5);
  const id = f.next();
  if (!/^\w+$/.test(id)) return {};
  if (type !== 'STT' && type !== 'ALT') return { deviceId: id };
  const attrs: Record<string, AttrValue> = { type, versionFw: f.next() };
  const rec: DeviceRecord = { attributes: attrs, cells: [] };
  const model = f.num('model');
  if (model === 41) f.skip(); // variant
  for (let i = 0; i < 7; i++) {
    const cid = f.num('cid');
    const mcc = f.num('mcc');
    const mnc = f.num('mnc');
    const [lac, rssi] = i === 0 ? [f.num('rssi'), f.num('lac')].reverse() : [f.num('lac'), f.num('rssi')];
    f.skip(); // timing advance
    if (cid > 0) rec.cells!.push({ mcc, mnc, lac, cid, rssi });
  }
  attrs[Attr.battery] = f.num('battery');
  if (f.next() === '0') attrs[Attr.archive] = true;
  attrs[Attr.index] = f.num('index');
  attrs[Attr.status] = f.num('status');
  let next = f.next();
  if (next.length === 3) next = f.next(); // collaborative network (short form)
  if (model === 41) {
    // `next` is the collaborative network field; temperature and motion follow
    attrs[Attr.deviceTemp] = Number(f.next()) || 0;
    attrs[Attr.motion] = f.next() === '2';
    next = f.has() ? f.next() : '';
  }
  if (!next) return { deviceId: id, records: [rec] };
  rec.time = utc(next, f.next());
  rec.lat = f.num('latitude');
  rec.lng = f.num('longitude');
  rec.speed = f.num('speed');
  rec.course = f.num('course');
  rec.satellites = f.num('satellites');
  rec.valid = f.next() === '1';
  return { deviceId: id, records: [rec] };
}

// ---------------------------------------------------------------------------------------------- ST910

function decodeSt9(f: Fields, o: Options): DecodeResult {
  const type = f.next();
  if (type !== 'Location' && type !== 'Emergency' && type !== 'Alert') return {};
  const id = f.next();
  const attrs: Record<string, AttrValue> = {};
  const rec: DeviceRecord = { attributes: attrs };
  if (type !== 'Location') attrs[Attr.alarm] = Alarm.general;
  if (type !== 'Alert' || o.protocolType === 0) attrs.versionFw = f.next();
  rec.time = utc(f.next(), f.next());
  if (o.protocolType === 1) f.skip(); // cell
  rec.lat = f.num('latitude');
  rec.lng = f.num('longitude');
  rec.speed = f.num('speed');
  rec.course = f.num('course');
  rec.valid = f.next() === '1';
  if (o.protocolType === 1) attrs[Attr.odometer] = f.num('odometer');
  return { deviceId: id, records: [rec] };
}

// ---------------------------------------------------------------------------------------------- universal text

const has = (mask: number, bit: number) => Math.floor(mask / 2 ** bit) % 2 === 1;
/** The field mask a BLE report implies (model, firmware, date, time, latitude, longitude). */
const BLE_MASK = 0b1100000110110;

function decodeUniversal(type: string, f: Fields): DecodeResult {
  const id = f.next();
  if (!/^\w+$/.test(id)) return {};
  if (type === 'RES') return { deviceId: id, records: [{ attributes: { [Attr.result]: f.rest().join(';') } }] };
  if (!['STT', 'ALT', 'BLE', 'UEX'].includes(type)) return { deviceId: id };
  const attrs: Record<string, AttrValue> = { type };
  const rec: DeviceRecord = { attributes: attrs };
  const mask = type === 'BLE' ? BLE_MASK : f.hex('mask');
  if (has(mask, 1)) f.skip(); // model
  if (has(mask, 2)) attrs.versionFw = f.next();
  if (has(mask, 3) && f.next() === '0') attrs[Attr.archive] = true;
  if (has(mask, 4) && has(mask, 5)) rec.time = utc(f.next(), f.next());
  const cid = has(mask, 6) ? f.hex('cell') : undefined;
  const mcc = has(mask, 7) ? f.num('mcc') : 0;
  const mnc = has(mask, 8) ? f.num('mnc') : 0;
  const lac = has(mask, 9) ? f.hex('lac') : 0;
  if (cid !== undefined) rec.cells = [{ mcc, mnc, lac, cid }];
  if (has(mask, 10)) attrs[Attr.rssi] = f.num('rssi');
  if (has(mask, 11)) rec.lat = f.num('latitude');
  if (has(mask, 12)) rec.lng = f.num('longitude');
  if (type === 'BLE') {
    decodeBleTags(rec, f);
    return { deviceId: id, records: [rec] };
  }
  if (has(mask, 13)) rec.speed = f.num('speed');
  if (has(mask, 14)) rec.course = f.num('course');
  if (has(mask, 15)) rec.satellites = f.num('satellites');
  if (has(mask, 16)) rec.valid = f.next() === '1';
  if (has(mask, 17)) {
    const input = bits(f.next());
    attrs[Attr.input] = input;
    attrs[Attr.ignition] = (input & 1) === 1;
  }
  if (has(mask, 18)) attrs[Attr.output] = bits(f.next());
  if (type === 'UEX') {
    decodeSerial(attrs, f.raw(f.num('serial length')));
    return { deviceId: id, records: [rec] }; // checksum and accessory fields follow
  }
  decodeReportFields(type, mask, attrs, f);
  return { deviceId: id, records: [rec] };
}

function decodeBleTags(rec: DeviceRecord, f: Fields): void {
  rec.valid = true;
  const count = f.num('tag count');
  for (let i = 1; i <= count && i <= 32; i++) {
    rec.attributes[`tag${i}Rssi`] = f.num('tag rssi');
    f.skip(2); // rssi min, max
    rec.attributes[`tag${i}Id`] = f.next();
    rec.attributes[`tag${i}Samples`] = f.num('tag samples');
    rec.attributes[`tag${i}Major`] = f.num('tag major');
    rec.attributes[`tag${i}Minor`] = f.num('tag minor');
  }
}

/** Mask bits 19-23: alert id/modifier/data (ALT) or mode/reason/index (STT), reserved, assigned fields. */
function decodeReportFields(type: string, mask: number, attrs: Record<string, AttrValue>, f: Fields): void {
  if (type === 'ALT') {
    if (has(mask, 19)) setAlarm(attrs, ALERTS[f.num('alert')]);
    if (has(mask, 20) && f.has()) attrs.alertModifier = f.next();
    if (has(mask, 21) && f.has()) attrs.alertData = f.next();
  } else {
    if (has(mask, 19)) attrs.mode = f.num('mode');
    if (has(mask, 20)) attrs.reason = f.num('reason');
    if (has(mask, 21)) attrs[Attr.index] = f.num('index');
  }
  if (has(mask, 22) && f.has()) f.skip(); // reserved
  if (has(mask, 23) && f.has()) {
    const assign = f.hex('assign mask');
    for (let i = 0; i <= 31 && f.has(); i++) if (has(assign, i)) attrs[`assign${i + 1}`] = f.next();
  } else {
    // fields the device assigned without announcing them in the mask, numbered in order
    let n = 1;
    for (const v of f.rest()) if (v) attrs[`assign${n++}`] = v;
  }
}

// ---------------------------------------------------------------------------------------------- travel (HTE) and crash (CRR)

function decodeTravel(f: Fields): DecodeResult {
  const id = f.next();
  const values = f.rest();
  return { deviceId: id, records: [{ attributes: { [Attr.driverUniqueId]: values[values.length - 1] ?? '' } }] };
}

/** Crash report: `CRR;<id>;<part>;<parts>;<len>;<len bytes>`: crash time, then accelerometer samples. */
function decodeCrash(frame: Buffer): DecodeResult {
  const head = frame.toString('latin1', 0, Math.min(frame.length, 40)).split(';');
  if (head.length < 6) throw new DecodeError('suntech: short crash report');
  const id = head[1];
  const start = head.slice(0, 5).join(';').length + 1;
  const r = new Reader(frame, start, Math.min(frame.length, start + int(head[4])));
  const time = Date.UTC(2000 + r.u8(), r.u8() - 1, r.u8(), r.u8(), r.u8(), r.u8());
  const samples: number[][] = [];
  while (r.remaining >= 36 && samples.length < 64) {
    r.skip(12); // sample time and state
    for (let i = 0; i < 4; i++) samples.push([r.i16le(), r.i16le(), r.i16le()]);
  }
  return { deviceId: id, records: [{ time, attributes: { [Attr.alarm]: Alarm.accident, gSensor: JSON.stringify(samples) } }] };
}

// ---------------------------------------------------------------------------------------------- zip and binary

const bcd = (r: Reader, n: number): number => {
  const h = r.hex(n);
  if (!/^\d+$/.test(h)) throw new DecodeError('suntech: bad BCD');
  return Number(h);
};

/** Legacy zip report: 0x02, u16 length, header (0x10 STT, 0x11 EMG, 0x12 EVT, 0x13 ALT), ..., 0x03. */
function decodeZip(frame: Buffer): DecodeResult {
  const r = new Reader(frame, 0, frame.length - 1); // ETX
  r.skip(3);
  const kind = r.u8();
  if (kind < 0x10 || kind > 0x13) return {};
  const id = r.hex(5).slice(0, 9);
  r.skip(3); // model, firmware
  const attrs: Record<string, AttrValue> = {};
  const rec: DeviceRecord = { attributes: attrs };
  rec.time = Date.UTC(2000 + r.u8(), r.u8() - 1, r.u8(), r.u8(), r.u8(), r.u8());
  r.skip(3); // cell
  let lat = r.u8() + bcd(r, 3) / 1e6;
  let lng = r.u8() + bcd(r, 3) / 1e6;
  rec.speed = r.u16() + bcd(r, 1) / 100;
  rec.course = r.u16() + bcd(r, 1) / 100;
  const flags = r.u8();
  if (flags & 0x40) lat = -lat;
  if (flags & 0x20) lng = -lng;
  Object.assign(rec, { lat, lng, valid: (flags & 0x80) !== 0, satellites: flags & 0x1f });
  attrs[Attr.odometer] = r.u32();
  attrs[Attr.power] = r.u8() + bcd(r, 1) / 100;
  const io = r.u8();
  attrs[Attr.ignition] = (io & 1) !== 0;
  for (let i = 1; i <= 3; i++) attrs[indexed.in(i)] = (io & (1 << i)) !== 0;
  for (let i = 1; i <= 2; i++) attrs[indexed.out(i)] = (io & (1 << (i + 3))) !== 0;
  const code = r.u8();
  if (kind === 0x10) {
    attrs[Attr.status] = code;
    if (r.remaining >= 2) attrs[Attr.index] = r.u16();
  } else if (kind === 0x11) setAlarm(attrs, EMERGENCIES[code]);
  else if (kind === 0x12) attrs[Attr.event] = code;
  else setAlarm(attrs, ALERTS[code]);
  if (r.remaining >= 7) {
    attrs[Attr.hours] = r.u32() * 60000;
    attrs[Attr.battery] = r.u8() + bcd(r, 1) / 100;
    if (r.u8() === 0) attrs[Attr.archive] = true;
  }
  return { deviceId: id, records: [rec] };
}

/** Sign-and-magnitude 32-bit coordinate in millionths of a degree. */
const signedMagnitude = (v: number): number => ((v & 0x80000000) !== 0 ? -(v & 0x7fffffff) : v) / 1e6;

/** Binary universal report (0x81 status, 0x82 alert): the text fields of the same mask, packed. */
function decodeBinary(frame: Buffer): DecodeResult {
  const r = new Reader(frame);
  const kind = r.u8();
  r.skip(2); // length
  const id = r.hex(5);
  const mask = r.u24();
  const attrs: Record<string, AttrValue> = {};
  const rec: DeviceRecord = { attributes: attrs };
  if (has(mask, 1)) r.skip(1); // model
  if (has(mask, 2)) attrs.versionFw = `${r.u8()}.${r.u8()}.${r.u8()}`;
  if (has(mask, 3) && r.u8() === 0) attrs[Attr.archive] = true;
  if (has(mask, 4) && has(mask, 5)) rec.time = Date.UTC(2000 + r.u8(), r.u8() - 1, r.u8(), r.u8(), r.u8(), r.u8());
  const cid = has(mask, 6) ? r.u32() : 0;
  const mcc = has(mask, 7) ? r.u16() : 0;
  const mnc = has(mask, 8) ? r.u16() : 0;
  const lac = has(mask, 9) ? r.u16() : 0;
  if (cid && mcc) rec.cells = [{ mcc, mnc, lac, cid }];
  if (has(mask, 10)) attrs[Attr.rssi] = r.u8();
  if (has(mask, 11)) rec.lat = signedMagnitude(r.u32());
  if (has(mask, 12)) rec.lng = signedMagnitude(r.u32());
  if (has(mask, 13)) rec.speed = r.u16() / 100;
  if (has(mask, 14)) rec.course = r.u16() / 100;
  if (has(mask, 15)) rec.satellites = r.u8();
  if (has(mask, 16)) rec.valid = r.u8() > 0;
  if (has(mask, 17)) {
    const input = r.u8();
    attrs[Attr.input] = input;
    attrs[Attr.ignition] = (input & 1) !== 0;
  }
  if (has(mask, 18)) attrs[Attr.output] = r.u8();
  const alert = has(mask, 19) ? r.u8() : 0;
  if (kind === 0x82) setAlarm(attrs, ALERTS[alert]);
  if (has(mask, 20)) attrs.alertModifier = r.u16();
  if (has(mask, 21) && alert === 59) attrs[Attr.driverUniqueId] = r.hex(8);
  return { deviceId: id, records: [rec] };
}

// ---------------------------------------------------------------------------------------------- decode

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 3) throw new DecodeError('suntech: short frame');
  if (frame[0] === 0x02) return decodeZip(frame);
  if (frame[1] === 0) {
    ctx.session.universal = true; // remembered so commands can take the matching form
    return decodeBinary(frame);
  }
  if (frame.toString('latin1', 0, 4) === 'CRR;') return decodeCrash(frame);
  let end = frame.length;
  while (end > 0 && (frame[end - 1] === CR || frame[end - 1] === LF)) end--;
  const f = new Fields(frame.toString('latin1', 0, end));
  const prefix = f.next();
  const o = options(ctx);
  if (prefix.length < 5) {
    ctx.session.universal = true;
    return decodeUniversal(prefix, f);
  }
  if (/^[A-Z]{2}\d{3}/.test(prefix)) ctx.session.prefix = prefix.slice(0, 5);
  if (prefix.endsWith('HTE')) return decodeTravel(f);
  if (prefix.startsWith('ST9')) return decodeSt9(f, o);
  if (prefix.startsWith('ST4')) return decodeSt4(prefix, f);
  return decodeLegacy(prefix, f, o);
}

// ---------------------------------------------------------------------------------------------- framing

/** Where a UEX report's serial data ends, so that CR LF inside it does not cut the frame; -1 = need more. */
function serialEnd(buf: Buffer): number {
  const universal = buf.toString('latin1', 0, 4) === 'UEX;';
  let lenField = universal ? -1 : legacyLengthField(buf.toString('latin1', 0, 5));
  let pos = 0;
  for (let field = 0; pos < buf.length; field++) {
    const semi = buf.indexOf(0x3b, pos);
    if (semi < 0) return -1;
    const value = buf.toString('latin1', pos, semi);
    if (universal && field === 2) lenField = 3 + universalFieldCount(parseInt(value, 16) || 0);
    if (field === lenField) return skipSerial(buf, semi + 1, Number(value) || 0);
    pos = semi + 1;
  }
  return -1;
}

/** Index of the serial length field in legacy UEX reports (SA200: no model; ST500: no cell; ST600: 4 cell fields more). */
function legacyLengthField(model: string): number {
  if (model === 'ST600') return 20;
  if (model.startsWith('ST3')) return 16;
  return 15;
}

/** Fields present before the serial length in a universal UEX report (mask bits 1..18). */
function universalFieldCount(mask: number): number {
  let n = 0;
  for (let bit = 1; bit <= 18; bit++) if (has(mask, bit) && (bit !== 4 || has(mask, 5)) && (bit !== 5 || has(mask, 4))) n++;
  return n;
}

/** Skip `n` unescaped serial bytes from `at`; returns the offset after them or -1 if more bytes are needed. */
function skipSerial(buf: Buffer, at: number, n: number): number {
  let i = at;
  for (let k = 0; k < n; k++) {
    if (i >= buf.length) return -1;
    i += buf[i] === 0x01 && (buf[i + 1] === 0x10 || buf[i + 1] === 0x11) ? 2 : 1;
  }
  return i;
}

function frameText(buf: Buffer): { frame: Buffer; consumed: number } | null {
  let searchFrom = 0;
  const head = buf.toString('latin1', 0, Math.min(buf.length, 12));
  if (/^([A-Z]{2}\d{3})?UEX;/.test(head)) {
    const end = serialEnd(buf);
    if (end < 0) return guard(buf);
    searchFrom = end;
  } else if (head.startsWith('CRR;')) {
    const parts = buf.toString('latin1', 0, Math.min(buf.length, 40)).split(';');
    if (parts.length < 6) return guard(buf);
    searchFrom = parts.slice(0, 5).join(';').length + 1 + (Number(parts[4]) || 0);
  }
  const cr = buf.indexOf(CR, searchFrom);
  if (cr < 0) return guard(buf);
  return { frame: buf.subarray(0, cr), consumed: cr + 1 };
}

function guard(buf: Buffer): null {
  if (buf.length > MAX_FRAME) throw new FrameError('suntech: frame too large');
  return null;
}

/** Stray line ends between frames are consumed with the next frame. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let skip = 0;
      while (skip < buffer.length && (buffer[skip] === CR || buffer[skip] === LF)) skip++;
      const cut = nextFrame(buffer.subarray(skip));
      return cut && { frame: cut.frame, consumed: cut.consumed + skip };
    },
  };
}

function nextFrame(buf: Buffer): { frame: Buffer; consumed: number } | null {
  if (!buf.length) return null;
  const b0 = buf[0];
  if (b0 === 0x02 || (b0 >= 0x80 && (buf.length < 2 || buf[1] === 0))) {
    if (buf.length < 3) return null;
    const total = 3 + buf.readUInt16BE(1) + (b0 === 0x02 ? 1 : 0);
    if (total > MAX_FRAME) throw new FrameError('suntech: frame too large');
    return buf.length >= total ? { frame: buf.subarray(0, total), consumed: total } : null;
  }
  if (b0 < 0x20 || b0 > 0x7e) throw new FrameError('suntech: not a Suntech frame');
  return frameText(buf);
}

// ---------------------------------------------------------------------------------------------- encode

/** Universal command codes and legacy command words. */
const UNIVERSAL: Record<string, (c: Command) => string | undefined> = {
  rebootDevice: () => '03;03',
  positionSingle: () => '03;01',
  engineStop: () => '04;01',
  engineResume: () => '04;02',
  alarmArm: () => '04;03',
  alarmDisarm: () => '04;04',
  outputControl: (c) => ({ 1: ['04;02', '04;01'], 2: ['04;04', '04;03'], 3: ['04;10', '04;09'] })[Number(c.attributes.index)]?.[c.attributes.data === '1' || c.attributes.data === 1 ? 1 : 0],
};
const LEGACY: Record<string, (c: Command) => string> = {
  rebootDevice: () => 'Reboot',
  positionSingle: () => 'StatusReq',
  engineStop: () => 'Enable1',
  engineResume: () => 'Disable1',
  alarmArm: () => 'Enable2',
  alarmDisarm: () => 'Disable2',
  outputControl: (c) => `${c.attributes.data === '1' || c.attributes.data === 1 ? 'Enable' : 'Disable'}${c.attributes.index ?? 1}`,
};

/**
 * The decoder keeps `session.universal` / `session.prefix`; the gateway passes them as encoder config:
 * `config.universal` (the device speaks the universal format) and `config.prefix` (the model prefix of its reports,
 * e.g. `ST300`) choose the command form; without them the SA200 legacy form is used.
 */
function encode(command: Command, ctx: EncodeContext): Buffer {
  const id = ctx.deviceId;
  if (command.type === 'custom') return Buffer.from(String(command.attributes.data ?? ''), 'latin1');
  if (ctx.config.universal === true) {
    const body = UNIVERSAL[command.type]?.(command);
    if (!body) throw new Error(`suntech: unsupported command ${command.type}`);
    return Buffer.from(`CMD;${id};${body}\r`, 'latin1');
  }
  const build = LEGACY[command.type];
  if (!build) throw new Error(`suntech: unsupported command ${command.type}`);
  const prefix = typeof ctx.config.prefix === 'string' && /^[A-Z0-9]{5}$/.test(ctx.config.prefix) ? ctx.config.prefix : 'SA200';
  return Buffer.from(`${prefix}CMD;${id};02;${build(command)}\r`, 'latin1');
}

export const protocol: Protocol = {
  name: 'suntech',
  defaultPort: 5011,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom', ...Object.keys(LEGACY)],
  carriesText: false,
  encode,
};
