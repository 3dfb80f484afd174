/**
 * AutoTrack binary protocol, little-endian: `F1F1F1F1 | u8 type | u16 length | body | u16 checksum`.
 *   51 login: `8-byte IMEI (hex) | u16 fuel constant | u16 trip constant`, answered 101 with the same fields
 *   52, 66, 67 telemetry: `u32 seconds since 2002 | i32 lat, i32 lon (1e-7) | u32 odometer | u32 fuel used |
 *      u16 km/h | u16 max km/h | u16 inputs | u32, u32 counters | 5 x u16 analog | u16 course | u16 status |
 *      u16 event | u64 driver | u16 index`, answered 123 with the index
 * Answers are `F1F1F1F1 | type | u16le length | body | u16 CRC-16/XMODEM (big-endian)`.
 */
import { Attr, indexed } from './attributes.ts';
import { crc16Xmodem, lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_LOGIN_REQUEST = 51;
const MSG_LOGIN_CONFIRM = 101;
const TELEMETRY = new Set([52, 66, 67]);
const MSG_TELEMETRY_CONFIRM = 123;
const EPOCH_2002 = Date.UTC(2002, 0, 1);

function answer(type: number, body: Buffer): Buffer {
  const b = Buffer.alloc(4 + 1 + 2 + body.length + 2);
  b.writeUInt32BE(0xf1f1f1f1, 0);
  b[4] = type;
  b.writeUInt16LE(body.length, 5);
  body.copy(b, 7);
  b.writeUInt16BE(crc16Xmodem(b, 0, 7 + body.length), 7 + body.length);
  return b;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 4);
  const type = r.u8();
  r.skip(2); // length
  if (type === MSG_LOGIN_REQUEST) {
    const imeiBytes = r.bytes(8);
    const constants = r.bytes(4);
    return { deviceId: imeiBytes.toString('hex'), reply: answer(MSG_LOGIN_CONFIRM, Buffer.concat([imeiBytes, constants])) };
  }
  if (!TELEMETRY.has(type) || !ctx.deviceId) return {};
  const time = EPOCH_2002 + r.u32le() * 1000;
  const lat = r.i32le() / 1e7;
  const lng = r.i32le() / 1e7;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('autotrack: coordinates out of range');
  const a: Record<string, number | string> = { [Attr.odometer]: r.u32le(), [Attr.fuelUsed]: r.u32le() };
  const speed = r.u16le();
  r.skip(2); // max speed
  a[Attr.input] = r.u16le();
  r.skip(8); // input 3 and 4 counters
  for (let i = 1; i <= 5; i++) a[indexed.adc(i)] = r.u16le();
  const course = r.u16le() % 360;
  a[Attr.status] = r.u16le();
  a[Attr.event] = r.u16le();
  a[Attr.driverUniqueId] = String(r.u64le());
  const index = r.bytes(2);
  return { records: [{ time, valid: true, lat, lng, speed, course, attributes: a }], reply: answer(MSG_TELEMETRY_CONFIRM, Buffer.from(index)) };
}

export const protocol: Protocol = {
  name: 'autotrack',
  defaultPort: 5172,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16le at offset 5 counts the body; the checksum adds 2
  createFramer: () => lengthFieldFramer('autotrack', 5, 2, 2, MAX_FRAME, true),
  decode,
  commands: [],
};
