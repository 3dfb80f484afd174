/**
 * Totem (AT03/AT05/AT07/AT09 ...) text protocol: `$$<length><id>|<type><body><serial><checksum>`.
 * The length is two hex digits (old firmware) or four decimal digits starting with `0` (newer).
 *
 *   format 1  `$$<ll><imei>|<alarm>$GPRMC,...*cs|<pdop>|<hdop>|<vdop>|<io bits>|<battery time>|<charged><battery><power>|[<adc>|]<lac><cid>|<temp>|<odometer km>|<serial>|<cs>`
 *   format 2  `$$<ll><imei>|<alarm><ddmmyyhhmmss>|<A|V>|<lat>|N|<lon>|E|<knots>|<course>|<hdop>|<io bits>|<charged><battery><power>|<adc>|<lac><cid>|<temp>|<odometer>|<serial>|<cs>`
 *   format 3  `$$<ll><imei>|<alarm><ddmmyyhhmmss><io><charge><battery><power><adc1><adc2><temp1><temp2><lac><cid><A|V><sats><course><speed><pdop><odometer><lat><lon><serial><cs>` (fixed width)
 *   format 4  `$$<llll><type><imei>|<status hex8><yymmddhhmmss><battery/power><adc...><temps><lac><cid>[<mcc><mnc>]<sats><rssi><course><km/h><hdop><odometer><lat><lon>[<temp>]<serial><cs>`
 *             type E2: `...|<yymmddhhmmss>,<lon>,<lat>,<rfid>|<cs>`; type E5: OBD values
 * Replies: format 4 gets `$$0014AA<serial><xor>`, the others `ACK OK\r\n`.
 * Commands: `$$<llll>CF<password>,<code>[,...]<xor>` over the data connection, `*<password>,<code>#` by SMS.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { latin1, nmeaCoordinate, num, utc } from './text.ts';
import {
  DecodeError,
  FrameError,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 2048;

/** Cut at the length the frame announces; bytes before `$$` are skipped. */
function createFramer(): Framer {
  return {
    next(buf) {
      const at = buf.indexOf('$$');
      if (at < 0) {
        if (buf.length > MAX_FRAME) throw new FrameError('totem: no $$ header');
        return null;
      }
      if (buf.length - at < 10) return null;
      const decimal = buf[at + 2] === 0x30;
      const digits = buf.toString('latin1', at + 2, at + (decimal ? 6 : 4));
      if (!(decimal ? /^\d{4}$/ : /^[0-9A-Fa-f]{2}$/).test(digits)) throw new FrameError('totem: bad length');
      const length = decimal ? Number(digits) : parseInt(digits, 16);
      if (length < 10 || length > MAX_FRAME) throw new FrameError(`totem: bad length ${length}`);
      if (buf.length - at < length) return null;
      return { frame: buf.subarray(at, at + length), consumed: at + length };
    },
  };
}

const xorHex = (s: string): string => {
  let x = 0;
  for (let i = 0; i < s.length; i++) x ^= s.charCodeAt(i);
  return x.toString(16).toUpperCase().padStart(2, '0');
};

const ALARMS_123: Record<number, string> = { 0x01: Alarm.sos, 0x10: Alarm.lowBattery, 0x11: Alarm.overspeed, 0x30: Alarm.parking, 0x42: Alarm.geofenceExit, 0x43: Alarm.geofenceEnter };
const ALARMS_4: Record<number, string> = {
  0x01: Alarm.sos, 0x02: Alarm.overspeed, 0x04: Alarm.geofenceExit, 0x05: Alarm.geofenceEnter, 0x06: Alarm.tow, 0x07: Alarm.gpsAntennaCut,
  0x10: Alarm.powerCut, 0x11: Alarm.powerRestored, 0x12: Alarm.lowPower, 0x13: Alarm.lowBattery, 0x40: Alarm.vibration, 0x41: Alarm.idle,
  0x42: Alarm.hardAcceleration, 0x43: Alarm.hardBraking,
};

function addAlarm(rec: DeviceRecord, alarm: string | undefined): void {
  if (!alarm) return;
  const a = rec.attributes;
  a[Attr.alarm] = a[Attr.alarm] ? `${a[Attr.alarm]},${alarm}` : alarm;
}

