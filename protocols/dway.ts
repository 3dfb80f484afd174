/**
 * D-Way text protocol, one message a line:
 *   `AA55,<index>,<imei>,<type>,<yymmdd>,<hhmmss>,<lat>,<lon>,<altitude>,[ ]<km/h>,<course>,<inputs 4 bits>,
 *    <outputs 4 bits>,<flags bits>,<battery mV>,<adc1 mV>,<adc2 mV>,<driver id>...`
 *   heartbeat `AA55,HB`, answered `55AA,HB,OK\r\n`.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^AA55,\d+,(\d+),\d+,(\d\d)(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(-?\d+), ?(\d+\.\d+),(\d+),([01]{4}),([01]{4}),([01]+),(\d+),(\d+),(\d+),(\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (s === 'AA55,HB') return { reply: latin1('55AA,HB,OK\r\n') };
  const m = REPORT.exec(s);
  if (!m) throw new DecodeError('dway: not a report');
  const [, imei, yy, mo, dd, hh, mi, ss, lat, lng, altitude, speed, course, input, output, , battery, adc1, adc2, driver] = m;
  const rec = {
    time: utc(+yy, +mo, +dd, +hh, +mi, +ss),
    valid: true,
    lat: Number(lat),
    lng: Number(lng),
    altitude: Number(altitude),
    speed: Number(speed),
    course: Number(course) % 360,
    attributes: {
      [Attr.input]: parseInt(input, 2),
      [Attr.output]: parseInt(output, 2),
      [Attr.battery]: Number(battery) / 1000,
      [indexed.adc(1)]: Number(adc1) / 1000,
      [indexed.adc(2)]: Number(adc2) / 1000,
      [Attr.driverUniqueId]: driver,
    },
  };
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('dway: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 'dway',
  defaultPort: 5150,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('dway', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
