/**
 * ManPower text protocol, messages cut at `;`:
 *   `simei:<imei>,<x>,<x>,<status>,<n>,<n>,<n.n>,<yymmddhhmmss>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,[<E|W>],<knots>,...`
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaCoordinate, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^simei:(\d+),[^,]*,[^,]*,([^,]*),\d+,\d+,\d+\.?\d*,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([AV]),(\d{4}\.\d{4}),([NS]),(\d{5}\.\d{4}),([EW])?,(\d+\.?\d*),/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('manpower: not a report');
  const [, imei, status, yy, mo, dd, hh, mi, ss, valid, lat, ns, lng, ew, knots] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew ?? 'E'),
    speed: knotsToKmh(Number(knots)),
    attributes: { [Attr.status]: status },
  };
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'manpower',
  defaultPort: 5042,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('manpower', [0x3b], MAX_FRAME),
  decode,
  commands: [],
};