function lacCid(rec: DeviceRecord, lac: string, cid: string, ctx: DecodeContext, mcc?: number, mnc?: number): void {
  const [l, c] = [parseInt(lac, 16), parseInt(cid, 16)];
  if (l && c) rec.cells = [{ mcc: mcc ?? Number(ctx.config.mcc ?? 0), mnc: mnc ?? Number(ctx.config.mnc ?? 0), lac: l, cid: c }];
}

// ------------------------------------------------------------------------------ formats 1 and 2

const F1 =
  /^\$\$[0-9A-Fa-f]{2}(\d+)\|(..)\$GPRMC,(\d\d)(\d\d)(\d\d)\.\d+,([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(\d\d)(\d\d)(\d\d)[^*]*\*[0-9A-Fa-f]{2}\|(\d+\.\d+)\|(\d+\.\d+)\|(\d+\.\d+)\|(\d+)\|\d+\|\d(\d{3})(\d{4})\|(?:(\d+)\|)?[0-9A-Fa-f]*([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})\|(\d+)\|(\d+\.\d+)\|\d+\|/;
const F2 =
  /^\$\$[0-9A-Fa-f]{2}(\d+)\|(..)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)\|([AV])\|(\d+\.\d+)\|([NS])\|(\d+\.\d+)\|([EW])\|(\d+\.\d+)?\|(\d+)?\|(\d+\.\d+)\|(\d+)\|\d(\d\d)(\d\d)\|(\d+)\|([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})\|(\d+)\|(\d+\.\d+)\|\d+\|[0-9A-Fa-f]{4}/;

function decode1(s: string, ctx: DecodeContext): DecodeResult {
  const m = F1.exec(s);
  if (!m) return {};
  const [, imei, alarm, hh, mi, ss, valid, lat, ns, lng, ew, speed, course, dd, mo, yy, pdop, hdop, vdop, io, battery, power, adc, lac, cid, temp, odometer] = m;
  if (Number(yy) === 0) return { deviceId: imei }; // no date: the device has no data yet
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: knotsToKmh(num(speed) ?? 0),
    course: num(course) ?? 0,
    hdop: Number(hdop),
    attributes: { pdop: Number(pdop), vdop: Number(vdop) },
  };
  addAlarm(rec, ALARMS_123[parseInt(alarm, 16)]);
  const bits = parseInt(io, 2) || 0;
  const a = rec.attributes;
  a[Attr.status] = bits;
  if (bits & 1) addAlarm(rec, Alarm.sos);
  [a.in3, a.in4, a.in1, a.in2, a.out1, a.out2] = [4, 5, 6, 7, 8, 9].map((b) => (bits & (1 << b)) !== 0);
  a[Attr.battery] = Number(battery) / 100;
  a[Attr.power] = Number(power);
  if (adc !== undefined) a[indexed.adc(1)] = Number(adc);
  lacCid(rec, lac, cid, ctx);
  a[indexed.temp(1)] = Number(temp);
  a[Attr.odometer] = Number(odometer) * 1000;
  return { deviceId: imei, records: [rec] };
}

function decode2(s: string, ctx: DecodeContext): DecodeResult {
  const m = F2.exec(s);
  if (!m) return {};
  const [, imei, alarm, dd, mo, yy, hh, mi, ss, valid, lat, ns, lng, ew, speed, course, hdop, io, battery, power, adc, lac, cid, temp, odometer] = m;
  if (Number(yy) === 0) return { deviceId: imei };
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: knotsToKmh(num(speed) ?? 0),
    course: num(course) ?? 0,
    hdop: Number(hdop),
    attributes: {},
  };
  addAlarm(rec, ALARMS_123[parseInt(alarm, 16)]);
  const bits = parseInt(io, 2) || 0;
  const a = rec.attributes;
  a[Attr.status] = bits;
  a.antenna = (bits & 1) !== 0;
  a[Attr.charge] = (bits & 2) !== 0;
  for (let i = 1; i <= 6; i++) a[indexed.in(i)] = (bits & (1 << (1 + i))) !== 0;
  for (let i = 1; i <= 4; i++) a[indexed.out(i)] = (bits & (1 << (7 + i))) !== 0;
  a[Attr.battery] = Number(battery) / 10;
  a[Attr.power] = Number(power);
  a[indexed.adc(1)] = Number(adc);
  lacCid(rec, lac, cid, ctx);
  a[indexed.temp(1)] = Number(temp);
  a[Attr.odometer] = Number(odometer) * 1000;
  return { deviceId: imei, records: [rec] };
}

