/**
 * NEOS trackers: the TR-900 report format (`protocols/tr900.ts`), over UDP on a port of their own.
 * One decoder, two names.
 */
import { protocol as tr900 } from './tr900.ts';
import type { Protocol } from './types.ts';

export const protocol: Protocol = {
  name: 'neos',
  defaultPort: 5183,
  transports: ['udp'],
  maxFrameSize: tr900.maxFrameSize,
  decode: tr900.decode,
  commands: [],
};
