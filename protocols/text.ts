/**
 * Helpers shared by the line-based text protocols: a delimiter framer, NMEA coordinates and
 * the dates and times these protocols spell in a dozen ways.
 */
import { knotsToKmh, nmeaDegrees } from './binary.ts';
import { DecodeError, FrameError, type DecodeResult, type DeviceRecord, type Framer } from './types.ts';

/**
 * Frames end at any of `delimiters` (bytes); the delimiter is kept in the frame when `keep` says so.
 * Leading delimiters (the LF after a CR) are skipped. More than `max` bytes without one is garbage.
 */
export function delimitedFramer(name: string, delimiters: number[], max: number, keep = false): Framer {
  const ends = new Uint8Array(256);
  for (const d of delimiters) ends[d] = 1;
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && ends[buffer[start]] && !keep) start++;
      const limit = Math.min(buffer.length, start + max + 1);
      for (let i = start; i < limit; i++) {
        if (ends[buffer[i]]) return { frame: buffer.subarray(start, keep ? i + 1 : i), consumed: i + 1 };
      }
      if (buffer.length - start > max) throw new FrameError(`${name}: no delimiter within ${max} bytes`);
      return null;
    },
  };
}

/**
 * Frames run from a `start` byte to the next `end` byte, both kept; bytes before a start are skipped.
 * More than `max` bytes without a start, or after a start without an end, is garbage.
 */
export function bracketedFramer(name: string, start: number, end: number, max: number): Framer {
  return {
    next(buffer) {
      const from = buffer.indexOf(start);
      if (from < 0) {
        if (buffer.length > max) throw new FrameError(`${name}: no message start`);
        return null;
      }
      const to = buffer.indexOf(end, from);
      if (to < 0) {
        if (buffer.length - from > max) throw new FrameError(`${name}: message too long`);
        return null;
      }
      return { frame: buffer.subarray(from, to + 1), consumed: to + 1 };
    },
  };
}

/** NMEA `ddmm.mmmm` (or `dddmm.mmmm`) with its hemisphere letter; throws on nonsense. */
export function nmeaCoordinate(value: string, hemisphere: string, what = 'coordinate'): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new DecodeError(`bad ${what}`);
  const deg = nmeaDegrees(Number(value));
  if (deg > 180) throw new DecodeError(`${what} out of range`);
  return hemisphere === 'S' || hemisphere === 'W' ? -deg : deg;
}

/** UTC instant from two-digit-year parts; throws when a part is out of range. */
export function utc(year: number, month: number, day: number, h = 0, m = 0, s = 0, ms = 0): number {
  if (year < 100) year += 2000;
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= 31 && h < 24 && m < 60 && s < 61)) throw new DecodeError('bad date');
  return Date.UTC(year, month - 1, day, h, m, s, ms);
}

/** A time of day (UTC) placed on the day nearest to `now`: for messages that carry no date. */
export function timeOfDay(now: number, h: number, m: number, s: number, ms = 0): number {
  if (!(h < 24 && m < 60 && s < 61)) throw new DecodeError('bad time');
  const day = Math.floor(now / 86_400_000) * 86_400_000;
  let t = day + ((h * 60 + m) * 60 + s) * 1000 + ms;
  if (t - now > 12 * 3_600_000) t -= 86_400_000;
  else if (now - t > 12 * 3_600_000) t += 86_400_000;
  return t;
}

/** `hhmmss[.sss]` as its parts. */
export function hms(value: string): [number, number, number, number] {
  const m = /^(\d\d)(\d\d)(\d\d)(?:\.(\d+))?$/.exec(value);
  if (!m) throw new DecodeError('bad time');
  return [Number(m[1]), Number(m[2]), Number(m[3]), m[4] ? Math.round(Number(`0.${m[4]}`) * 1000) : 0];
}

