/**
 * JT600 protocol (JT600/JT701/JT707 trackers and padlocks): binary `$` frames and text `(...)` frames.
 *
 *   binary  `$` + id (5 bytes BCD) + [protocol version, long format only] + packet info (high nibble:
 *           data version) + length (2) + records + index (1). A record: date ddmmyy hhmmss (BCD),
 *           latitude ddmmmmmm (8 BCD digits), longitude dddmmmmmm (9 digits; the byte holding the last
 *           digit carries the flags in its low nibble: bit 0 valid, 1 north, 2 east), speed (2 BCD
 *           digits, knots), course /2, then per format: long (odometer km, satellites, vehicle id,
 *           status word, battery, cell), version 1 (satellites, power, altitude, cell), version 2
 *           (fuel, status bytes, odometer), version 3 (three fuel levels, odometer, status, packed bits).
 *           The long format is recognised by a zero byte at offset 8 (the high byte of its length).
 *   W01     `(<id>,W01,<dddmm.mmmm>,E,<ddmm.mmmm>,N,A,ddmmyy,hhmmss,<km/h>,<course>,<power>,<gps>,<gsm>,<alert>,...)`
 *   U01..U06 `(<id>,Uxx[,<alarm>],ddmmyy,hhmmss,T|F,<lat>,N,<lng>,E,<mph>,<course>,<sats>,<battery>%,<status bits>,<cid>,<lac>,<gsm>,<km>,<index>[,<checksum>])`
 *   P45     padlock event `(<id>,P45,ddmmyy,hhmmss,<lat>,N,<lng>,E,A,<mph>,<course>,<source>,<unlock>,<rfid>,<pwd>,<tries>,<index>,...)`
 *   WLNET,5 a peripheral (wireless sensor) report: text header, a binary location record, sensor data.
 * In text frames the framer un-escapes 0x3D pairs: 3D15 `(`, 3D14 `)`, 3D11 `,`, 3D00 `=`.
 *
 * Replies: U01/U02/U03 are confirmed with `(S39)`, U06 (alarm) with `(S20)`, P45 with
 * `(P69,0,<index>)`; a binary frame whose status asks for an answer (bit 5) gets `(P35)`, or
 * `(P69,0,<index>)` from protocol version 0x19 on.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, knotsToKmh } from './binary.ts';
import { DecodeError, FrameError, type AttrValue, type Cell, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_TEXT = 4096;
const MAX_FRAME = 0xffff + 10;
const DOLLAR = 0x24;
const OPEN = 0x28;
const CLOSE = 0x29;
const ESCAPE = 0x3d;
const UNESCAPED: Record<number, number> = { 0x15: 0x28, 0x14: 0x29, 0x11: 0x2c, 0x00: 0x3d };
const MPH = 1.609344;

const isLong = (b: Buffer, start = 0) => b[start + 8] === 0;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 10) return null;
      if (buffer[0] === DOLLAR) {
        const length = buffer.readUInt16BE(isLong(buffer) ? 8 : 7) + 10;
        return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
      }
      if (buffer[0] !== OPEN) throw new FrameError('jt600: unknown frame start');
      const end = buffer.indexOf(CLOSE);
      if (end < 0) {
        if (buffer.length > MAX_TEXT) throw new FrameError('jt600: text frame too long');
        return null;
      }
      const out = Buffer.allocUnsafe(end + 1);
      let n = 0;
      for (let i = 0; i <= end; i++) {
        if (buffer[i] !== ESCAPE) out[n++] = buffer[i];
        else if (i < end && UNESCAPED[buffer[++i]] !== undefined) out[n++] = UNESCAPED[buffer[i]];
      }
      return { frame: out.subarray(0, n), consumed: end + 1 };
    },
  };
}

// ---- binary -----------------------------------------------------------------------------------

/**
 * `n` BCD digits; an odd count takes the high nibble of the next byte without consuming it. Nibbles
 * above 9 are taken at their value: some firmwares send them (a speed byte 0x1F), and the ranges of
 * the results are checked where they matter.
 */
function bcd(r: Reader, digits: number): number {
  let v = 0;
  for (let i = 0; i < digits >> 1; i++) {
    const b = r.u8();
    v = (v * 10 + (b >> 4)) * 10 + (b & 0x0f);
  }
  return digits & 1 ? v * 10 + (r.peekU8() >> 4) : v;
}

