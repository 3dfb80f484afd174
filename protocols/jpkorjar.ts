/**
 * JP-Korjar text protocol:
 *   `KORJAR.PL,<imei>,<yymmddhhmmss>,<lat><N|S>,<lon><E|W>,<km/h>,<course>,<F|L>:<battery>V,<valid 0|1> <mcc> <mnc> <lac hex> <cid hex>,`
 * Messages have no line end: one ends at the first comma after the first space (inside the cell part).
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT = /^KORJAR\.PL,(\d+),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),(\d+\.\d+)([NS]),(\d+\.\d+)([EW]),(\d+\.\d+),(\d+),[FL]:(\d+\.\d+)V,([01]) (\d+) (\d+) ([0-9A-Fa-f]+) ([0-9A-Fa-f]+),/;

function createFramer(): Framer {
  return {
    next(buffer) {
      const space = buffer.indexOf(0x20);
      const end = space < 0 ? -1 : buffer.indexOf(0x2c, space);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('jpkorjar: message too long');
        return null;
      }
      return { frame: buffer.subarray(0, end + 1), consumed: end + 1 };
    },
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('jpkorjar: not a report');
  const [, imei, yy, mo, dd, hh, mi, ss, lat, ns, lng, ew, speed, course, battery, valid, mcc, mnc, lac, cid] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: valid === '1',
    lat: Number(lat) * (ns === 'S' ? -1 : 1),
    lng: Number(lng) * (ew === 'W' ? -1 : 1),
    speed: Number(speed),
    course: Number(course) % 360,
    cells: [{ mcc: Number(mcc), mnc: Number(mnc), lac: parseInt(lac, 16), cid: parseInt(cid, 16) }],
    attributes: { [Attr.battery]: Number(battery) },
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('jpkorjar: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'jpkorjar',
  defaultPort: 5122,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
