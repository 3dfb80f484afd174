/**
 * Blue binary protocol: `AA | u16 length (of what follows the start byte, checksum included) | u8 version |
 * u8 | u32 device id | entries | u8 XOR`. An entry is `u8 length (itself included) | u8 type | u8 index | u8 | u8 flags |
 * data`:
 *   0x01 location: `u8 | u8 flags (bit 7 valid, 6 south, 5 west) | lat, lon as u16 ddmm + u16 1/10000 minute |
 *        u16 knots + u16 thousandths | u16 course + u8 hundredths | yy mm dd hh mm ss | u16 lac | u16 cid`
 *   0x12 status: six status bytes (1: bit 1 vibration; 4: bits 2-3 ignition 01 off, 10 on) and a u16 status
 *   0x81 alarm: u8 code (1 SOS, 8 overspeed, 19 low power)
 *   0x84 asks for an answer: `AA 000B 86 00 | 06 A4 00 <entry index> 00 00 | XOR of the bytes after AA`
 * A packet without a location yields nothing.
 */
import { Alarm, Attr } from './attributes.ts';
import { knotsToKmh, lengthFieldFramer, Reader, xorSum } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const ALARMS: Record<number, string> = { 1: Alarm.sos, 8: Alarm.overspeed, 19: Alarm.lowPower };

function readCoordinate(r: Reader, negative: boolean): number {
  const v = r.u16();
  const value = Math.trunc(v / 100) + (v % 100 + r.u16() / 10000) / 60;
  return negative ? -value : value;
}

function answer(index: number): Buffer {
  const b = Buffer.from([0xaa, 0x00, 0x0b, 0x86, 0x00, 0x06, 0xa4, 0x00, index, 0x00, 0x00, 0x00]);
  b[11] = xorSum(b, 1, 11);
  return b;
}

const ENTRIES: Record<number, (r: Reader, rec: DeviceRecord) => void> = {
  0x01: (r, rec) => {
    r.skip(1);
    const flags = r.u8();
    rec.valid = (flags & 0x80) !== 0;
    rec.lat = readCoordinate(r, (flags & 0x40) !== 0);
    rec.lng = readCoordinate(r, (flags & 0x20) !== 0);
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('blue: coordinates out of range');
    rec.speed = knotsToKmh(r.u16() + r.u16() / 1000);
    rec.course = (r.u16() + r.u8() / 100) % 360;
    const [yy, mo, dd, h, m, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
    rec.time = utc(yy, mo, dd, h, m, s);
  },
  0x12: (r, rec) => {
    if (r.u8() & 0x02) rec.attributes[Attr.alarm] = Alarm.vibration;
    r.skip(2);
    const ignition = (r.u8() >> 2) & 0x03;
    if (ignition === 0b01) rec.attributes[Attr.ignition] = false;
    if (ignition === 0b10) rec.attributes[Attr.ignition] = true;
    r.skip(2);
    rec.attributes[Attr.status] = r.u16();
  },
  0x81: (r, rec) => {
    const alarm = ALARMS[r.u8()];
    if (alarm) rec.attributes[Attr.alarm] = alarm;
  },
};

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 5, frame.length - 1);
  const deviceId = String(r.u32());
  const rec: DeviceRecord = { attributes: {} };
  let reply: Buffer | undefined;
  while (r.remaining > 0) {
    const start = r.pos;
    const length = r.u8();
    if (length < 5) throw new DecodeError('blue: bad entry length');
    const type = r.u8();
    const index = r.u8();
    r.skip(2);
    const entry = new Reader(frame, r.pos, Math.min(start + length, r.end));
    if (type === 0x84) reply = answer(index);
    else ENTRIES[type]?.(entry, rec);
    r.skip(Math.max(0, start + length - r.pos));
  }
  return { deviceId, records: rec.time !== undefined ? [rec] : [], reply };
}

export const protocol: Protocol = {
  name: 'blue',
  defaultPort: 5206,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // the u16 after the start byte counts what follows the start byte
  createFramer: () => lengthFieldFramer('blue', 1, 2, -2, MAX_FRAME),
  decode,
  commands: [],
};