/** Number of a field, or undefined when empty or not a number. */
export function num(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

export const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

/** Wi-Fi access points as the `wifi` attribute: `mac,rssi` entries (MAC as `aa:bb:...`) joined by `;`. */
export function wifiAttribute(points: Array<{ mac: string; rssi?: number }>): string {
  return points.map((p) => `${p.mac.toLowerCase()}${p.rssi !== undefined ? `,${p.rssi}` : ''}`).join(';');
}

/** `aabbccddeeff` -> `aa:bb:cc:dd:ee:ff`. */
export const macColons = (hex: string): string => hex.replace(/(..)(?!$)/g, '$1:');

/** The Luhn check digit of a digit string (the 15th digit of an IMEI from its first 14). */
export function luhnDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** A command's time zone (`GMT+6`, `UTC-05:30`, `+0530`, `-3`) as minutes east of UTC; throws on anything else. */
export function zoneOffsetMinutes(value: unknown): number {
  const m = /^(?:GMT|UTC)?\s*([+-])?(\d{1,2})(?::?(\d\d))?$/i.exec(String(value ?? '').trim());
  if (!m || Number(m[2]) > 14 || Number(m[3] ?? 0) > 59) throw new Error(`unsupported time zone ${String(value)}`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** The text fields of an NMEA-style fix (RMC and its many copies), as matched. */
export interface NmeaFields {
  dd: string;
  mo: string;
  yy: string;
  hh: string;
  mi: string;
  ss: string;
  ms?: string;
  valid: string;
  lat: string;
  ns: string;
  lng: string;
  ew: string;
  knots?: string;
  course?: string;
}

/** A fix from NMEA-style fields: `A` valid, ddmm.mmmm coordinates, speed in knots, course in degrees. */
export function nmeaFix(f: NmeaFields): DeviceRecord {
  return {
    time: utc(+f.yy, +f.mo, +f.dd, +f.hh, +f.mi, +f.ss, f.ms ? Math.round(Number(`0.${f.ms}`) * 1000) : 0),
    valid: f.valid === 'A',
    lat: nmeaCoordinate(f.lat, f.ns),
    lng: nmeaCoordinate(f.lng, f.ew),
    speed: knotsToKmh(Number(f.knots || 0)),
    course: Number(f.course || 0) % 360,
    attributes: {},
  };
}

const RMC = String.raw`\$GPRMC,(\d\d)(\d\d)(\d\d)(?:\.\d*)?,([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(\d\d)(\d\d)(\d\d)`;

/**
 * A decoder for protocols that send a plain RMC sentence after the device id: `prefix` is the source of a
 * regular expression with one group, the id (`>(\d+)<` for `>123<$GPRMC,...`). Fractions of a second are dropped.
 */
export function rmcAfterId(name: string, prefix: string): (frame: Buffer) => DecodeResult {
  const sentence = new RegExp(`${prefix}${RMC}`);
  return (frame) => {
    const m = sentence.exec(frame.toString('latin1'));
    if (!m) throw new DecodeError(`${name}: not a report`);
    return { deviceId: m[1], records: [rmcGroups(m, 2)] };
  };
}

const RMC_ALONE = new RegExp(`^${RMC}`);

/** The fix of a `$GPRMC,...` sentence at the start of `text`, or undefined. */
export function parseRmc(text: string): DeviceRecord | undefined {
  const m = RMC_ALONE.exec(text);
  return m ? rmcGroups(m, 1) : undefined;
}

function rmcGroups(m: RegExpExecArray, at: number): DeviceRecord {
  const [hh, mi, ss, valid, lat, ns, lng, ew, knots, course, dd, mo, yy] = m.slice(at);
  return nmeaFix({ dd, mo, yy, hh, mi, ss, valid, lat, ns, lng, ew, knots, course });
}

/**
 * Degrees and minutes as separate fields, the minutes' fraction digits apart where the dot is
 * missing (`17248488N` = 17°24.8488'), signed by the hemisphere letter.
 */
export function degMin(deg: string, min: string, frac: string, hemisphere: string): number {
  const value = Number(deg) + Number(frac ? `${min}.${frac}` : min) / 60;
  return hemisphere === 'S' || hemisphere === 'W' ? -value : value;
}
