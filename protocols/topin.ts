/**
 * Topin protocol (Topin/ZhongXun watches and personal trackers): `78 78 <length> <type> <content> 0D 0A`.
 *
 *   0x01 login (IMEI, 8 bytes BCD), 0x08/0x09 GPS (live/offline: date, two coordinate pairs, speed,
 *   course/2, satellites), 0x10/0x11 GPS (GT06-like: date, satellites, coordinates in 1/30000 min,
 *   speed, course and flags, then altitude and alarms), 0x13 status (battery, firmware, time zone,
 *   interval, signal, temperature, charging, heart rate), 0x17/0x18/0x19/0x1A/0x69 Wi-Fi and LBS
 *   (BCD time, access points, cells, alarms), 0x30 time request, 0x94 vibration, 0x99 SOS.
 * The length byte is not a reliable frame length (Wi-Fi messages put the number of access points
 * there), so the framer cuts at CR LF followed by the next frame's 78 78 or by the end of what
 * arrived.
 *
 * Replies: login `78 78 <length> 01 01 0D 0A` (0x44 instead of 0x01 refuses the device), followed
 * by the time `78 78 07 30 <year (2)> <month> <day> <hour> <minute> <second> 0D 0A` (UTC); the
 * time request gets the time; GPS 0x10/0x11 and Wi-Fi/LBS messages are confirmed with their type
 * and their 6 time bytes; status with its content echoed.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { DecodeError, FrameError, type AttrValue, type Cell, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG = { login: 0x01, gps2: 0x08, gpsOffline2: 0x09, gps: 0x10, gpsOffline: 0x11, status: 0x13, wifiOffline: 0x17, lbsWifi: 0x18, lbsWifiOffline: 0x19, lbsWifi2: 0x1a, time: 0x30, sosNumber: 0x41, wifi: 0x69, vibration: 0x94, sos: 0x99 } as const;
const WIFI_TYPES = new Set<number>([MSG.wifi, MSG.wifiOffline, MSG.lbsWifi, MSG.lbsWifi2, MSG.lbsWifiOffline]);

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 2) return null;
      if (buffer[0] !== 0x78 || buffer[1] !== 0x78) throw new FrameError('topin: no 78 78 start');
      for (let i = 4; i + 1 < buffer.length; i++) {
        if (buffer[i] !== 0x0d || buffer[i + 1] !== 0x0a) continue;
        const end = i + 2;
        if (end === buffer.length || (buffer[end] === 0x78 && (end + 1 === buffer.length || buffer[end + 1] === 0x78))) return { frame: buffer.subarray(0, end), consumed: end };
      }
      if (buffer.length > MAX_FRAME) throw new FrameError('topin: frame too long');
      return null;
    },
  };
}

/** `78 78 <length> <type> <content> 0D 0A`. */
function message(length: number, type: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x78, 0x78, length & 0xff, type]), content, Buffer.from([0x0d, 0x0a])]);
}

function timeMessage(now: number): Buffer {
  const d = new Date(now);
  const c = Buffer.alloc(7);
  c.writeUInt16BE(d.getUTCFullYear(), 0);
  c.set([d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()], 2);
  return message(c.length, MSG.time, c);
}

const alarmOf = (bits: number) => (bits & 1 ? Alarm.vibration : bits & 2 ? Alarm.overspeed : bits & 0x10 ? Alarm.lowPower : undefined);

function setAlarm(a: Record<string, AttrValue>, alarm: string | undefined): void {
  if (alarm) a[Attr.alarm] = alarm;
}

const dateOf = (r: Reader) => {
  const [yy, mo, dd, hh, mi, ss] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  return Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss);
};

function check(rec: DeviceRecord): void {
  if (!(Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180)) throw new DecodeError('topin: coordinates out of range');
}

/** 0x08/0x09: degrees byte, then the high nibble marks south/west and 20 bits of micro-degrees. */
function coordinate(r: Reader): number {
  const degrees = r.u8();
  const negative = (r.peekU8() & 0xf0) !== 0;
  const v = degrees + (r.u24() & 0xfffff) / 1e6;
  return negative ? -v : v;
}

function decodeGps2(r: Reader, type: number): DeviceRecord | undefined {
  if (r.remaining === 0) return undefined;
  const rec: DeviceRecord = { time: dateOf(r), valid: type === MSG.gps2, attributes: {} };
  rec.lat = coordinate(r);
  rec.lng = coordinate(r);
  r.skip(8); // second coordinates
  rec.speed = r.u8();
  rec.course = Math.min(r.u8() * 2, 360);
  rec.satellites = r.u8();
  check(rec);
  return rec;
}

