/**
 * GpsGate protocol (trackers and phone apps speaking the GpsGate server protocol): NMEA-style text
 * lines, each `$<sentence>*XX` and CR LF.
 *
 *   `$FRLIN,<domain>,<user or IMEI>,<password>`  login; answered `$FRSES,<session id>` or
 *     `$FRERR,AuthError,<message>` (unknown device, parse error).
 *   `$FRVER,<major>,<minor>,<name>`  version notification; answered with ours.
 *   `$GPRMC,...`  a position of the logged-in device (speed in knots).
 *   `$FRCMD,<imei>,_SendMessage,,<ddmm.mmmm>,N,<dddmm.mmmm>,E,<altitude>,<knots>,<course>,ddmmyy,hhmmss,<valid>[,<key=value>...]`
 *     a position sent as a command; `_Ping` keeps the link (no position, no answer).
 */
import { Alarm, Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;

/** Lines end with LF, CR LF or NUL. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && (buffer[start] === 0x0d || buffer[start] === 0x0a || buffer[start] === 0)) start++;
      for (let i = start; i < buffer.length; i++) {
        if (buffer[i] === 0x0a || buffer[i] === 0x00 || buffer[i] === 0x0d) return { frame: buffer.subarray(start, i), consumed: i + 1 };
        if (i - start > MAX_FRAME) break;
      }
      if (buffer.length - start > MAX_FRAME) throw new FrameError('gpsgate: line too long');
      return null;
    },
  };
}

/** `$<body>*XX\r\n` with the NMEA checksum (XOR of the body). */
export function sentence(body: string): Buffer {
  let x = 0;
  for (const b of Buffer.from(body, 'latin1')) x ^= b;
  return Buffer.from(`$${body}*${x.toString(16).toUpperCase().padStart(2, '0')}\r\n`, 'latin1');
}

/** A session id stable for a device (FNV-1a of its id), so no clock or randomness is needed. */
function sessionId(id: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

const RMC = /^\$GPRMC,(\d\d)(\d\d)(\d\d)\.?\d*,([AV]),(\d\d)(\d\d\.\d+),([NS]),(\d{3})(\d\d\.\d+),([EW]),(\d+\.\d+)?,(\d+\.\d+)?,(\d\d)(\d\d)(\d\d)/;
const FRCMD = /^\$FRCMD,(\d+),[^,]*,[^,]*,(\d+)(\d\d\.\d+),([NS]),(\d+)(\d\d\.\d+),([EW]),(\d+\.?\d*),(\d+\.?\d*),(\d+\.?\d*)?,(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d)\.?\d*,([01])((?:,[^,*]*)*)/;

const utc = (dd: string, mo: string, yy: string, hh: string, mi: string, ss: string) => Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss));
const coordinate = (d: string, m: string, hem: string) => (Number(d) + Number(m) / 60) * (hem === 'S' || hem === 'W' ? -1 : 1);

function inRange(rec: DeviceRecord): DeviceRecord | undefined {
  return Math.abs(rec.lat!) <= 90 && Math.abs(rec.lng!) <= 180 && (rec.course ?? 0) <= 360 ? rec : undefined;
}

function decodeRmc(s: string): DeviceRecord | undefined {
  const m = RMC.exec(s);
  if (!m) return undefined;
  const [, hh, mi, ss, validity, latD, latM, latH, lngD, lngM, lngH, speed, course, dd, mo, yy] = m;
  return inRange({ time: utc(dd, mo, yy, hh, mi, ss), valid: validity === 'A', lat: coordinate(latD, latM, latH), lng: coordinate(lngD, lngM, lngH), speed: knotsToKmh(Number(speed ?? 0)), course: Number(course ?? 0), attributes: {} });
}

function decodeFrcmd(s: string): DecodeResult {
  const m = FRCMD.exec(s);
  if (!m) {
    const id = /^\$FRCMD,(\d+),/.exec(s)?.[1];
    return id ? { deviceId: id } : {};
  }
  const [, id, latD, latM, latH, lngD, lngM, lngH, altitude, speed, course, dd, mo, yy, hh, mi, ss, valid, extra] = m;
  const rec = inRange({ time: utc(dd, mo, yy, hh, mi, ss), valid: valid === '1', lat: coordinate(latD, latM, latH), lng: coordinate(lngD, lngM, lngH), altitude: Number(altitude), speed: knotsToKmh(Number(speed)), course: Number(course ?? 0), attributes: {} });
  if (!rec) return { deviceId: id };
  // Extra `key=value` fields: the SOS button and the supply voltage are the known ones.
  for (const pair of extra.split(',').slice(1, 32)) {
    const [key, value] = pair.split('=');
    if (key === 'SosButton' && value === '1') rec.attributes[Attr.alarm] = Alarm.sos;
    else if (key === 'voltage' && value !== undefined && value !== '' && Number.isFinite(Number(value))) rec.attributes[Attr.power] = Number(value);
  }
  return { deviceId: id, records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (s.startsWith('$FRLIN,')) {
    // `$FRLIN,<domain>,<user or IMEI>,<password>`: the third field names the device.
    const id = s.split(',')[2]?.split('*')[0];
    if (!id) return { reply: sentence('FRERR,AuthError,Parse error') };
    return { deviceId: id, reply: sentence(`FRSES,${sessionId(id)}`) };
  }
  if (s.startsWith('$FRVER,')) return { reply: sentence('FRVER,1,0,FSM gateway 1.0') };
  if (s.startsWith('$GPRMC,')) {
    if (!ctx.deviceId) return {};
    const rec = decodeRmc(s);
    return rec ? { records: [rec] } : {};
  }
  if (s.startsWith('$FRCMD,')) return decodeFrcmd(s);
  return {};
}

/** An unknown device's login is refused with FRERR. */
function refuse(): Buffer {
  return sentence('FRERR,AuthError,Unknown device');
}

export const protocol: Protocol = {
  name: 'gpsgate',
  defaultPort: 5026,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  refuse,
  carriesText: false,
};
