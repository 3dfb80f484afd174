/**
 * ARDI-01 text protocol, one report a line:
 *   `<imei>,<yyyymmddhhmmss>,<lon>,<lat>,<km/h>,<course>,<altitude>,<satellites>,<event>,<battery %>,<temperature>`
 * A fix needs 3 satellites or more. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^(\d+),(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+\.?\d*),(\d+\.?\d*),(-?\d+\.?\d*),(\d+),(\d+),(\d+),(-?\d+)$/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('ardi01: not a report');
  const [, imei, yy, mo, dd, hh, mi, ss, lng, lat, speed, course, altitude, sats, event, battery, temp] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: Number(sats) >= 3,
    lat: Number(lat),
    lng: Number(lng),
    speed: Number(speed),
    course: Number(course) % 360,
    altitude: Number(altitude),
    satellites: Number(sats),
    attributes: { [Attr.event]: Number(event), [Attr.batteryLevel]: Number(battery), [indexed.temp(1)]: Number(temp) },
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('ardi01: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'ardi01',
  defaultPort: 5075,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('ardi01', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
