/**
 * NET protocol, messages cut at `!`:
 *   `@L<3 digits><imei 15><2 hex><ddmmyy><hhmmss><flags hex (bit 3 valid, bit 1 south, bit 0 west)><lat dd mm mmmm>
 *    <lon ddd mm mmmm><status hex 8><knots x 100 hex 4><odometer hex 6, 1/16 nautical mile><course hex 3><alarm hex 3>...`
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const X = '[0-9A-Fa-f]';
const REPORT = new RegExp(
  String.raw`^@L\d{3}(\d{15})${X}{2}(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(${X})(\d\d)(\d\d)(\d{4})(\d{3})(\d\d)(\d{4})(${X}{8})(${X}{4})(${X}{6})(${X}{3})(${X}{3})`,
);

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('net: not a report');
  const [, imei, dd, mo, yy, hh, mi, ss, flagsHex, latD, latM, latF, lngD, lngM, lngF, status, speed, odometer, course, alarm] = m;
  const flags = parseInt(flagsHex, 16);
  const lat = (Number(latD) + (Number(latM) + Number(latF) / 10000) / 60) * (flags & 0x02 ? -1 : 1);
  const lng = (Number(lngD) + (Number(lngM) + Number(lngF) / 10000) / 60) * (flags & 0x01 ? -1 : 1);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('net: coordinates out of range');
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: (flags & 0x08) !== 0,
    lat,
    lng,
    speed: knotsToKmh(parseInt(speed, 16) / 100),
    course: parseInt(course, 16) % 360,
    attributes: { [Attr.status]: parseInt(status, 16), [Attr.odometer]: (parseInt(odometer, 16) * 1852) / 16, alarmCode: parseInt(alarm, 16) },
  };
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'net',
  defaultPort: 5215,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('net', [0x21], MAX_FRAME),
  decode,
  commands: [],
};
