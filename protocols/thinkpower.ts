/**
 * ThinkPower binary protocol (big-endian): type, index, body length (u16), body, CRC-16/CCITT-FALSE
 * of everything before it.
 *   0x01 login: protocol version (2 bytes), id (length-prefixed ASCII), model, firmware -> 0x02 with status 0
 *   0x03 heartbeat                                                                       -> 0x04
 *   0x05 record report: count, time (Unix seconds), then typed values: 0x01 location (latitude and
 *        longitude as sign-and-magnitude 1e-7 degrees, speed 0.1 km/h, course 0.01°), 0x02 GPS valid,
 *        0x10 SOS, 0x12 battery 0.1 V, 0x13 low battery, 0x50 removed, 0x51 tampered, and skipped
 *        ones (geofence, g-sensor, collision, drop, temperature, humidity)          -> 0x06
 * Answers repeat the index; a report without a location takes the last fix, not valid.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader, crc16CcittFalse } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { fixOrLast, type LastFix } from './last-fix.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const MSG_LOGIN = 0x01;
const MSG_HEARTBEAT = 0x03;
const MSG_RECORD = 0x05;

function answer(type: number, index: number, content?: number): Buffer {
  const body = content === undefined ? [] : [content];
  const b = Buffer.from([type, index, 0, body.length, ...body, 0, 0]);
  b.writeUInt16BE(crc16CcittFalse(b, 0, b.length - 2), b.length - 2);
  return b;
}

const signMagnitude = (v: number) => (v & 0x80000000 ? -(v & 0x7fffffff) : v);
const ALARM_FLAGS: Record<number, string> = { 0x10: Alarm.sos, 0x13: Alarm.lowBattery, 0x50: Alarm.removing, 0x51: Alarm.tampering };
// values read past without being kept: type -> size
const SKIPPED: Record<number, number> = { 0x03: 3, 0x06: 2, 0x07: 2, 0x08: 2, 0x09: 1, 0x0a: 1, 0x16: 2, 0x17: 1, 0x18: 2, 0x19: 1 };

function value(type: number, r: Reader, rec: DeviceRecord): boolean {
  if (type === 0x01) {
    rec.valid = true;
    rec.lat = signMagnitude(r.u32()) / 1e7;
    rec.lng = signMagnitude(r.u32()) / 1e7;
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('thinkpower: coordinates out of range');
    rec.speed = r.u16() / 10;
    rec.course = (r.u16() / 100) % 360;
  } else if (type === 0x02) rec.valid = r.u8() > 0;
  else if (type === 0x12) rec.attributes[Attr.battery] = r.u16() / 10;
  else if (ALARM_FLAGS[type]) {
    if (r.u8() > 0) rec.attributes[Attr.alarm] = ALARM_FLAGS[type];
  } else if (SKIPPED[type]) r.skip(SKIPPED[type]);
  else return false; // unknown size: the rest cannot be read
  return true;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 0, frame.length - 2);
  const type = r.u8();
  const index = r.u8();
  r.skip(2);
  if (type === MSG_LOGIN) {
    r.skip(2);
    const id = r.ascii(r.u8());
    if (!/^[\x21-\x7e]{1,32}$/.test(id)) throw new DecodeError('thinkpower: bad device id');
    return { deviceId: id, reply: answer(0x02, index, 0) };
  }
  if (type === MSG_HEARTBEAT) return { reply: answer(0x04, index) };
  if (type !== MSG_RECORD) return {};
  r.skip(1); // count
  const rec: DeviceRecord = { time: r.u32() * 1000, attributes: {} };
  while (r.remaining > 0 && value(r.u8(), r, rec));
  fixOrLast(ctx.session as { last?: LastFix }, rec, ctx.now);
  return { records: [rec], reply: answer(0x06, index) };
}

export const protocol: Protocol = {
  name: 'thinkpower',
  defaultPort: 5228,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('thinkpower', { offset: 2, size: 2, adjust: 2 }, MAX_FRAME),
  decode,
  commands: [],
};
