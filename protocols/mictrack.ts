/**
 * Mictrack (MT600, MT700, MP90 and compatible) text protocol.
 *
 *   standard      `MT;<type>;<imei>;<kind>;<data>` with `+`-separated data:
 *                 R0  sats+yymmddhhmmss+lat+lon+km/h+course+event+battery mV+...   (GNSS fix)
 *                 R1  time+wifi (mac,rssi,...)+event+battery                      (Wi-Fi)
 *                 R2/R3 time+cells (mnc,cid,lac,mcc[,rssi],...)+event+battery      (cells)
 *                 R12/R13 time+wifi+cells+event+battery, Y1 time+wifi with SSIDs+event+battery,
 *                 RH  sats+time+4 fix values+event+battery                         (status)
 *   low altitude  `<imei>$<hhmmss.ss>,A,<ddmm.mmmm>,N,<dddmm.mmmm>,E,<knots>,<course>,<altitude>,<ddmmyy>[$...]`
 *   answers       `<imei> <text>!` or `<text>!` to a command
 * Devices expect no answer. Records without a fix of their own take the connection's last one.
 */
import { Alarm, Attr } from './attributes.ts';
import { knotsToKmh, nmeaDegrees } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { FrameError, type Cell, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;

/** One message a line. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === 0x0d || buffer[start] === 0x0a)) start++;
      for (let i = start; i < buffer.length; i++) {
        if (buffer[i] === 0x0d || buffer[i] === 0x0a) return { frame: buffer.subarray(start, i), consumed: i + 1 };
        if (i - start > MAX_FRAME) throw new FrameError('mictrack: line too long');
      }
      if (buffer.length - start > MAX_FRAME) throw new FrameError('mictrack: line too long');
      return null;
    },
  };
}

const EVENTS: Record<number, string> = { 0: Alarm.powerOn, 5: Alarm.sos, 8: Alarm.lowBattery, 9: Alarm.geofenceEnter, 10: Alarm.geofenceExit, 12: Alarm.powerOff };

function time(s: string | undefined): number | undefined {
  const m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(s ?? '');
  if (!m) return undefined;
  const [yy, mo, dd, hh, mi, ss] = m.slice(1).map(Number);
  return Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss);
}

function event(rec: DeviceRecord, ev: string | undefined, battery: string | undefined): void {
  if (/^\d+$/.test(ev ?? '')) {
    const n = Number(ev);
    rec.attributes[Attr.event] = n;
    if (EVENTS[n]) rec.attributes[Attr.alarm] = EVENTS[n];
  }
  if (/^\d+$/.test(battery ?? '')) rec.attributes[Attr.battery] = Number(battery) / 1000;
}

/** `mac,rssi,...` or, with SSIDs, `ssid,mac,rssi,...`. */
function wifi(s: string, ssid: boolean): string {
  const v = s.split(',');
  const step = ssid ? 3 : 2;
  const out: string[] = [];
  for (let i = 0; i + step <= v.length && out.length < 32; i += step) {
    const [mac, rssi] = [v[i + step - 2], v[i + step - 1]];
    if (/^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$/.test(mac) && /^-?\d+$/.test(rssi)) out.push(`${mac.toLowerCase()}@${rssi}`);
  }
  return out.join(' ');
}

/** `mnc,cid,lac,mcc[,rssi]` groups. */
function cells(s: string): Cell[] {
  const v = s.split(',').map(Number);
  const step = v.length % 5 === 0 ? 5 : 4;
  const out: Cell[] = [];
  for (let i = 0; i + step <= v.length && out.length < 16; i += step) {
    const [mnc, cid, lac, mcc] = v.slice(i, i + 4);
    if ([mnc, cid, lac, mcc].every(Number.isInteger)) out.push({ mcc, mnc, lac, cid });
  }
  return out;
}

function decodeStandard(s: string, session: Session): DecodeResult {
  const [, type, imei, kind, data = ''] = s.split(';');
  if (!/^\d+$/.test(imei ?? '')) return {};
  const v = data.split('+');
  const rec: DeviceRecord = { attributes: { type: Number(type) } };
  if (kind === 'R0') {
    const [sats, t, lat, lng, speed, course, ev, battery] = v;
    const la = Number(lat);
    const lo = Number(lng);
    const when = time(t);
    if (when === undefined || !Number.isFinite(la) || !Number.isFinite(lo) || Math.abs(la) > 90 || Math.abs(lo) > 180) return { deviceId: imei };
    Object.assign(rec, { time: when, valid: true, lat: la, lng: lo, satellites: Number(sats) || 0, speed: Number(speed) || 0, course: (Number(course) || 0) % 360 });
    event(rec, ev, battery);
    rememberFix(session, rec);
    return { deviceId: imei, records: [rec] };
  }
  let i = 0;
  if (kind === 'RH') rec.satellites = Number(v[i++]) || 0;
  rec.time = time(v[i++]);
  if (kind === 'RH') i += 4;
  if (kind === 'R1' || kind === 'R12' || kind === 'R13' || kind === 'Y1') {
    const w = wifi(v[i++] ?? '', kind === 'Y1');
    if (w) rec.attributes.wifi = w;
  }
  if (kind === 'R2' || kind === 'R3' || kind === 'R12' || kind === 'R13') {
    const c = cells(v[i++] ?? '');
    if (c.length) rec.cells = c;
  }
  if (!['R1', 'R2', 'R3', 'R12', 'R13', 'RH', 'Y1'].includes(kind ?? '')) return { deviceId: imei };
  event(rec, v[i], v[i + 1]);
  return { deviceId: imei, records: [withLastFix(rec, session)] };
}

const LOW = /^(\d\d)(\d\d)(\d\d)(?:\.\d+)?,([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(-?\d+\.?\d*)?,(\d\d)(\d\d)(\d\d)$/;

function decodeLowAltitude(s: string, session: Session): DecodeResult {
  const at = s.indexOf('$');
  const imei = s.slice(0, at);
  if (!/^\d+$/.test(imei)) return {};
  const records: DeviceRecord[] = [];
  for (const part of s.slice(at + 1).split('$').slice(0, 64)) {
    const m = LOW.exec(part);
    if (!m) continue;
    const [, hh, mi, ss, validity, lat, ns, lng, ew, speed, course, altitude, dd, mo, yy] = m;
    const la = nmeaDegrees(Number(lat));
    const lo = nmeaDegrees(Number(lng));
    if (la > 90 || lo > 180) continue;
    const rec: DeviceRecord = {
      time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
      valid: validity === 'A',
      lat: ns === 'S' ? -la : la,
      lng: ew === 'W' ? -lo : lo,
      speed: knotsToKmh(Number(speed ?? 0)),
      course: Number(course ?? 0) % 360,
      altitude: Number(altitude ?? 0),
      attributes: {},
    };
    rememberFix(session, rec);
    records.push(rec);
  }
  return { deviceId: imei, records };
}

interface Session {
  last?: LastFix;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const session = ctx.session as Session;
  if (s.startsWith('MT;')) return decodeStandard(s, session);
  if (/^\d+\$/.test(s)) return decodeLowAltitude(s, session);
  if (!s) return {};
  // a command answer, with or without the IMEI in front, ending with `!`
  const m = /^(\d{15}) (.+)$/.exec(s);
  const text = (m ? m[2] : s).replace(/!$/, '');
  return { deviceId: m?.[1], records: [withLastFix({ attributes: { [Attr.result]: text } }, session)] };
}

export const protocol: Protocol = {
  name: 'mictrack',
  defaultPort: 5191,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
