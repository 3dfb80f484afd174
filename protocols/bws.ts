/**
 * BWS (UDP, big-endian): `u8 device type | 4-byte id (its hex is the device identity) | u8 message type |
 * u8 index | u32 unix time | i32 lat, i32 lon (1/360 000 degree) | u8 flags (bit 7 valid, bits 0-6
 * satellites) | u8 speed km/h | u16 course (0.1°) | u16 supply (0.1 V) | u8 battery (0.1 V) | u16 IO |
 * u24 odometer (100 m) | u24 engine minutes | u8 device temperature | u8 signal | u8 checksum`.
 * A keep-alive (type 0x3f) carries the header alone.
 * Each datagram is acknowledged `type | id | 0x40 | index | CRC-8/MAXIM` (0x41 instead of 0x40 refuses an
 * unknown device). Commands: `engineStop` and `engineResume` as the action message 0x42 with value 0 or 1.
 */
import { Attr, indexed } from './attributes.ts';
import { crc8Maxim, Reader } from './binary.ts';
import { DecodeError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const KEEP_ALIVE = 0x3f;
const ACK = 0x40;
const NACK = 0x41;
const ACTION = 0x42;

/** `bytes` followed by their CRC-8/MAXIM. */
function withCrc(bytes: number[]): Buffer {
  const b = Buffer.from([...bytes, 0]);
  b[b.length - 1] = crc8Maxim(b, 0, b.length - 1);
  return b;
}

const answer = (frame: Buffer, type: number): Buffer => withCrc([frame[0], ...frame.subarray(1, 5), type, frame[6]]);

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(1); // device type
  const deviceId = r.hex(4);
  const event = r.u8();
  r.skip(1); // index
  ctx.session.refusal = answer(frame, NACK);
  const reply = answer(frame, ACK);
  if (event === KEEP_ALIVE || r.remaining === 0) return { deviceId, reply };
  const time = r.u32() * 1000;
  const lat = r.i32() / 360_000;
  const lng = r.i32() / 360_000;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('bws: coordinates out of range');
  const flags = r.u8();
  const rec: DeviceRecord = {
    time,
    valid: (flags & 0x80) !== 0,
    lat,
    lng,
    satellites: flags & 0x7f,
    speed: r.u8(),
    course: (r.u16() / 10) % 360,
    attributes: { [Attr.event]: event },
  };
  const a = rec.attributes;
  a[Attr.power] = r.u16() / 10;
  a[Attr.battery] = r.u8() / 10;
  a[indexed.io(1)] = r.u16();
  a[Attr.odometer] = r.u24() * 100;
  a[Attr.hours] = r.u24() * 60_000;
  a[Attr.deviceTemp] = r.u8();
  a[Attr.rssi] = r.u8();
  r.skip(1); // checksum
  return { deviceId, records: [rec], reply };
}

function encode(command: Command, ctx: EncodeContext): Buffer {
  const value = command.type === 'engineStop' ? 0 : command.type === 'engineResume' ? 1 : undefined;
  if (value === undefined) throw new Error(`bws: unsupported command ${command.type}`);
  const id = /^[0-9a-f]{8}/i.exec(ctx.deviceId)?.[0];
  if (!id) throw new Error('bws: the device id must start with 8 hex digits');
  return withCrc([0x00, ...Buffer.from(id, 'hex'), ACTION, 0, value]);
}

export const protocol: Protocol = {
  name: 'bws',
  defaultPort: 5260,
  transports: ['udp'],
  maxFrameSize: MAX_FRAME,
  decode,
  refuse: (ctx) => ctx.session.refusal as Buffer | undefined,
  encode,
  commands: ['engineStop', 'engineResume'],
};
