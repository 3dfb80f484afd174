/** GT06 short (0x7878) messages: one decoder per message type, chosen by rule. */
import { Alarm, Attr, indexed } from '../attributes.ts';
import type { Cell, DecodeResult, DeviceRecord } from '../types.ts';
import { T, LBS_LIST_TYPES, LBS_LIST_NO_WIFI, type Msg, type Out, hasGps, hasLbs, ntFrame, hasStatus, addAlarm, readDate, readBcdDate, readGps, readLbs, readStatusByte, statusAlarm, EVENT_ALARMS, setBatteryGrade, buildFrame, ack } from './messages.ts';

// ---------------------------------------------------------------------------------------------
// Short (0x7878) messages
// ---------------------------------------------------------------------------------------------

export function decodeLogin(m: Msg, session: Record<string, unknown>): DecodeResult {
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
export function decodeOther(m: Msg): Out {
  const command = m.type === T.command0 || m.type === T.command1 || m.type === T.command2;
  return { reply: command ? null : ack(m) };
}

type Rule = [(m: Msg) => boolean, (m: Msg) => Out];

/** Short-frame dispatch, first match wins (several type codes mean different things per model). */
export const SHORT_RULES: Rule[] = [
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
