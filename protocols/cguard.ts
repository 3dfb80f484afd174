/**
 * CGuard trackers: one text message per line.
 *
 *   `IDRO:<IMEI>` login (answered `OK`), `VERSION:<v>`, `PING`
 *   `NV:<yymmdd hhmmss>:<lat>:<lng>:<km/h>:<accuracy m | NAN>:<course>[:<altitude>]` position
 *   `BC:<yymmdd hhmmss>:<key>:<value>:...` status: CSQ1 signal, NSQ1 satellites in use, NSQ2 GLONASS
 *   satellites, BAT1 battery (percent, or volts when it has a decimal point), PWR1 supply volts,
 *   CLG1 fuel level; `NAN` means not available.
 */
import { Attr, indexed } from './attributes.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 1024;

/** Lines end with LF (CR before it is dropped); empty lines are skipped. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (buffer[start] === 0x0d || buffer[start] === 0x0a) start++;
      const end = buffer.indexOf(0x0a, start);
      if (end < 0) {
        if (buffer.length - start > MAX_FRAME) throw new FrameError('cguard: line too long');
        return null;
      }
      const stop = buffer[end - 1] === 0x0d ? end - 1 : end;
      if (stop <= start) return null;
      return { frame: buffer.subarray(start, stop), consumed: end + 1 };
    },
  };
}

const time = (d: string) => {
  const m = /^(\d\d)(\d\d)(\d\d) (\d\d)(\d\d)(\d\d)$/.exec(d);
  if (!m) throw new DecodeError('cguard: bad time');
  const [, yy, mo, dd, hh, mi, ss] = m.map(Number);
  return Date.UTC(2000 + yy, mo - 1, dd, hh, mi, ss);
};
const num = (v: string | undefined) => (v === undefined || v === 'NAN' || v === '' ? undefined : Number(v));

function position(f: string[]): DeviceRecord {
  const [t, lat, lng, speed, accuracy, course, altitude] = f;
  const rec: DeviceRecord = { time: time(t), valid: true, lat: Number(lat), lng: Number(lng), speed: num(speed) ?? 0, course: (num(course) ?? 0) % 360, attributes: {} };
  if (!Number.isFinite(rec.lat) || !Number.isFinite(rec.lng) || Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('cguard: bad coordinates');
  if (!Number.isFinite(rec.speed!) || !Number.isFinite(rec.course!)) throw new DecodeError('cguard: bad speed or course');
  const precision = num(accuracy);
  if (precision !== undefined && Number.isFinite(precision)) rec.precision = precision;
  const alt = num(altitude);
  if (alt !== undefined && Number.isFinite(alt)) rec.altitude = alt;
  return rec;
}

const STATUS: Record<string, (v: string, a: Record<string, AttrValue>) => void> = {
  CSQ1: (v, a) => (a[Attr.rssi] = Number(v)),
  NSQ1: (v, a) => (a.satellitesGps = Number(v)),
  NSQ2: (v, a) => (a.satellitesGlonass = Number(v)),
  BAT1: (v, a) => (v.includes('.') ? (a[Attr.battery] = Number(v)) : (a[Attr.batteryLevel] = Number(v))),
  PWR1: (v, a) => (a[Attr.power] = Number(v)),
  CLG1: (v, a) => (a[indexed.fuel(1)] = Number(v)),
};

function status(f: string[]): DeviceRecord {
  const a: Record<string, AttrValue> = {};
  for (let i = 1; i + 1 < f.length; i += 2) {
    const set = STATUS[f[i]];
    if (set && num(f[i + 1]) !== undefined && Number.isFinite(Number(f[i + 1]))) set(f[i + 1], a);
  }
  return { time: time(f[0]), attributes: a };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const colon = s.indexOf(':');
  const kind = colon < 0 ? s : s.slice(0, colon);
  const fields = s.slice(colon + 1).split(':');
  switch (kind) {
    case 'IDRO':
    case 'ID':
      if (!/^\d{1,20}$/.test(fields[0])) throw new DecodeError('cguard: bad id');
      return { deviceId: fields[0], reply: Buffer.from('OK\r\n') };
    case 'NV':
      return { records: [position(fields)] };
    case 'BC':
      return { records: [status(fields)] };
    default:
      return {}; // VERSION, PING
  }
}

export const protocol: Protocol = {
  name: 'cguard',
  defaultPort: 5123,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
  carriesText: false,
};
