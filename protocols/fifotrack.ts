/**
 * Fifotrack text protocol: `$$<length>,<imei>,<index>,<type>,<fields>*<checksum>\r\n`, the length
 * counting from after its comma to the `*`; the checksum is the byte sum (mod 256, two hex digits).
 *
 *   A00/A01/A02...  report: alarm, `yyMMddHHmmss`, A/V, lat, lon, km/h, course, alt, odometer, engine
 *                   seconds, status (rssi, satellites), inputs, outputs, `mcc|mnc|lac|cid`, `adc|adc...`,
 *                   RFID, sensors
 *   A03             newer report: cell, battery, battery %, status, then `0,<A|V>,<km/h>,<sats>,<lat>,<lon>`
 *                   or `1,<mac:rssi|...>` (Wi-Fi)          -> `##<len>,<imei>,<index>,A03,<server time>*<sum>\r\n`
 *   B..             answer to a command (`...,OK`)
 *   D05             photo announced (size, id)             -> request of the first 1024 bytes (D06)
 *   D06             photo data                             -> request of the next part, the image when complete
 * Commands: `##<len>,<imei>,1,<content>*<sum>\r\n`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { latin1, macColons, utc, wifiAttribute } from './text.ts';
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

const MAX_FRAME = 4096;
const PHOTO_MAX = 1 << 20;
const PART = 1024;

interface Session {
  last?: LastFix;
  photo?: { id: string; size: number; parts: Buffer[]; received: number };
}

/** `$$<n>,`: the frame is the header, n bytes, `*XX`; the CRLF after it is skipped. */
function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 10) return null;
      const comma = buf.indexOf(0x2c);
      if (comma < 0 || comma > 8) {
        if (comma < 0 && buf.length < 9) return null;
        throw new FrameError('fifotrack: no length');
      }
      const digits = buf.toString('latin1', 2, comma);
      if (buf[0] !== 0x24 || buf[1] !== 0x24 || !/^\d+$/.test(digits)) throw new FrameError('fifotrack: bad header');
      const length = comma + 3 + Number(digits);
      if (length > MAX_FRAME) throw new FrameError('fifotrack: frame too long');
      if (buf.length < length + 2) return null;
      return { frame: buf.subarray(0, length), consumed: length + 2 };
    },
  };
}

const sum = (s: string): string => {
  let x = 0;
  for (let i = 0; i < s.length; i++) x = (x + s.charCodeAt(i)) & 0xff;
  return x.toString(16).toUpperCase().padStart(2, '0');
};

/** `##<len>,<imei>,<content>*<sum>\r\n` with len = 1 + imei + 1 + content. */
function message(imei: string, content: string): Buffer {
  const head = `##${String(2 + imei.length + content.length).padStart(2, '0')},${imei},${content}*`;
  return latin1(`${head}${sum(head)}\r\n`);
}

const ALARMS: Record<number, string> = {
  2: Alarm.sos, 14: Alarm.lowPower, 15: Alarm.powerCut, 16: Alarm.powerRestored, 17: Alarm.lowBattery, 18: Alarm.overspeed,
  20: Alarm.gpsAntennaCut, 21: Alarm.vibration, 23: Alarm.hardAcceleration, 24: Alarm.hardBraking, 27: Alarm.fatigueDriving,
  30: Alarm.jamming, 32: Alarm.jamming, 31: Alarm.fallDown, 33: Alarm.geofenceExit, 34: Alarm.geofenceEnter, 35: Alarm.idle,
  40: Alarm.temperature, 41: Alarm.temperature, 53: Alarm.powerOn, 54: Alarm.powerOff,
};

const time = (t: string) => utc(Number(t.slice(0, 2)), Number(t.slice(2, 4)), Number(t.slice(4, 6)), Number(t.slice(6, 8)), Number(t.slice(8, 10)), Number(t.slice(10, 12)));

function coords(latS: string, lngS: string): { lat: number; lng: number } {
  const [lat, lng] = [Number(latS), Number(lngS)];
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('fifotrack: coordinates out of range');
  return { lat, lng };
}

