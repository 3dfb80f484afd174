/**
 * ExtremTrac: an RMC sentence with the device id after the sentence name, one a line:
 *   `$GPRMC,<id>,<hhmmss.sss>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,<knots>,<course>,<ddmmyy>,...`
 * A plain RMC without the id identifies nothing and yields nothing. The devices expect no answer.
 */
import { delimitedFramer, nmeaFix } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const SENTENCE = /^\$GPRMC,(\d+),(\d\d)(\d\d)(\d\d)\.(\d{3}),([AV]),(\d+\.\d+),([NS]),(\d+\.\d+),([EW]),(\d+(?:\.\d*)?),(\d+(?:\.\d*)?),(\d\d)(\d\d)(\d\d),/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = SENTENCE.exec(frame.toString('latin1'));
  if (!m) return {};
  const [, id, hh, mi, ss, ms, valid, lat, ns, lng, ew, knots, course, dd, mo, yy] = m;
  return { deviceId: id, records: [nmeaFix({ dd, mo, yy, hh, mi, ss, ms, valid, lat, ns, lng, ew, knots, course })] };
}

export const protocol: Protocol = {
  name: 'extremtrac',
  defaultPort: 5126,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('extremtrac', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