function decodeGps(r: Reader): DeviceRecord {
  const rec: DeviceRecord = { time: dateOf(r), attributes: {} };
  rec.satellites = r.u8() & 0x0f;
  const lat = r.u32() / 60 / 30000;
  const lng = r.u32() / 60 / 30000;
  rec.speed = r.u8();
  const flags = r.u16();
  rec.course = flags & 0x3ff;
  rec.valid = (flags & 0x1000) !== 0;
  rec.lat = flags & 0x400 ? lat : -lat;
  rec.lng = flags & 0x800 ? -lng : lng;
  check(rec);
  if (r.remaining >= 3) {
    rec.altitude = r.i16();
    setAlarm(rec.attributes, alarmOf(r.u8()));
  }
  return rec;
}

function decodeStatus(r: Reader): DeviceRecord {
  const a: Record<string, AttrValue> = {};
  a[Attr.batteryLevel] = r.u8();
  a.versionFw = r.u8();
  r.skip(2); // time zone, interval
  if (r.remaining >= 1) a[Attr.rssi] = r.u8();
  if (r.remaining >= 3) r.skip(3); // temperature
  if (r.remaining >= 1) a[Attr.charge] = r.u8() > 0;
  if (r.remaining >= 1) a.heartRate = r.u8();
  return { attributes: a };
}

const bcd = (b: number) => (b >> 4) * 10 + (b & 0x0f);

function decodeWifi(r: Reader, count: number): DeviceRecord {
  const t = r.bytes(6);
  const rec: DeviceRecord = { time: Date.UTC(2000 + bcd(t[0]), bcd(t[1]) - 1, bcd(t[2]), bcd(t[3]), bcd(t[4]), bcd(t[5])), attributes: {} };
  const aps: string[] = [];
  for (let i = 0; i < count; i++) {
    const mac = r.bytes(6).toString('hex').replace(/(..)(?!$)/g, '$1:');
    aps.push(`${mac}*${r.u8()}`);
  }
  if (aps.length) rec.attributes.wifi = aps.join(',');
  const cellCount = r.u8();
  const mcc = r.u16();
  const mnc = r.u8();
  const cells: Cell[] = [];
  for (let i = 0; i < cellCount; i++) cells.push({ mcc, mnc, lac: r.u16(), cid: r.u16(), rssi: r.u8() });
  if (cells.length) rec.cells = cells;
  if (r.remaining > 0) setAlarm(rec.attributes, alarmOf(r.u8()));
  return rec;
}

interface Session {
  last?: LastFix;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 6 || frame[0] !== 0x78 || frame[1] !== 0x78) throw new DecodeError('topin: bad frame');
  // The content ends before the CR LF.
  const r = new Reader(frame, 2, frame.length - 2);
  const length = r.u8();
  const type = r.u8();
  const session = ctx.session as Session;
  if (type === MSG.login) {
    const imei = r.hex(8).slice(1);
    return { deviceId: imei, reply: Buffer.concat([message(length, type, Buffer.from([0x01])), timeMessage(ctx.now)]) };
  }
  const located = (rec: DeviceRecord) => {
    if (rec.lat !== undefined) rememberFix(session, rec);
    return rec;
  };
  switch (type) {
    case MSG.gps2:
    case MSG.gpsOffline2: {
      const rec = decodeGps2(r, type);
      return rec ? { records: [located(rec)] } : {};
    }
    case MSG.gps:
    case MSG.gpsOffline: {
      const time = frame.subarray(4, 10);
      return { records: [located(decodeGps(r))], reply: message(length, type, Buffer.from(time)) };
    }
    case MSG.time:
      return { reply: timeMessage(ctx.now) };
    case MSG.status: {
      const content = Buffer.from(frame.subarray(4, frame.length - 2));
      return { records: [withLastFix(decodeStatus(r), session)], reply: message(length, type, content) };
    }
    case MSG.vibration:
    case MSG.sos:
      return { records: [withLastFix({ attributes: { [Attr.alarm]: type === MSG.sos ? Alarm.sos : Alarm.vibration } }, session)] };
    default:
      if (WIFI_TYPES.has(type)) {
        const time = Buffer.from(frame.subarray(4, 10));
        return { records: [withLastFix(decodeWifi(r, length), session)], reply: message(length, type, time) };
      }
      return {};
  }
}

/** The refusal of an unknown device: the login answer with 0x44. */
function refuse(): Buffer {
  return message(1, MSG.login, Buffer.from([0x44]));
}

function encode(command: Command, _ctx: EncodeContext): Buffer {
  if (command.type !== 'sosNumber') throw new Error(`topin: unsupported command ${command.type}`);
  const phone = Buffer.from(String(command.attributes.phone ?? ''), 'latin1');
  return message(1 + phone.length, MSG.sosNumber, phone);
}

export const protocol: Protocol = {
  name: 'topin',
  defaultPort: 5199,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  refuse,
  commands: ['sosNumber'],
  carriesText: false,
  encode,
};