const REPORT =
  /^\$\$\d+,(\d+),[0-9A-Fa-f]+,[^,]+,(\d+)?,(\d{12}),([AV]),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(-?\d+),(\d+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+)?,([0-9A-Fa-f]+)?,(\d+)\|(\d+)\|([0-9A-Fa-f]+)\|([0-9A-Fa-f]+),([0-9A-Fa-f|]+)(?:,([^,]+)(?:,([^*]*))?)?/;

function decodeReport(s: string, session: Session): DecodeResult {
  const m = REPORT.exec(s);
  if (!m) return {};
  const [, imei, alarm, t, valid, latS, lngS, speed, course, alt, odometer, hours, statusS, input, output, mcc, mnc, lac, cid, adc, rfid, sensors] = m;
  const status = parseInt(statusS.slice(-8), 16);
  const a: Record<string, AttrValue> = {
    [Attr.odometer]: Number(odometer),
    [Attr.hours]: Number(hours) * 1000,
    [Attr.rssi]: (status >>> 3) & 0x1f,
    [Attr.status]: status,
  };
  if (alarm && ALARMS[Number(alarm)]) a[Attr.alarm] = ALARMS[Number(alarm)];
  if (input !== undefined) a[Attr.input] = parseInt(input, 16);
  if (output !== undefined) a[Attr.output] = parseInt(output, 16);
  adc.split('|').slice(0, 8).forEach((v, i) => {
    if (/^[0-9A-Fa-f]{1,8}$/.test(v)) a[indexed.adc(i + 1)] = parseInt(v, 16);
  });
  if (rfid !== undefined) {
    if (/^[0-9A-Fa-f]{1,12}$/.test(rfid)) a[Attr.driverUniqueId] = String(parseInt(rfid, 16));
    else a.card = rfid;
  }
  sensors?.split('|').slice(0, 16).forEach((v, i) => {
    if (v) a[indexed.io(i + 1)] = v;
  });
  const rec: DeviceRecord = {
    time: time(t),
    valid: valid === 'A',
    ...coords(latS, lngS),
    speed: Number(speed),
    course: Number(course),
    altitude: Number(alt),
    satellites: Math.floor(status / 0x10000000),
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }],
    attributes: a,
  };
  rememberFix(session, rec);
  return { deviceId: imei, records: [rec] };
}

const REPORT_NEW =
  /^\$\$\d+,(\d+),([0-9A-Fa-f]+),A03,(\d+)?,(\d{12}),(\d+)\|(\d+)\|([0-9A-Fa-f]+)\|([0-9A-Fa-f]+),(\d+\.\d+),(\d+),([0-9A-Fa-f]+),(?:0,([AV]),(\d+),(\d+),(-?\d+\.\d+),(-?\d+\.\d+)|1,([^*]+))\*[0-9A-Fa-f]{2}/;

function decodeNew(s: string, ctx: DecodeContext, session: Session): DecodeResult {
  const m = REPORT_NEW.exec(s);
  if (!m) return {};
  const [, imei, index, alarm, t, mcc, mnc, lac, cid, battery, level, status, valid, speed, sats, lat, lng, wifi] = m;
  const a: Record<string, AttrValue> = { [Attr.battery]: Number(battery), [Attr.batteryLevel]: Number(level), [Attr.status]: parseInt(status.slice(-8), 16) };
  if (alarm && ALARMS[Number(alarm)]) a[Attr.alarm] = ALARMS[Number(alarm)];
  let rec: DeviceRecord = { time: time(t), cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }], attributes: a };
  if (valid !== undefined) {
    Object.assign(rec, { valid: valid === 'A', speed: Number(speed), satellites: Number(sats), ...coords(lat, lng) });
    a.sat = Number(sats);
    rememberFix(session, rec);
  } else {
    const points = wifi
      .split('|')
      .map((p) => /^([0-9A-Fa-f]{12}):(-?\d+)$/.exec(p))
      .filter((x): x is RegExpExecArray => !!x)
      .map((x) => ({ mac: macColons(x[1]), rssi: Number(x[2]) }));
    if (points.length) a.wifi = wifiAttribute(points);
    rec = withLastFix(rec, session);
  }
  const now = new Date(ctx.now).toISOString();
  const serverTime = now.slice(2, 4) + now.slice(5, 7) + now.slice(8, 10) + now.slice(11, 13) + now.slice(14, 16) + now.slice(17, 19);
  return { deviceId: imei, records: [rec], reply: message(imei, `${index},A03,${serverTime}`) };
}