// ------------------------------------------------------------------------------ format 3

const F3 =
  /^\$\$[0-9A-Fa-f]{2}(\d+)\|(..)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)([0-9A-Fa-f]{4})[01](\d\d)(\d\d)(\d{4})(\d{4})(\d{3})(\d{3})([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})([AV])(\d\d)(\d{3})(\d{3})(\d\d\.\d)(\d{7})(\d\d\d\d\.\d{4})([NS])(\d{5}\.\d{4})([EW])\d{4}[0-9A-Fa-f]{4}/;

function decode3(s: string, ctx: DecodeContext): DecodeResult {
  const m = F3.exec(s);
  if (!m) return {};
  const [, imei, alarm, dd, mo, yy, hh, mi, ss, io, battery, power, adc1, adc2, temp1, temp2, lac, cid, valid, sats, course, speed, pdop, odometer, lat, ns, lng, ew] = m;
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: valid === 'A',
    satellites: Number(sats),
    course: Number(course),
    speed: knotsToKmh(Number(speed)),
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    attributes: { [indexed.io(1)]: io, [Attr.battery]: Number(battery) / 10, [Attr.power]: Number(power), adc1: Number(adc1), adc2: Number(adc2), temp1: Number(temp1), temp2: Number(temp2), pdop: Number(pdop), [Attr.odometer]: Number(odometer) * 1000 },
  };
  addAlarm(rec, ALARMS_123[parseInt(alarm, 16)]);
  lacCid(rec, lac, cid, ctx);
  return { deviceId: imei, records: [rec] };
}

// ------------------------------------------------------------------------------ format 4

const F4 =
  /^\$\$\d{4}[0-9A-Fa-f]{2}(\d+)\|([0-9A-Fa-f]{8})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:(\d\d)(\d\d)|(\d{3}))(\d{4})(?:(?:(\d{4})(\d{4})(\d{4}))?(\d{4})(\d{4})?)?([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})(?:(\d\d)(\d{3}))?(\d\d)(\d\d)(\d{3})(\d{3})(\d\d\.\d)(\d{7})(\d\d\d\d\.\d{4})([NS])(\d{5}\.\d{4})([EW])(?:\d{4})?\d{4}[0-9A-Fa-f]{2}/;
const E2 = /^\$\$\d{4}[0-9A-Fa-f]{2}(\d+)\|(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(.+)\|[0-9A-Fa-f]{2}/;
const E5 = /^\$\$\d{4}[0-9A-Fa-f]{2}(\d+)\|(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),[^,]*,((?:\d+,){13})\|[0-9A-Fa-f]{2}/;

function decode4(s: string, ctx: DecodeContext): DecodeResult {
  const type = parseInt(s.slice(6, 8), 16);
  if (type === 0xe2) return decodeE2(s);
  if (type === 0xe5) return decodeE5(s);
  const m = F4.exec(s);
  if (!m) return {};
  const g = m.slice(1);
  const [imei, statusHex, yy, mo, dd, hh, mi, ss, bat2, power, bat3, adc1, adc2, adc3, adc4, temp1, temp2, lac, cid, mnc, mcc, sats, rssi, course, speed, hdop, odometer, lat, ns, lng, ew] = g;
  const status = parseInt(statusHex, 16);
  const bit = (n: number) => (status & (2 ** n)) !== 0 || (n === 31 && status >= 2 ** 31);
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    attributes: {},
  };
  const a = rec.attributes;
  addAlarm(rec, ALARMS_4[type]);
  if (bit(31)) addAlarm(rec, Alarm.sos);
  a[Attr.ignition] = bit(30);
  if (bit(29)) addAlarm(rec, Alarm.overspeed);
  a[Attr.charge] = bit(28);
  if (bit(27)) addAlarm(rec, Alarm.geofenceExit);
  if (bit(26)) addAlarm(rec, Alarm.geofenceEnter);
  if (bit(25)) addAlarm(rec, Alarm.gpsAntennaCut);
  [a.out1, a.out2, a.out3] = [bit(23), bit(22), bit(21)];
  a[Attr.status] = status;
  if (bat2 !== undefined) {
    a[Attr.battery] = Number(bat2) / 10;
    a[Attr.power] = Number(power);
  } else a[Attr.battery] = Number(bat3) / 100;
  a.adc1 = Number(adc1);
  if (adc2 !== undefined) [a.adc2, a.adc3, a.adc4] = [Number(adc2), Number(adc3), Number(adc4)];
  if (temp1 !== undefined) a.temp1 = Number(temp1);
  if (temp2 !== undefined) a.temp2 = Number(temp2);
  rec.valid = temp2 !== undefined ? bit(12) : bit(14);
  const [l, c] = [parseInt(lac, 16), parseInt(cid, 16)];
  rec.cells = [{ mcc: mcc !== undefined ? Number(mcc) : Number(ctx.config.mcc ?? 0), mnc: mnc !== undefined ? Number(mnc) : Number(ctx.config.mnc ?? 0), lac: l, cid: c, rssi: Number(rssi) }];
  rec.satellites = Number(sats);
  rec.course = Number(course);
  rec.speed = Number(speed);
  rec.hdop = Number(hdop);
  a[Attr.odometer] = Number(odometer) * 1000;
  rec.lat = nmeaCoordinate(lat, ns);
  rec.lng = nmeaCoordinate(lng, ew);
  return { deviceId: imei, records: [rec] };
}

