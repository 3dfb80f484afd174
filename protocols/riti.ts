/**
 * RITI binary protocol: `2 bytes | u16 device id | u8 mode | u8 command | u16le power mV | 5 status bytes |
 * u16le idle count | u16le idle seconds | u32le distance | u32le trip | RMC sentence up to '*' ... | u16le length
 * at byte 105 | ...`; the frame is 107 + length + 3 bytes. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { lengthFieldFramer, Reader } from './binary.ts';
import { parseRmc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 2);
  const deviceId = String(r.u16());
  const mode = r.u8();
  const command = r.u8();
  const power = r.u16le() / 1000;
  r.skip(5 + 2 + 2); // status, idle count, idle time
  const distance = r.u32le();
  const trip = r.u32le();
  const end = frame.indexOf(0x2a, r.pos);
  const rec = parseRmc(frame.toString('latin1', r.pos, end < 0 ? frame.length : end));
  if (!rec) throw new DecodeError('riti: no RMC sentence');
  rec.attributes = { mode, command, [Attr.power]: power, [Attr.distance]: distance, tripOdometer: trip };
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'riti',
  defaultPort: 5071,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16le at offset 105; three bytes follow what it counts
  createFramer: () => lengthFieldFramer('riti', 105, 2, 3, MAX_FRAME, true),
  decode,
  commands: [],
};
