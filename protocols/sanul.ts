/**
 * Sanul binary protocol (little-endian): `AA`, two reserved bytes, length of the rest (u16), edition,
 * message type (u16), command id (u32), data. Type 0 is the login (the device id in ASCII, padded with
 * zeros); type 1 a location report, whose layout no public document describes: it is acknowledged
 * and its data not read. Every message is answered with a type 5 response naming its type:
 * `AA DA 85 0F 00 01 05 00 <type> 00000000 00 00 00000200`.
 */
import { lengthFieldFramer } from './framers.ts';
import { Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_LOGIN = 0;
const MSG_RESPONSE = 5;

function response(type: number): Buffer {
  const b = Buffer.alloc(20);
  b[0] = 0xaa;
  b.writeUInt16LE(0x85da, 1);
  b.writeUInt16LE(15, 3);
  b[5] = 1;
  b.writeUInt16LE(MSG_RESPONSE, 6);
  b.writeUInt16LE(type, 8);
  // command id 0, status 0, result length 0 (bytes 10..15), then the result word
  b.writeUInt32LE(0x20000, 16);
  return b;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0xaa) throw new DecodeError('sanul: not a frame');
  const r = new Reader(frame, 6);
  const type = r.u16le();
  r.skip(4); // command id
  if (type !== MSG_LOGIN) return { reply: response(type) };
  const id = r.ascii(r.remaining).replace(/[\0\s]+/g, '');
  if (!/^[\x21-\x7e]{1,32}$/.test(id)) throw new DecodeError('sanul: bad device id');
  return { deviceId: id, reply: response(type) };
}

export const protocol: Protocol = {
  name: 'sanul',
  defaultPort: 5186,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('sanul', { offset: 3, size: 2, littleEndian: true, adjust: 0 }, MAX_FRAME),
  decode,
  commands: [],
};
