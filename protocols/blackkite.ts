/**
 * Black Kite trackers speak the Galileosky main-packet format (`01 | u16 LE length | tags | CRC-16`,
 * answered `02 | CRC`): the Galileo decoder and framer serve them on their own port. Galileosky's
 * text commands are not offered: no public document says Black Kite devices take them.
 */
import { protocol as galileo } from './galileo.ts';
import type { Protocol } from './types.ts';

export const protocol: Protocol = {
  name: 'blackkite',
  defaultPort: 5091,
  transports: ['tcp'],
  maxFrameSize: galileo.maxFrameSize,
  createFramer: galileo.createFramer,
  decode: galileo.decode,
  commands: [],
};
