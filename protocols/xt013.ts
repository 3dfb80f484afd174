/**
 * XT013 text protocol, one report a line (optionally after an `HI,<imei>` greeting in the same line):
 *   `TK,<imei>,<yymmddhhmmss>,<±lat>,<±lon>,<km/h>,<course>,<x>,<altitude>,<F|L>,<x>,<satellites>,<x hex>,<x hex>,
 *    <gsm level>,<x>,<battery V>,<charging 0|1>,...`
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^(?:HI,\d+)?TK,(\d+),(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([+-]\d+\.\d+),([+-]\d+\.\d+),(\d+),(\d+),\d+,(\d+),([FL]),\d+,(\d+),[0-9A-Fa-f]+,[0-9A-Fa-f]+,(\d+),[^,]*,(\d+\.\d+),(\d),/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('xt013: not a report');
  const [, imei, yy, mo, dd, hh, mi, ss, lat, lng, speed, course, altitude, fix, sats, gsm, battery, charging] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: fix === 'F',
    lat: Number(lat),
    lng: Number(lng),
    speed: Number(speed),
    course: Number(course) % 360,
    altitude: Number(altitude),
    satellites: Number(sats),
    attributes: { [Attr.rssi]: Number(gsm), [Attr.battery]: Number(battery), [Attr.charge]: charging === '1' },
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('xt013: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'xt013',
  defaultPort: 5076,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('xt013', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
