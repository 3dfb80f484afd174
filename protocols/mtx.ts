/**
 * MTX text reports, one per line:
 *
 *   `#MTX,<imei>,<yyyymmdd>,<hhmmss>,<lat>,<lon>,<speed km/h>,<course>,<odometer km>,<X|fix>,<X|...>,
 *    <inputs as 0/1 digits>,<outputs as 0/1 digits>,<adc1>,<adc2>`
 *
 * Decimal degrees, UTC. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import type { AttrValue, DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^#MTX,(\d+),(\d{4})(\d\d)(\d\d),(\d\d)(\d\d)(\d\d),(-?\d+\.\d+),(-?\d+\.\d+),(\d+),(\d+),(\d+\.\d+),([^,]*),([^,]*),([01]*),([01]*),(\d+),(\d+)/;

/** `1011` → in1..in4 (first digit is the first line) and a mask with bit 0 = line 1. */
function lines(digits: string, name: (n: number) => string, attributes: Record<string, AttrValue>): number {
  let mask = 0;
  for (let i = 0; i < digits.length; i++) {
    const on = digits[i] === '1';
    attributes[name(i + 1)] = on;
    if (on) mask |= 1 << i;
  }
  return mask;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, imei, yyyy, mo, dd, hh, mi, ss, lat, lon, speed, course, odometer, fix, , inputs, outputs, adc1, adc2] = m;
  const latitude = Number(lat);
  const lng = Number(lon);
  if (Math.abs(latitude) > 90 || Math.abs(lng) > 180) return { deviceId: imei };
  const attributes: Record<string, AttrValue> = {};
  attributes[Attr.input] = lines(inputs, indexed.in, attributes);
  attributes[Attr.output] = lines(outputs, indexed.out, attributes);
  attributes[Attr.odometer] = Math.round(Number(odometer) * 1000);
  attributes[indexed.adc(1)] = Number(adc1);
  attributes[indexed.adc(2)] = Number(adc2);
  return {
    deviceId: imei,
    records: [
      {
        time: utc(+yyyy, +mo, +dd, +hh, +mi, +ss),
        // `X` marks a field the device could not fill (no fix).
        valid: fix !== 'X',
        lat: latitude,
        lng,
        speed: Number(speed),
        course: Number(course) % 360,
        attributes,
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'mtx',
  defaultPort: 5083,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('mtx', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
