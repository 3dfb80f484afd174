/**
 * Kenji text reports, one per line:
 *
 *   `>C<id>,M<hex alarm>,O<hex outputs>,I<hex inputs>,D<hhmmss>,<A|V>,<N|S><ddmm.mmmm>,<E|W><dddmm.mmmm>,
 *    T<speed knots>,H<course>,Y<ddmmyy>,G<satellites>*<checksum>`
 *
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { knotsToKmh } from './binary.ts';
import { delimitedFramer, nmeaFix, utc } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const REPORT =
  /^>C(\d+),M([0-9A-Fa-f]+),O([0-9A-Fa-f]+),I([0-9A-Fa-f]+),D(\d\d)(\d\d)(\d\d),([AV]),([NS])(\d{4}\.\d+),([EW])(\d{5}\.\d+),T(\d+\.\d+),H(\d+\.\d+),Y(\d\d)(\d\d)(\d\d),G(\d+)/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = REPORT.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, id, alarm, outputs, inputs, hh, mi, ss, valid, ns, lat, ew, lon, knots, course, dd, mo, yy, sats] = m;
  const rec = nmeaFix(utc(+yy, +mo, +dd, +hh, +mi, +ss), valid, lat, ns, lon, ew, knotsToKmh(Number(knots)), Number(course));
  rec.satellites = Number(sats);
  rec.attributes = { [Attr.status]: parseInt(alarm, 16), [Attr.output]: parseInt(outputs, 16), [Attr.input]: parseInt(inputs, 16) };
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'kenji',
  defaultPort: 5102,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('kenji', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
