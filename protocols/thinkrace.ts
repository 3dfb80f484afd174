/**
 * ThinkRace binary protocol: `"HA" | 12-char id | "," | u8 type | u16 length | body | u16 checksum`; the frame is
 * 20 + length bytes. Type 0x80 is a login (`u8 command`, 0x01 with a 15-char IMEI; 0x00 a heartbeat), answered
 * `"HR" | id | "," | 80 | 0002 | 8000 | 0000`. Type 0x90 is a fix: `u32 unix time | u8 flags (bit 0 north,
 * bit 1 east) | u32 lat, u32 lon (ddmm.mmmm x 10000) | u8 speed | u8 course | u16 lac | u16 cid`.
 */
import { knotsToKmh, lengthFieldFramer, Reader } from './binary.ts';
import { latin1 } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_LOGIN = 0x80;
const MSG_GPS = 0x90;

const coordinate = (raw: number, negative: boolean): number => {
  const v = Math.trunc(raw / 1e6) + (raw % 1e6) / 10000 / 60;
  return negative ? -v : v;
};

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 2);
  const id = r.bytes(12);
  r.skip(1);
  const type = r.u8();
  r.skip(2); // length
  if (type === MSG_LOGIN) {
    if (r.u8() !== 0x01) return {};
    const imei = r.ascii(15);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('thinkrace: bad IMEI');
    const reply = Buffer.concat([latin1('HR'), id, Buffer.from([0x2c, type, 0x00, 0x02, 0x80, 0x00, 0x00, 0x00])]);
    return { deviceId: imei, reply };
  }
  if (type !== MSG_GPS || !ctx.deviceId) return {};
  const time = r.u32() * 1000;
  const flags = r.u8();
  const lat = coordinate(r.u32(), !(flags & 0x01));
  const lng = coordinate(r.u32(), !(flags & 0x02));
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('thinkrace: coordinates out of range');
  const speed = knotsToKmh(r.u8());
  const course = r.u8();
  const attributes = { lac: r.u16(), cid: r.u16() };
  return { records: [{ time, valid: true, lat, lng, speed, course, attributes }] };
}

export const protocol: Protocol = {
  name: 'thinkrace',
  defaultPort: 5098,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16 at offset 16 counts the body; the checksum adds 2
  createFramer: () => lengthFieldFramer('thinkrace', 16, 2, 2, MAX_FRAME),
  decode,
  commands: [],
};
