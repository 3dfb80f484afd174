/**
 * OKO (Ukrainian trackers) text reports, `{` .. `}`:
 *
 *   `{[<imei>,]<hhmmss[.sss]>,<A|V>,<ddmm.mmm>,<N|S>,<dddmm.mmm>,<E|W>,<knots>,<course>,<ddmmyy>,<satellites>,
 *    <adc>,<event hex>,<power>,<memory status>[,<inputs hex>,...]}`
 * Voltages come as decimal volts or as two hex digits of 0.1 V. The imei appears in the first report of a
 * connection. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, hms, nmeaCoordinate, num, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

function voltage(v: string | undefined): number {
  if (v !== undefined && /^\d+\.\d+$/.test(v)) return Number(v);
  if (v !== undefined && /^[0-9A-Fa-f]{2}$/.test(v)) return parseInt(v, 16) / 10;
  throw new DecodeError('oko: bad voltage');
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const f = frame.toString('latin1').replace(/^[\s{]+|[\s}]+$/g, '').split(',');
  const deviceId = /^\d{15}$/.test(f[0]) ? f.shift() : undefined;
  if (f.length < 14) throw new DecodeError('oko: short report');
  if (!(deviceId ?? ctx.deviceId)) return {};
  const [time, valid, lat, ns, lng, ew, knots, course, date, sats, adc, event, power, , inputs] = f;
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(date);
  if (!d || (valid !== 'A' && valid !== 'V') || !/^[0-9A-Fa-f]{2}$/.test(event)) throw new DecodeError('oko: bad report');
  const [h, m, s, ms] = hms(time);
  const attributes: Record<string, number | string> = {
    [indexed.adc(1)]: voltage(adc),
    [Attr.event]: event,
    [Attr.power]: voltage(power),
  };
  if (inputs !== undefined && /^[0-9A-Fa-f]{2}$/.test(inputs)) attributes[Attr.input] = parseInt(inputs, 16);
  const rec = {
    time: utc(+d[3], +d[2], +d[1], h, m, s, ms),
    valid: valid === 'A',
    lat: nmeaCoordinate(lat, ns),
    lng: nmeaCoordinate(lng, ew),
    speed: knotsToKmh(num(knots) ?? 0),
    course: (num(course) ?? 0) % 360,
    satellites: num(sats),
    attributes,
  };
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'oko',
  defaultPort: 5152,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('oko', [0x7d], MAX_FRAME),
  decode,
  commands: [],
};
