/**
 * PT3000 text protocol: `%<imei>,$GPRMC,<hhmmss[.sss]>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,[<knots>],[<course>],
 * <ddmmyy>,...`, messages ending with the letter `d` (after a checksum-like field). The devices expect no answer.
 */
import { delimitedFramer, rmcAfterId } from './text.ts';
import type { Protocol } from './types.ts';

const MAX_FRAME = 1024;

export const protocol: Protocol = {
  name: 'pt3000',
  defaultPort: 5045,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('pt3000', [0x64], MAX_FRAME),
  decode: rmcAfterId('pt3000', '%(\\d+),'),
  commands: [],
};
