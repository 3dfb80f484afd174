/**
 * Telemax text protocol, one message a line:
 *   login `%<length, 2 digits><unit id>`
 *   data  `Y<command id 8><password 6><id length hex 2><unit id><frame count 2><format 2><interval hex 4><flags 2>
 *          <version 2><count hex 2>` then count records `<speed hex 2 (bit 7 valid)><lon hex 6><lat hex 6>`, the first
 *          and the last followed by `<yyMMddHHmmss><status 8>`; the ones between are `interval` seconds apart.
 * Coordinates are (value - 5400000) / 30000 degrees. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { delimitedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;

class Cursor {
  at = 0;
  constructor(readonly s: string) {}
  take(n: number): string {
    if (n < 0 || this.at + n > this.s.length) throw new DecodeError('telemax: truncated');
    return this.s.slice(this.at, (this.at += n));
  }
  hex(n: number): number {
    const v = this.take(n);
    if (!/^[0-9A-Fa-f]+$/.test(v)) throw new DecodeError('telemax: bad hex');
    return parseInt(v, 16);
  }
}

function time(v: string): number {
  const m = /^(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/.exec(v);
  if (!m) throw new DecodeError('telemax: bad time');
  return utc(+m[1], +m[2], +m[3], +m[4], +m[5], +m[6]);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const s = frame.toString('latin1').trim();
  if (s.startsWith('%')) {
    const length = Number(s.slice(1, 3));
    const id = s.slice(3, 3 + length);
    if (!Number.isInteger(length) || id.length !== length || !id) throw new DecodeError('telemax: bad login');
    return { deviceId: id };
  }
  if (!ctx.deviceId || !s.startsWith('Y')) return {};
  const c = new Cursor(s);
  c.take(1 + 8 + 6); // Y, command id, password
  c.take(c.hex(2)); // unit id
  c.take(2 + 2); // frame count, data format
  const interval = c.hex(4);
  c.take(2 + 2); // info flags, version
  const count = c.hex(2);
  const records: DeviceRecord[] = [];
  let t = 0;
  for (let i = 0; i < count; i++) {
    const speed = c.hex(2);
    const lng = (c.hex(6) - 5_400_000) / 30000;
    const lat = (c.hex(6) - 5_400_000) / 30000;
    if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('telemax: coordinates out of range');
    const rec: DeviceRecord = { valid: (speed & 0x80) !== 0, speed: speed & 0x7f, lat, lng, attributes: {} };
    if (i === 0 || i === count - 1) {
      t = time(c.take(12));
      rec.attributes[Attr.status] = c.take(8);
    } else t += interval * 1000;
    rec.time = t;
    records.push(rec);
  }
  return { records };
}

export const protocol: Protocol = {
  name: 'telemax',
  defaultPort: 5165,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => delimitedFramer('telemax', [0x0a, 0x0d], MAX_FRAME),
  decode,
  commands: [],
};
