/**
 * HunterPro text protocol, messages cut at CR: `><id><$GPRMC,<hhmmss[.sss]>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,
 * [<knots>],[<course>],<ddmmyy>,...`. The devices expect no answer.
 */
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^>(\d+)<\$GPRMC,(\d\d)(\d\d)(\d\d)(?:\.\d*)?,([AV]),(\d{4}\.\d+),([NS]),(\d{5}\.\d+),([EW]),(\d+\.?\d*)?,(\d+\.?\d*)?,(\d\d)(\d\d)(\d\d)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('hunterpro: not a report');
  const [, id, hh, mi, ss, valid, lat, ns, lng, ew, knots, course, dd, mo, yy] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: knotsToKmh(Number(knots ?? 0)),
    course: Number(course ?? 0) % 360,
    attributes: {},
  };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'hunterpro',
  defaultPort: 5116,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('hunterpro', [0x0d], MAX_FRAME),
  decode,
  commands: [],
};