function decodeResult(s: string, session: Session): DecodeResult {
  const m = /^\$\$\d+,(\d+),.*,([A-Z]+)\*[0-9A-Fa-f]{2}$/.exec(s);
  if (!m) return {};
  return { deviceId: m[1], records: [withLastFix({ attributes: { [Attr.result]: m[2] } }, session)] };
}

const requestPart = (imei: string, photo: NonNullable<Session['photo']>) =>
  message(imei, `1,D06,${photo.id},${photo.received},${Math.min(PART, photo.size - photo.received)}`);

/** D05: `...,<size>,<photo id>*XX` announces a photo; ask for its first part. */
function decodePhotoStart(s: string, session: Session): DecodeResult {
  const m = /^\$\$\d+,(\d+),.*,(\d+),([^*,]+)\*[0-9A-Fa-f]{2}$/.exec(s);
  if (!m) return {};
  const size = Number(m[2]);
  if (size <= 0 || size > PHOTO_MAX) throw new DecodeError('fifotrack: bad photo size');
  session.photo = { id: m[3], size, parts: [], received: 0 };
  return { deviceId: m[1], reply: requestPart(m[1], session.photo) };
}

/** D06: `$$<len>,<imei>,<index>,D06,<photo id>,<offset>,<size>,<bytes>*XX`. */
function decodePhotoPart(frame: Buffer, session: Session): DecodeResult {
  const head = /^\$\$\d+,(\d+),[0-9A-Fa-f]+,D06,([^,]+),(\d+),(\d+),/.exec(frame.toString('latin1', 0, Math.min(frame.length, 120)));
  const photo = session.photo;
  if (!head || !photo) return {};
  const data = frame.subarray(head[0].length, frame.length - 3);
  if (photo.received + data.length > photo.size) {
    session.photo = undefined;
    throw new DecodeError('fifotrack: photo larger than announced');
  }
  photo.parts.push(Buffer.from(data));
  photo.received += data.length;
  const imei = head[1];
  if (photo.received < photo.size) {
    if (!data.length) throw new DecodeError('fifotrack: empty photo part');
    return { deviceId: imei, reply: requestPart(imei, photo) };
  }
  session.photo = undefined;
  const rec = withLastFix({ attributes: { image: '' } }, session);
  return { deviceId: imei, records: [rec], media: [{ record: 0, attribute: 'image', data: Buffer.concat(photo.parts), extension: 'jpg' }] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const head = frame.toString('latin1', 0, Math.min(frame.length, 64)).split(',');
  if (head.length < 4 || !frame.subarray(0, 2).equals(Buffer.from('$$'))) throw new DecodeError('fifotrack: bad message');
  const type = head[3].slice(0, 3);
  if (type === 'D06') return decodePhotoPart(frame, session);
  const s = frame.toString('latin1');
  if (type.startsWith('B')) return decodeResult(s, session);
  if (type === 'D05') return decodePhotoStart(s, session);
  if (type === 'A03') return decodeNew(s, ctx, session);
  return decodeReport(s, session);
}

const COMMANDS: Record<string, (a: Command['attributes']) => string> = {
  custom: (a) => String(a.data ?? ''),
  requestPhoto: () => 'D05,3',
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`fifotrack: unsupported command ${command.type}`);
  return message(ctx.deviceId, `1,${build(command.attributes)}`);
}

export const protocol: Protocol = {
  name: 'fifotrack',
  defaultPort: 5124,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
