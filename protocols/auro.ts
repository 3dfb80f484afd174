/**
 * Auro text protocol, one message a line:
 *   `M<index 4>T<phone>I<imei>E<n>W*****<local time 12>........#........<status 10><±dddmm.mmmm lon><±dddmm.mmmm lat>
 *    <ddmmyyyy><hhmmss><course 3><6 digits><km/h 3><digit><battery 2><charging 0|1>...`
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^M(\d{4})T\d+I(\d+)E\d+W\*{5}\d{12}.{8}#.{8}\d{10}([-+])(\d{3})(\d\d)(\d{4})([-+])(\d{3})(\d\d)(\d{4})(\d\d)(\d\d)(\d{4})(\d\d)(\d\d)(\d\d)(\d{3})\d{6}(\d{3})\d(\d\d)([01])/;

const coordinate = (sign: string, deg: string, min: string, frac: string) => (sign === '-' ? -1 : 1) * (Number(deg) + (Number(min) + Number(frac) / 10000) / 60);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('auro: not a report');
  const [, index, imei, lngS, lngD, lngM, lngF, latS, latD, latM, latF, dd, mo, yyyy, hh, mi, ss, course, speed, battery, charging] = m;
  const rec = {
    time: utc(+yyyy, +mo, +dd, +hh, +mi, +ss),
    valid: true,
    lat: coordinate(latS, latD, latM, latF),
    lng: coordinate(lngS, lngD, lngM, lngF),
    course: Number(course) % 360,
    speed: Number(speed),
    attributes: { [Attr.index]: Number(index), [Attr.batteryLevel]: Number(battery), [Attr.charge]: charging === '1' },
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('auro: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'auro',
  defaultPort: 5096,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('auro', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
