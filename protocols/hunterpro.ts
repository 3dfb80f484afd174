/**
 * Hunter Pro text reports, one per line: the unit id between `>` and `<`, then a `$GPRMC`
 * sentence the device extends with fields of its own (kept as `status`).
 *
 *   `>0002<$GPRMC,170559.000,A,0328.3045,N,07630.0735,W,0.73,266.16,200816,,,A77, s000078015180",0MD`
 *
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, gprmcFix } from './text.ts';
import type { DecodeContext, DecodeResult, Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEADER = /^>(\w+)<(\$GPRMC,.*)$/;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const m = HEADER.exec(frame.toString('latin1').trim());
  if (!m) return {};
  const [, id, sentence] = m;
  const rec = gprmcFix(sentence);
  if (!rec) return { deviceId: id };
  // What follows the RMC date, magnetic variation and mode is the device's own status block.
  const extra = sentence.split(',').slice(12).join(',').trim();
  if (extra) rec.attributes[Attr.status] = extra;
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'hunterpro',
  defaultPort: 5116,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('hunterpro', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