/** ddmmmmmm (or dddmmmmmm): degrees, then minutes with 4 decimals. */
const degrees = (raw: number) => Math.floor(raw / 1e6) + (raw % 1e6) / 1e4 / 60;

/** The location part every binary record (and a peripheral report) starts with: 17 bytes. */
function location(r: Reader): DeviceRecord {
  const [dd, mo, yy, hh, mi, ss] = [bcd(r, 2), bcd(r, 2), bcd(r, 2), bcd(r, 2), bcd(r, 2), bcd(r, 2)];
  const lat = degrees(bcd(r, 8));
  const lng = degrees(bcd(r, 9));
  const flags = r.u8();
  if (lat > 90 || lng > 180) throw new DecodeError('jt600: coordinates out of range');
  return {
    time: Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss),
    valid: (flags & 1) !== 0,
    lat: flags & 2 ? lat : -lat,
    lng: flags & 4 ? lng : -lng,
    speed: knotsToKmh(bcd(r, 2)),
    course: r.u8() * 2,
    attributes: {},
  };
}

const cell = (ctx: DecodeContext, cid: number, lac: number, rssi: number): Cell => ({ mcc: Number(ctx.config.mcc ?? 0), mnc: Number(ctx.config.mnc ?? 0), lac, cid, rssi });

/** Long-format status word: alarm bits; bit 5 asks the server for an answer. */
const LONG_ALARMS: Array<[number, string]> = [
  [1, Alarm.geofenceEnter],
  [2, Alarm.geofenceExit],
  [3, Alarm.powerCut],
  [4, Alarm.vibration],
  [11, Alarm.lowBattery],
  [14, Alarm.fault],
];

function longData(r: Reader, rec: DeviceRecord, ctx: DecodeContext, protocolVersion: number): boolean {
  const a = rec.attributes;
  a[Attr.odometer] = r.u32() * 1000;
  rec.satellites = r.u8();
  r.skip(4); // vehicle id
  const status = r.u16();
  const alarm = LONG_ALARMS.find(([bit]) => status & (1 << bit));
  if (alarm) a[Attr.alarm] = alarm[1];
  a[Attr.blocked] = (status & 0x80) !== 0;
  a[Attr.status] = status;
  const battery = r.u8();
  if (battery === 0xff) a[Attr.charge] = true;
  else a[Attr.batteryLevel] = battery;
  const cid = r.u16();
  const lac = r.u16();
  rec.cells = [cell(ctx, cid, lac, r.u8())];
  if (protocolVersion === 0x17 || protocolVersion === 0x19) {
    a.geofence = r.u8();
    r.skip(3);
    if (r.remaining > 1) r.skip(r.remaining - 1); // extension data up to the index byte
  }
  return (status & 0x20) !== 0;
}

/** Version 2 status bytes: ignition, door, charge, blocked and alarms. */
function statusBytes(r: Reader, a: Record<string, AttrValue>): void {
  const s1 = r.u8();
  const s2 = r.u8();
  const s3 = r.u8();
  r.skip(1);
  a[Attr.ignition] = (s1 & 0x01) !== 0;
  a[Attr.door] = (s1 & 0x40) !== 0;
  a[Attr.charge] = (s2 & 0x01) !== 0;
  a[Attr.blocked] = (s2 & 0x02) !== 0;
  const alarm = s2 & 0x04 ? Alarm.sos : s2 & 0x10 ? Alarm.overspeed : s2 & 0x08 ? Alarm.gpsAntennaCut : s3 & 0x04 ? Alarm.fatigueDriving : s3 & 0x08 ? Alarm.tow : undefined;
  if (alarm) a[Attr.alarm] = alarm;
}

