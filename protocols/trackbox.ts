/**
 * Trackbox text protocol, one message a line:
 *   login `a=connect&v=<version>&i=<imei>`
 *   fix   `<hhmmss.sss>,<ddmm.mmmm><N|S>,<dddmm.mmmm><E|W>,<hdop>,<altitude>,<fix 0-3>,<course>,<km/h>,<knots>,<ddmmyy>,<satellites>`
 * Both are answered `=OK=\r\n`.
 */
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, latin1, nmeaCoordinate, utc } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const OK = '=OK=\r\n';
const LOGIN = /^a=connect&.*?\bi=(\w+)/;
const FIX = /^(\d\d)(\d\d)(\d\d)\.(\d{3}),(\d{4}\.\d{4})([NS]),(\d{5}\.\d{4})([EW]),(\d+\.\d),(-?\d+\.?\d*),(\d),(\d+\.\d+),\d+\.\d+,(\d+\.\d+),(\d\d)(\d\d)(\d\d),(\d+)/;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const login = LOGIN.exec(s);
  if (login) return { deviceId: login[1], reply: latin1(OK) };
  const m = FIX.exec(s);
  if (!m || !ctx.deviceId) return {};
  const [, hh, mi, ss, ms, lat, ns, lng, ew, hdop, altitude, fix, course, knots, dd, mo, yy, sats] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss, +ms),
    valid: Number(fix) > 0,
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    hdop: Number(hdop),
    altitude: Number(altitude),
    course: Number(course) % 360,
    speed: knotsToKmh(Number(knots)),
    satellites: Number(sats),
    attributes: { fixType: Number(fix) },
  };
  return { records: [rec], reply: latin1(OK) };
}

export const protocol: Protocol = {
  name: 'trackbox',
  defaultPort: 5068,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('trackbox', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
