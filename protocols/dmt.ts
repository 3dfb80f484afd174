/**
 * DMT protocol (Digital Matter devices, binary over TCP): `02 55 <type> <length LE (2)> <payload>`.
 *
 *   0x00 hello (serial, IMEI as 15 ASCII digits, ...), 0x04 data records, 0x05 commit (the device
 *   asks the server to confirm what it sent since the last commit), 0x10 fixed 64-byte records,
 *   0x14/0x22 canned requests.
 *   A data record: length (2, counting itself), sequence (4), time (4, seconds since 2013-01-01),
 *   event (1), then fields `<id> <length> <data>`: 0 GPS (time, lat, lng (1e-7 deg), altitude,
 *   speed (cm/s), course/2, PDOP/10, accuracy, valid), 2 digital IO and status, 3 driver id,
 *   6 analog values (battery mV, external power 10 mV, temperature 0.01 °C, signal), 26 trip
 *   counters, 27 odometer and run hours.
 *
 * Replies: hello -> `02 55 01 08 00 <server time (seconds since 2013) LE> <flags LE: 0 accepted,
 * 1 refused>` (a 51-byte hello of the older firmware gets `02 55 01 05 00 00 00 00 00 00`); commit
 * -> `02 55 06 01 00 01` (success), sent after every record before it was stored; canned request 1
 * -> `02 55 15 0C 00` + 12 zero bytes; canned request 2 -> `02 55 23 00 00`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { withLastFix, rememberFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 0xffff + 5;
const EPOCH_2013 = Date.UTC(2013, 0, 1);
const MSG = { hello: 0x00, helloResponse: 0x01, data: 0x04, commit: 0x05, commitResponse: 0x06, data64: 0x10, canned1: 0x14, cannedResponse1: 0x15, canned2: 0x22, cannedResponse2: 0x23 } as const;
const OLD_HELLO_LENGTH = 51;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 5) return null;
      if (buffer[0] !== 0x02 || buffer[1] !== 0x55) throw new FrameError('dmt: no 02 55 header');
      const length = 5 + buffer.readUInt16LE(3);
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

function message(type: number, content: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.from([0x02, 0x55, type, 0, 0]);
  head.writeUInt16LE(content.length, 3);
  return Buffer.concat([head, content]);
}

function helloResponse(helloLength: number | undefined, now: number, refused: boolean): Buffer {
  if (helloLength === OLD_HELLO_LENGTH) return message(MSG.helloResponse, Buffer.alloc(5));
  const c = Buffer.alloc(8);
  c.writeUInt32LE(Math.max(0, Math.floor((now - EPOCH_2013) / 1000)) >>> 0, 0);
  c.writeUInt32LE(refused ? 1 : 0, 4);
  return message(MSG.helloResponse, c);
}

const EVENT_ALARMS: Record<number, string> = { 12: Alarm.hardBraking, 13: Alarm.hardAcceleration, 14: Alarm.hardCornering, 18: Alarm.overspeed, 20: Alarm.tow, 23: Alarm.accident, 29: Alarm.tampering, 44: Alarm.geofenceEnter, 45: Alarm.geofenceExit };
const CMS_TO_KMH = 0.036;

interface Session {
  last?: LastFix;
  helloLength?: number;
}

function checkFix(rec: DeviceRecord): void {
  if (!(Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180)) throw new DecodeError('dmt: coordinates out of range');
}

function gpsField(r: Reader, rec: DeviceRecord): void {
  rec.time = EPOCH_2013 + r.u32le() * 1000;
  rec.lat = r.i32le() / 1e7;
  rec.lng = r.i32le() / 1e7;
  checkFix(rec);
  rec.altitude = r.i16le();
  rec.speed = r.u16le() * CMS_TO_KMH;
  r.skip(1); // speed accuracy
  rec.course = Math.min(r.u8() * 2, 360);
  rec.attributes.pdop = r.u8() / 10;
  rec.precision = r.u8();
  rec.valid = r.u8() !== 0;
}

function ioField(r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  const input = r.i32le();
  const output = r.u16le();
  const status = r.u16le();
  a[Attr.ignition] = (input & 1) !== 0;
  if (!a[Attr.alarm]) {
    if (!(status & 2)) a[Attr.alarm] = Alarm.lowBattery;
    else if (status & 0x40) a[Attr.alarm] = Alarm.tampering;
  }
  Object.assign(a, { [Attr.input]: input, [Attr.output]: output, [Attr.status]: status });
}

function driverField(r: Reader, rec: DeviceRecord, length: number): void {
  const kind = r.u8();
  const id = kind === 1 ? r.hex(5) : kind === 2 ? r.hex(6) : kind === 3 ? r.ascii(4) : kind === 4 ? r.ascii(5) : kind === 5 || kind === 6 ? r.ascii(length - 1) : kind === 7 ? r.hex(length - 1) : undefined;
  if (id) rec.attributes[Attr.driverUniqueId] = id;
}

function analogField(r: Reader, rec: DeviceRecord, end: number): void {
  const a = rec.attributes;
  while (r.pos < end) {
    const n = r.u8();
    if (n === 3) a[Attr.deviceTemp] = r.i16le() / 100;
    else {
      const v = r.u16le();
      if (n === 1) a[Attr.battery] = v / 1000;
      else if (n === 2) a[Attr.power] = v / 100;
      else if (n === 4) a[Attr.rssi] = v;
      else if (n === 5) a.solarPower = v / 1000;
      else a[indexed.io(n)] = v;
    }
  }
}

function decodeRecords(r: Reader, session: Session): DeviceRecord[] {
  const records: DeviceRecord[] = [];
  while (r.remaining) {
    const recordEnd = r.pos + r.u16le();
    const rec: DeviceRecord = { attributes: { [Attr.index]: r.u32le() } };
    const deviceTime = EPOCH_2013 + r.u32le() * 1000;
    const event = r.u8();
    rec.attributes[Attr.event] = event;
    if (EVENT_ALARMS[event]) rec.attributes[Attr.alarm] = EVENT_ALARMS[event];
    while (r.pos < recordEnd) {
      const id = r.u8();
      const length = r.u8();
      const fieldEnd = r.pos + (length === 255 ? r.u16le() : length);
      if (fieldEnd > r.end) throw new DecodeError('dmt: field past the frame');
      if (id === 0) gpsField(r, rec);
      else if (id === 2) ioField(r, rec);
      else if (id === 3) driverField(r, rec, length);
      else if (id === 6) analogField(r, rec, fieldEnd);
      else if (id === 26) Object.assign(rec.attributes, { tripOdometer: r.u32le(), tripHours: r.u32le() * 1000 });
      else if (id === 27) Object.assign(rec.attributes, { [Attr.odometer]: r.u32le(), [Attr.hours]: r.u32le() * 1000 });
      r.pos = fieldEnd;
    }
    if (rec.lat === undefined) {
      rec.time = deviceTime;
      withLastFix(rec, session);
    } else rememberFix(session, rec);
    records.push(rec);
  }
  return records;
}

/** 64-byte records: packed date bits, coordinates, speed, IO, five analog inputs, temperature, PDOP. */
function decodeFixed64(r: Reader, session: Session): DeviceRecord[] {
  const records: DeviceRecord[] = [];
  while (r.remaining >= 64) {
    r.skip(1); // type
    const rec: DeviceRecord = { attributes: { [Attr.index]: r.u32le() } };
    const t = r.u32le();
    rec.time = Date.UTC(2000 + (t & 0x3f), ((t >>> 6) & 0xf) - 1, (t >>> 10) & 0x1f, (t >>> 15) & 0x1f, (t >>> 20) & 0x3f, (t >>> 26) & 0x3f);
    rec.lng = r.i32le() / 1e7;
    rec.lat = r.i32le() / 1e7;
    checkFix(rec);
    rec.speed = r.u16le() * CMS_TO_KMH;
    rec.course = Math.min(r.u8() * 2, 360);
    rec.altitude = r.i16le();
    r.skip(3); // position and speed accuracy
    const a = rec.attributes;
    a[Attr.event] = r.u8();
    rec.valid = (r.u8() & 1) !== 0;
    a[Attr.input] = r.u32le();
    a[Attr.output] = r.u16le();
    for (let i = 1; i <= 5; i++) a[indexed.adc(i)] = r.i16le();
    a[Attr.deviceTemp] = r.i8();
    r.skip(6 + 8); // accelerometer, device id
    a.pdop = r.u16le() / 100;
    r.skip(2 + 2); // reserved, checksum
    rememberFix(session, rec);
    records.push(rec);
  }
  return records;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u8() !== 0x02 || r.u8() !== 0x55) throw new DecodeError('dmt: no 02 55 header');
  const type = r.u8();
  const length = r.u16le();
  const session = ctx.session as Session;
  switch (type) {
    case MSG.hello: {
      r.skip(4); // serial number
      const imei = r.ascii(15).replace(/\0/g, '');
      session.helloLength = length;
      return { deviceId: imei, reply: helloResponse(length, ctx.now, false) };
    }
    case MSG.commit:
      return { reply: message(MSG.commitResponse, Buffer.from([1])) };
    case MSG.canned1:
      return { reply: message(MSG.cannedResponse1, Buffer.alloc(12)) };
    case MSG.canned2:
      return { reply: message(MSG.cannedResponse2) };
    case MSG.data64:
      return { records: decodeFixed64(r, session) };
    case MSG.data:
      return { records: decodeRecords(r, session) };
    default:
      return {};
  }
}

/** An unknown device's hello is answered with the refused flag (the older 51-byte hello has none). */
function refuse(ctx: DecodeContext): Buffer {
  return helloResponse((ctx.session as Session).helloLength, ctx.now, true);
}

export const protocol: Protocol = {
  name: 'dmt',
  defaultPort: 5137,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  refuse,
  carriesText: false,
};
