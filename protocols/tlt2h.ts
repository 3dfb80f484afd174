/**
 * TLT-2H protocol (Xexun TLT-2H, MT500/MT600/MT700 and V-series trackers): text over TCP or UDP.
 *
 *   `#<imei>#<user>#<password>[#<door>#<fuel adc>#<power>#<battery>#<temperature>]#<status>#<count>\r\n`
 *   then `<count>` lines `#[<voltage>][#<mcc>,<mnc>,<lac>,<cid>]$GPRMC,...` or `...$WIFI,hhmmss.ss,A,
 *   <rssi>,<mac>,...,ddmmyy*XX`, the message ending with `##\r\n` (TCP framing).
 * Status words: AUTO/AUTOSTART (ignition on), AUTOSTOP/AUTOLOW (off), TOWED, SHAKE, SOS, DEF (power
 * cut), BLP/CLP (low battery / low power), OS/RS (geofence out / in), OVERSPEED.
 * The trackers expect no answer (none is sent). Wi-Fi lines place the record at the last known
 * location and keep the access points in `wifi` (`mac*rssi`, comma-separated) for a geolocation service.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 64 * 1024;
const END = Buffer.from('##\r\n');

/** Messages end with `##\r\n` (the end is not part of the frame). */
function createFramer(): Framer {
  return {
    next(buffer) {
      const end = buffer.indexOf(END);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('tlt2h: message too long');
        return null;
      }
      return { frame: buffer.subarray(0, end), consumed: end + END.length };
    },
  };
}

const HEADER = /^#(\d+)#[^#]*#\d*(?:#([01])#(\d+)#(\d+)#(\d+)#(\d+))?#([^#]+)#\d+$/;
const RMC = /^#(?:(\d\d|\d{4})|[0-9A-Fa-f]*)(?:#(?:(\d+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+))?)?\$GPRMC,(?:(\d\d)(\d\d)(\d\d)\.\d+)?,([AVL]),(?:(\d+)(\d\d\.\d+),([NS]),(\d+)(\d\d\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(\d\d)(\d\d)(\d\d))?/;
const WIFI = /^#(?:(\d\d|\d{4})|[0-9A-Fa-f]+)#?(?:(\d+),(\d+),([0-9A-Fa-f]+),([0-9A-Fa-f]+))?\$WIFI,(\d\d)(\d\d)(\d\d)\.\d+,[AVL],(.*)(\d\d)(\d\d)(\d\d)\*[0-9A-Fa-f]{2}/;

const STATUS: Record<string, [string, AttrValue]> = {
  AUTO: [Attr.ignition, true],
  AUTOSTART: [Attr.ignition, true],
  AUTOSTOP: [Attr.ignition, false],
  AUTOLOW: [Attr.ignition, false],
  TOWED: [Attr.alarm, Alarm.tow],
  SHAKE: [Attr.alarm, Alarm.vibration],
  SOS: [Attr.alarm, Alarm.sos],
  DEF: [Attr.alarm, Alarm.powerCut],
  BLP: [Attr.alarm, Alarm.lowBattery],
  CLP: [Attr.alarm, Alarm.lowPower],
  OS: [Attr.alarm, Alarm.geofenceExit],
  RS: [Attr.alarm, Alarm.geofenceEnter],
  OVERSPEED: [Attr.alarm, Alarm.overspeed],
};

interface Session {
  last?: LastFix;
}

/** Battery in the line: above 100 it is millivolts, else tenths of a volt. */
const voltage = (v: string) => (Number(v) > 100 ? Number(v) / 1000 : Number(v) / 10);
const utc = (dd: string, mo: string, yy: string, hh = '0', mi = '0', ss = '0') => Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss));

function rmcLine(line: string, ctx: DecodeContext): DeviceRecord | undefined {
  const m = RMC.exec(line);
  if (!m) return undefined;
  const [, volts, mcc, mnc, lac, cid, hh, mi, ss, validity, latD, latM, latH, lngD, lngM, lngH, speed, course, dd, mo, yy] = m;
  const rec: DeviceRecord = { valid: validity === 'A', attributes: {} };
  if (volts) rec.attributes[Attr.battery] = voltage(volts);
  if (cid) rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }];
  if (latD !== undefined) {
    rec.lat = (Number(latD) + Number(latM) / 60) * (latH === 'S' ? -1 : 1);
    rec.lng = (Number(lngD) + Number(lngM) / 60) * (lngH === 'W' ? -1 : 1);
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) return undefined;
    rec.speed = knotsToKmh(Number(speed ?? 0));
    rec.course = Math.min(Number(course ?? 0), 360);
    rec.time = utc(dd, mo, yy, hh, mi, ss);
    rememberFix(ctx.session as Session, rec);
  } else {
    const valid = rec.valid;
    withLastFix(rec, ctx.session as Session);
    if (rec.lat === undefined) rec.valid = valid;
  }
  return rec;
}

function wifiLine(line: string, ctx: DecodeContext): DeviceRecord | undefined {
  const m = WIFI.exec(line);
  if (!m) return undefined;
  const [, volts, mcc, mnc, lac, cid, hh, mi, ss, points, dd, mo, yy] = m;
  const rec: DeviceRecord = { time: utc(dd, mo, yy, hh, mi, ss), attributes: {} };
  if (volts) rec.attributes[Attr.battery] = voltage(volts);
  if (cid) rec.cells = [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }];
  const v = points.split(',');
  const aps: string[] = [];
  for (let i = 0; i + 1 < v.length && aps.length < 32; i += 2) {
    if (!/^-?\d+$/.test(v[i]) || !/^[0-9A-Fa-f]{12}$/.test(v[i + 1])) continue;
    aps.push(`${v[i + 1].replace(/(..)(?!$)/g, '$1:')}*${v[i]}`);
  }
  if (aps.length) rec.attributes.wifi = aps.join(',');
  return withLastFix(rec, ctx.session as Session);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  let s = frame.toString('latin1').trim();
  if (s.endsWith('##')) s = s.slice(0, -2).trimEnd();
  const eol = s.indexOf('\r');
  const h = HEADER.exec(eol < 0 ? s : s.slice(0, eol));
  if (!h) return {};
  const [, imei, door, adc, power, battery, temperature, status] = h;
  const common: Record<string, AttrValue> = {};
  if (door !== undefined) {
    Object.assign(common, { [Attr.door]: door === '1', [indexed.adc(1)]: Number(adc) / 10, [Attr.power]: Number(power) / 10, [Attr.battery]: Number(battery) / 10, [indexed.temp(1)]: Number(temperature) / 10 });
  }
  const st = STATUS[status];
  if (st) common[st[0]] = st[1];
  const records: DeviceRecord[] = [];
  const lines = s.slice(s.indexOf('\n') + 1).split('\r\n');
  for (const line of lines.slice(0, 256)) {
    let rec: DeviceRecord | undefined;
    if (line.includes('$GPRMC')) rec = rmcLine(line, ctx);
    else if (line.includes('$WIFI')) rec = wifiLine(line, ctx);
    else rec = withLastFix({ attributes: {} }, ctx.session as Session);
    if (!rec) continue;
    Object.assign(rec.attributes, common);
    records.push(rec);
  }
  return { deviceId: imei, records };
}

export const protocol: Protocol = {
  name: 'tlt2h',
  defaultPort: 5030,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
