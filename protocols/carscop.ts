/**
 * Carscop text protocol: `*`-started messages cut at `^`.
 *
 *   `*<yymmddhhmmss><type><...>` where `UB05<15-char id>` is the login-bearing report, `UB00HSO` a
 *   heartbeat, and any message with a position ends with
 *   `<hhmmss><A|V><ddmm.mmmm><N|S><dddmm.mmmm><E|W><ddd.d knots><yymmdd><ddd.dd course>[<8 status digits>L<6 odometer digits>]`.
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import type { DecodeContext, DecodeResult, DeviceRecord, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const POSITION =
  /(\d\d)(\d\d)(\d\d)([AV])(\d{4}\.\d{4})([NS])(\d{5}\.\d{4})([EW])(\d{3}\.\d)(\d\d)(\d\d)(\d\d)(\d{3}\.\d\d)(?:(\d{8})L(\d{6}))?$/;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  const login = s.indexOf('UB05');
  const deviceId = login >= 0 && s.length >= login + 19 ? s.slice(login + 4, login + 19) : undefined;
  const m = s.startsWith('*') ? POSITION.exec(s) : null;
  if (!m || !(deviceId ?? ctx.deviceId)) return { deviceId };
  const [, hh, mi, ss, valid, lat, ns, lng, ew, knots, yy, mo, dd, course, status, odometer] = m;
  const rec: DeviceRecord = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: knotsToKmh(Number(knots)),
    course: Number(course) % 360,
    attributes: {},
  };
  if (status) {
    rec.attributes[Attr.status] = status;
    rec.attributes[Attr.odometer] = Number(odometer);
  }
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'carscop',
  defaultPort: 5040,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('carscop', [0x5e], MAX_FRAME),
  decode,
  commands: [],
};
