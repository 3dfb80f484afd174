/**
 * FutureWay text protocol: `41 | 8 hex digits length | 2 hex type | 4 hex index` (16 characters), a body,
 * then 2 hex checksum and `42`; the length counts the body, the whole frame is length + 17 characters.
 * Type 0x20 is the login (`0,IMEI:<imei>,battery level:..,network type:..,CSQ:..`); type 0xA0 a report of
 * CRLF-separated lines: `IMEI:<imei>`, `GPS:<A|V>,<yymmddhhmmss>,<lat>,<lon>,<speed km/h>,<course>` (ddmm.mmmm
 * or decimal degrees, each with its hemisphere letter), `WIFI:<n>,<i>|<mac>|<rssi>&...`,
 * `LBS:<mcc>,<mnc>,<lac>,<cid>` (a third value over 65535 is the cell id, the fourth the LAC),
 * `battery level:<%>`, `Steps:<n>`. A report without a GPS line gets the last location of the connection.
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { nmeaCoordinate, utc, wifiAttribute } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const LOGIN = 0x20;
const REPORT = 0xa0;
const GPS = /^GPS:([AV]),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(?:(\d{4}\.\d+)([NS]),(\d{5}\.\d+)([EW])|(\d+\.\d+)([NS]),(\d+\.\d+)([EW])),(\d+\.\d+),(\d+\.\d+)/;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 10) return null;
      const digits = buffer.toString('latin1', 2, 10);
      if (!/^[0-9A-Fa-f]{8}$/.test(digits)) throw new FrameError('futureway: bad length');
      const length = parseInt(digits, 16) + 17;
      if (length > MAX_FRAME) throw new FrameError('futureway: frame too long');
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

function gps(line: string, rec: DeviceRecord): void {
  const m = GPS.exec(line);
  if (!m) throw new DecodeError('futureway: bad GPS line');
  const [, valid, yy, mo, dd, hh, mi, ss, nmeaLat, ns1, nmeaLng, ew1, lat, ns2, lng, ew2, speed, course] = m;
  rec.valid = valid === 'A';
  rec.time = utc(+yy, +mo, +dd, +hh, +mi, +ss);
  if (nmeaLat) {
    rec.lat = nmeaCoordinate(nmeaLat, ns1);
    rec.lng = nmeaCoordinate(nmeaLng, ew1);
  } else {
    rec.lat = ns2 === 'S' ? -Number(lat) : Number(lat);
    rec.lng = ew2 === 'W' ? -Number(lng) : Number(lng);
  }
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('futureway: coordinates out of range');
  rec.speed = Number(speed);
  rec.course = Number(course) % 360;
}

function report(body: string, ctx: DecodeContext): DecodeResult {
  const rec: DeviceRecord = { attributes: {} };
  let deviceId: string | undefined;
  for (const line of body.split('\r\n')) {
    if (line.startsWith('IMEI:')) deviceId = /^IMEI:(\d{1,20})$/.exec(line)?.[1];
    else if (line.startsWith('GPS')) gps(line, rec);
    else if (line.startsWith('WIFI:') && line.includes(',')) {
      const points = line.slice(line.indexOf(',') + 1).split('&').map((item) => {
        const [, mac, rssi] = item.split('|');
        if (!mac || !/^[0-9A-Fa-f]{2}(-[0-9A-Fa-f]{2}){5}$/.test(mac)) throw new DecodeError('futureway: bad Wi-Fi point');
        return { mac: mac.replace(/-/g, ':'), rssi: Number(rssi) };
      });
      rec.attributes.wifi = wifiAttribute(points);
    } else if (line.startsWith('LBS:')) {
      const v = line.slice(4).split(',').map(Number);
      if (v.length < 4 || v.slice(0, 4).some((x) => !Number.isInteger(x))) throw new DecodeError('futureway: bad cell');
      const [lac, cid] = v[2] > 65535 ? [v[3], v[2]] : [v[2], v[3]];
      rec.cells = [{ mcc: v[0], mnc: v[1], lac, cid }];
    } else if (line.startsWith('battery level:')) rec.attributes[Attr.batteryLevel] = Number(line.slice(14));
    else if (line.startsWith('Steps:')) rec.attributes[Attr.steps] = Number(line.slice(6));
  }
  const session = ctx.session as { last?: LastFix };
  if (rec.lat === undefined) withLastFix(rec, session);
  else rememberFix(session, rec);
  rec.time ??= ctx.now;
  return { ...(deviceId ? { deviceId } : {}), records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const text = frame.toString('latin1');
  if (text.length < 20 || !/^[0-9A-Fa-f]{16}/.test(text)) throw new DecodeError('futureway: bad header');
  const type = parseInt(text.slice(10, 12), 16);
  const body = text.slice(16, text.length - 4);
  if (type === LOGIN) {
    const imei = /IMEI:(\d{1,20})/.exec(body)?.[1];
    return imei ? { deviceId: imei } : {};
  }
  if (type === REPORT) return report(body, ctx);
  return {};
}

export const protocol: Protocol = {
  name: 'futureway',
  defaultPort: 5213,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