function shortData(r: Reader, rec: DeviceRecord, ctx: DecodeContext, version: number): void {
  const a = rec.attributes;
  if (version === 1) {
    rec.satellites = r.u8();
    a[Attr.power] = r.u8();
    r.skip(1); // other flags and sensors
    rec.altitude = r.u16();
    const cid = r.u16();
    const lac = r.u16();
    const rssi = r.u8();
    if (cid && lac) rec.cells = [cell(ctx, cid, lac, rssi)];
    else a[Attr.rssi] = rssi;
  } else if (version === 2) {
    const high = r.u8();
    statusBytes(r, a);
    a[Attr.odometer] = r.u32() * 1000;
    a[Attr.fuel] = high * 256 + r.u8();
  } else if (version === 3) {
    // 80 bits: fuel1, fuel2, fuel3 (12 bits each), odometer km (20), status (24).
    const b = r.bytes(10);
    const hi = b.readUIntBE(0, 5); // first 40 bits
    const lo = b.readUIntBE(5, 5); // last 40 bits
    a[indexed.fuel(1)] = Math.floor(hi / 2 ** 28) & 0xfff;
    a[indexed.fuel(2)] = Math.floor(hi / 2 ** 16) & 0xfff;
    a[indexed.fuel(3)] = Math.floor(hi / 2 ** 4) & 0xfff;
    a[Attr.odometer] = ((hi & 0xf) * 2 ** 16 + Math.floor(lo / 2 ** 24)) * 1000;
    const status = lo & 0xffffff;
    a[Attr.ignition] = (status & 1) !== 0;
    a[Attr.status] = status;
  }
}

function decodeBinary(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const long = isLong(frame);
  const r = new Reader(frame, 1);
  const id = r.hex(5).replace(/^0+/, '');
  const protocolVersion = long ? r.u8() : 0;
  const version = r.u8() >> 4;
  r.skip(2);
  const records: DeviceRecord[] = [];
  let answer = false;
  while (r.remaining >= 17) {
    const rec = location(r);
    if (long) answer = longData(r, rec, ctx, protocolVersion) || answer;
    else shortData(r, rec, ctx, version);
    records.push(rec);
  }
  const index = r.remaining ? r.u8() : 0;
  const reply = answer ? text(protocolVersion < 0x19 ? '(P35)' : `(P69,0,${index})`) : undefined;
  return { deviceId: id, records, reply };
}

// ---- text -------------------------------------------------------------------------------------

const text = (s: string) => Buffer.from(s, 'latin1');
const utc = (dd: string, mo: string, yy: string, hh: string, mi: string, ss: string) => Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss));
const signed = (v: string, hem: string) => (hem === 'S' || hem === 'W' ? -Number(v) : Number(v));

