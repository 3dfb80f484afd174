/**
 * V680 text protocol: `#<imei>#<user>#<fix>#<password>#<event>#<packets>#<lbs>#<lon>,E,<lat>,N,<speed>,<course>#<ddmmyy>#<hhmmss>##`.
 * Coordinates are decimal degrees, or NMEA `dddmm.mmmm` when a value is out of the degree range.
 * A bare `#<imei>` (16 characters) identifies the device; frames end with `##`. A report can carry
 * several fixes (`<packets>` > 1): the first is decoded, as the device's own order puts the newest
 * first. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;

function createFramer(): Framer {
  return {
    next(buf) {
      let start = 0;
      while (start < buf.length && (buf[start] === 0x0d || buf[start] === 0x0a)) start++;
      const end = buf.indexOf('##', start);
      if (end < 0 || end - start > MAX_FRAME) {
        if (buf.length - start > MAX_FRAME) throw new FrameError('v680: no ## within max frame size');
        return null;
      }
      return { frame: buf.subarray(start, end), consumed: end + 2 };
    },
  };
}

const HEAD = /^(\d+)$/;
const LOCATION = /^(\d+\.\d+),([EW]),(\d+\.\d+),([NS]),(\d+\.\d+),(\d+\.?\d*)?$/;

/** The fields of a report, split at `#` (one regex over the whole line would backtrack badly). */
function fields(s: string): { imei?: string; user?: string; f: string[] } | undefined {
  if (!s.startsWith('#')) return { f: s.split('#', 32) };
  const all = s.slice(1).split('#', 34);
  if (all.length < 3 || !HEAD.test(all[0])) return undefined;
  return { imei: all[0], user: all[1], f: all.slice(2) };
}

/** Decimal degrees, or NMEA degrees+minutes when either value is out of range. */
function coordinates(lon: number, lat: number): [number, number] {
  if (lat <= 90 && lon <= 180) return [lon, lat];
  const dm = (v: number) => Math.trunc(v / 100) + (v - Math.trunc(v / 100) * 100) / 60;
  return [dm(lon), dm(lat)];
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim().replace(/#+$/, '');
  if (s.length === 16 && s.startsWith('#')) return { deviceId: s.slice(1) };
  const parts = fields(s);
  if (!parts) return {};
  const { imei, user, f } = parts;
  // fix # password # event # packets # [lbs #] [V #] location # ddmmyy # hhmmss
  if (!/^\d+$/.test(f[0] ?? '') || !f[2] || !/^\d+$/.test(f[3] ?? '')) return {};
  const at = f.findIndex((v, i) => i >= 4 && i <= 6 && LOCATION.test(v));
  if (at < 0) return {};
  const loc = LOCATION.exec(f[at])!;
  const date = /^(\d\d)(\d\d)(\d\d)$/.exec(f[at + 1] ?? '');
  const time = /^(\d\d)(\d\d)(\d\d)/.exec(f[at + 2] ?? '');
  if (!date || !time) return {};
  const [fix, event, packets, lbs] = [f[0], f[2], f[3], at > 4 ? f[4] : undefined];
  const [, lonS, ew, latS, ns, speed, course] = loc;
  const [, dd, mo, yy] = date;
  const [, hh, mi, ss] = time;
  if (Number(dd) === 0 && Number(mo) === 0) return imei ? { deviceId: imei } : {}; // no date: no data yet
  const [lon, lat] = coordinates(Number(lonS), Number(latS));
  if (lat > 90 || lon > 180) throw new DecodeError('v680: coordinates out of range');
  const rec: DeviceRecord = {
    time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: Number(fix) > 0,
    lat: ns === 'S' ? -lat : lat,
    lng: ew === 'W' ? -lon : lon,
    speed: knotsToKmh(Number(speed)),
    course: Number(course ?? 0),
    attributes: { [Attr.event]: event, packet: Number(packets) },
  };
  if (user) rec.attributes.user = user;
  if (lbs && lbs !== 'V') rec.attributes.lbsData = lbs;
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'v680',
  defaultPort: 5016,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