function coordinates(latS: string, lngS: string): { lat: number; lng: number } {
  const [lat, lng] = [Number(latS), Number(lngS)];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('totem: coordinates out of range');
  return { lat, lng };
}

/** E2: an RFID card read, decimal coordinates (longitude first). */
function decodeE2(s: string): DecodeResult {
  const m = E2.exec(s);
  if (!m) return {};
  const rec: DeviceRecord = {
    valid: true,
    time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
    ...coordinates(m[9], m[8]),
    attributes: { [Attr.driverUniqueId]: m[10] },
  };
  return { deviceId: m[1], records: [rec] };
}

/** E5: OBD values (odometer, fuel used, consumption, power mV, rpm, speed, ..., fuel). */
function decodeE5(s: string): DecodeResult {
  const m = E5.exec(s);
  if (!m) return {};
  const v = m[10].split(',').slice(0, 13).map(Number);
  const rec: DeviceRecord = {
    valid: true,
    time: utc(Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), Number(m[7])),
    ...coordinates(m[8], m[9]),
    attributes: {
      [Attr.odometer]: v[0], [Attr.fuelUsed]: v[1], [Attr.fuelConsumption]: v[2], [Attr.power]: v[3] / 1000, [Attr.rpm]: v[4], [Attr.obdSpeed]: v[5],
      [Attr.coolantTemp]: v[8], intakeTemp: v[9], [Attr.engineLoad]: v[10], [Attr.throttle]: v[11], [Attr.fuel]: v[12],
    },
  };
  return { deviceId: m[1], records: [rec] };
}

// ------------------------------------------------------------------------------ decode / encode

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').replace(/[\r\n]+$/, '');
  if (!s.startsWith('$$') || s.length < 10) throw new DecodeError('totem: no header');
  let result: DecodeResult;
  let reply: Buffer;
  if (s[2] === '0') {
    result = decode4(s, ctx);
    const head = `$$0014AA${s.slice(-6, -2)}`;
    reply = latin1(head + xorHex(head));
  } else {
    if (s.includes('$GPRMC')) result = decode1(s, ctx);
    else {
      const bar = s.indexOf('|');
      result = bar >= 0 && s.indexOf('|', bar + 1) >= 0 ? decode2(s, ctx) : decode3(s, ctx);
    }
    reply = latin1('ACK OK\r\n');
  }
  return { ...result, reply };
}

/** Command bodies: `<password>,<code>[,args]`. */
const CODES: Record<string, (a: Command['attributes']) => string> = {
  custom: (a) => String(a.data ?? ''),
  rebootDevice: () => '006',
  factoryReset: () => '007',
  getVersion: () => '056',
  positionSingle: () => '012',
  engineStop: () => '025,C,1', // output C drives the relay on the usual wiring
  engineResume: () => '025,C,0',
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const body = CODES[command.type];
  if (!body) throw new Error(`totem: unsupported command ${command.type}`);
  const content = `${command.attributes.devicePassword ?? '000000'},${body(command.attributes)}`;
  if (ctx.config.sms === true) return latin1(`*${content}#`);
  const head = `$$${String(10 + Buffer.byteLength(content, 'latin1')).padStart(4, '0')}CF${content}`;
  return latin1(head + xorHex(head));
}

export const protocol: Protocol = {
  name: 'totem',
  defaultPort: 5007,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(CODES),
  encode,
};
