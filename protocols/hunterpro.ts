/**
 * HunterPro text protocol, messages cut at CR: `><id><$GPRMC,<hhmmss[.sss]>,<A|V>,<ddmm.mmmm>,<N|S>,<dddmm.mmmm>,<E|W>,
 * [<knots>],[<course>],<ddmmyy>,...`. The devices expect no answer.
 */
import { delimitedFramer, rmcAfterId } from './text.ts';
import type { Protocol } from './types.ts';

const MAX_FRAME = 1024;

export const protocol: Protocol = {
  name: 'hunterpro',
  defaultPort: 5116,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('hunterpro', [0x0d], MAX_FRAME),
  decode: rmcAfterId('hunterpro', '^>(\\d+)<'),
  commands: [],
};
