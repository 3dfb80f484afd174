/**
 * Helpers shared by the line-based text protocols: a delimiter framer, NMEA coordinates and
 * the dates and times these protocols spell in a dozen ways.
 */
import { knotsToKmh, nmeaDegrees } from './binary.ts';
import { DecodeError, type DeviceRecord, FrameError, type Framer } from './types.ts';

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

/** The fix of a line-based report: `A`/`V` validity, NMEA coordinates with hemispheres, km/h, degrees. */
export function nmeaFix(time: number, valid: string, lat: string, ns: string, lng: string, ew: string, speed: number, course: number): DeviceRecord {
  return { time, valid: valid === 'A', lat: nmeaCoordinate(lat, ns), lng: nmeaCoordinate(lng, ew), speed, course: course % 360, attributes: {} };
}

const GPRMC = /^\$GPRMC,(\d\d)(\d\d)(\d\d)\.?\d*,([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.\d+)?,(\d+\.\d+)?,(\d\d)(\d\d)(\d\d)/;

/** The fix of a `$GPRMC` sentence at the start of `s` (speed knots → km/h); undefined when it is none or out of range. */
export function gprmcFix(s: string): DeviceRecord | undefined {
  const m = GPRMC.exec(s);
  if (!m) return undefined;
  const [, hh, mi, ss, valid, lat, ns, lng, ew, knots, course, dd, mo, yy] = m;
  if (Number(course ?? 0) > 360 || Number(lat) >= 9000 || Number(lng) >= 18000) return undefined;
  return nmeaFix(utc(+yy, +mo, +dd, +hh, +mi, +ss), valid, lat, ns, lng, ew, knotsToKmh(Number(knots ?? 0)), Number(course ?? 0));
}

/** For JSON bodies: `v` when it is an object (not an array), else an empty one. */
export const jsonObject = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
/** For JSON bodies: `v` when it is a finite number, else undefined. */
export const jsonNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