const W01 = /^\((\d+),W01,(\d{3})(\d\d\.\d+),([EW]),(\d\d)(\d\d\.\d+),([NS]),([AV]),(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+),(\d+),(\d+),(\d+),(\d+),(\d+),/;

function decodeW01(s: string): DecodeResult {
  const m = W01.exec(s);
  if (!m) return {};
  const [, id, lngD, lngM, lngH, latD, latM, latH, validity, dd, mo, yy, hh, mi, ss, speed, course, power, gps, gsm, alert] = m;
  const rec: DeviceRecord = {
    time: utc(dd, mo, yy, hh, mi, ss),
    valid: validity === 'A',
    lat: signed(String(Number(latD) + Number(latM) / 60), latH),
    lng: signed(String(Number(lngD) + Number(lngM) / 60), lngH),
    speed: Number(speed),
    course: Number(course),
    attributes: { [Attr.power]: Number(power), gps: Number(gps), [Attr.rssi]: Number(gsm), alertType: Number(alert) },
  };
  return { deviceId: id, records: [rec] };
}

const U = /^\((\d+),(U\d\d),(?:\d+,)?(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),([TF]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.?\d*),(\d+),(\d+),(\d+)%,([01]+),(\d+),(\d+),(\d+),(\d+),(\d+)/;

function decodeU(s: string): DecodeResult {
  const m = U.exec(s);
  if (!m) return {};
  const [, id, type, dd, mo, yy, hh, mi, ss, validity, lat, latH, lng, lngH, speed, course, sats, battery, status, cid, lac, gsm, odometer, index] = m;
  const rec: DeviceRecord = {
    time: utc(dd, mo, yy, hh, mi, ss),
    valid: validity === 'T',
    lat: signed(lat, latH),
    lng: signed(lng, lngH),
    speed: Number(speed) * MPH,
    course: Number(course),
    satellites: Number(sats),
    attributes: {
      [Attr.batteryLevel]: Number(battery),
      [Attr.status]: parseInt(status.slice(-31), 2),
      [Attr.odometer]: Number(odometer) * 1000,
      [Attr.index]: Number(index),
    },
  };
  rec.cells = [{ mcc: 0, mnc: 0, lac: Number(lac), cid: Number(cid), rssi: Number(gsm) }];
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('jt600: coordinates out of range');
  const reply = type === 'U06' ? text('(S20)') : ['U01', 'U02', 'U03'].includes(type) ? text('(S39)') : undefined;
  return { deviceId: id, records: [rec], reply };
}

const P45 = /^\((\d+),P45,(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),([AV]),(\d+),(\d+),(\d+),\d+,(\d+),\d+,\d+,(\d+)/;

function decodeP45(s: string): DecodeResult {
  const m = P45.exec(s);
  if (!m) return {};
  const [, id, dd, mo, yy, hh, mi, ss, lat, latH, lng, lngH, validity, speed, course, source, rfid, index] = m;
  const rec: DeviceRecord = {
    time: utc(dd, mo, yy, hh, mi, ss),
    valid: validity === 'A',
    lat: signed(lat, latH),
    lng: signed(lng, lngH),
    speed: Number(speed) * MPH,
    course: Number(course),
    attributes: { eventSource: Number(source), [Attr.index]: Number(index) },
  };
  if (rfid !== '0000000000') rec.attributes[Attr.driverUniqueId] = rfid;
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('jt600: coordinates out of range');
  return { deviceId: id, records: [rec], reply: text(`(P69,0,${index})`) };
}

/** `(<id>,<n>,<n>,WLNET,5,<n>,<binary location><sensor data>)`: a wireless sensor's report. */
function decodePeripheral(frame: Buffer): DecodeResult {
  const id = frame.toString('latin1', 1, 11);
  if (!/^\d{10}$/.test(id)) throw new DecodeError('jt600: bad peripheral device id');
  let at = 0;
  for (let i = 0; i < 6; i++) {
    at = frame.indexOf(0x2c, at + 1);
    if (at < 0) throw new DecodeError('jt600: peripheral header cut short');
  }
  const r = new Reader(frame, at + 1);
  const rec = location(r);
  const a = rec.attributes;
  r.skip(6 + 5 + 1); // sensor time, sensor id, sensor index
  a.sensorBattery = r.u16() / 100;
  a.sensorBatteryLevel = r.u8();
  a.sensorRssi = -r.u8();
  if (r.u8() === 1) {
    const t = r.u16();
    if (t !== 0xffff) a[indexed.temp(1)] = ((t & 0xf000 ? -1 : 1) * (t & 0xfff)) / 10;
    a.humidity = r.u8();
  }
  return { deviceId: id, records: [rec] };
}

function decodeText(frame: Buffer): DecodeResult {
  if (frame.indexOf('WLNET,5,') > 0) return decodePeripheral(frame);
  const s = frame.toString('latin1');
  const id = /^\((\d+),/.exec(s)?.[1];
  const result = s.includes('W01') ? decodeW01(s) : s.includes('P45') ? decodeP45(s) : decodeU(s);
  // Frames we do not decode (U04, @JT, U09...) still name the device.
  return result.deviceId || !id ? result : { deviceId: id };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] === DOLLAR) return decodeBinary(frame, ctx);
  if (frame[0] === OPEN) return decodeText(frame);
  throw new DecodeError('jt600: unknown frame marker');
}

// ---- commands ---------------------------------------------------------------------------------

/** `GMT+4`, `+04:00`, `-0530`, or minutes: the offset east of UTC in minutes. */
function offsetMinutes(v: string): number {
  const m = /^(?:GMT|UTC)?\s*([+-])?(\d{1,2})(?::?(\d\d))?$/i.exec(v.trim());
  if (!m) throw new Error(`jt600: unsupported time zone ${v}`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

const COMMANDS: Record<string, (c: Command) => string> = {
  engineStop: () => '(S07,0)',
  engineResume: () => '(S07,1)',
  setTimezone: (c) => `(S09,1,${offsetMinutes(String(c.attributes.timezone ?? ''))})`,
  rebootDevice: () => '(S17)',
  // `S07,0` is sent as `(S07,0)`; text already in parentheses is sent as is.
  custom: (c) => {
    const data = String(c.attributes.data ?? '');
    return data.startsWith('(') ? data : `(${data})`;
  },
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`jt600: unsupported command ${command.type}`);
  return text(build(command));
}

export const protocol: Protocol = {
  name: 'jt600',
  defaultPort: 5014,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: false,
  encode,
};
