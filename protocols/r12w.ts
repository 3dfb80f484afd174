/**
 * R12W text protocol, one `$HX,<type>,<id>,...,#,<xor>,` sentence per line. The login (type 0001)
 * carries the device id and a session token as its fourth field; it is answered
 * `$HX,1001,<id>,<token>,OK,#,<xor>,\r\n` (xor: two hex digits over `$HX...#`). Other sentences
 * carry the identity only.
 */
import { xorSum } from './binary.ts';
import { delimitedFramer, latin1 } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;

function sentence(type: string, id: string, data: string): Buffer {
  const body = `$HX,${type},${id},${data},#`;
  return latin1(`${body},${xorSum(latin1(body)).toString(16).padStart(2, '0')},\r\n`);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const values = frame.toString('latin1').trim().split(',');
  if (values[0] !== '$HX' || values.length < 4) throw new DecodeError('r12w: not a sentence');
  const [, type, id] = values;
  if (!/^\w{1,32}$/.test(id)) throw new DecodeError('r12w: bad device id');
  if (type === '0001') return { deviceId: id, reply: sentence('1001', id, `${values[3]},OK`) };
  return { deviceId: id };
}

export const protocol: Protocol = {
  name: 'r12w',
  defaultPort: 5226,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('r12w', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
