/**
 * GS100 binary protocol.
 *   login `GL` + u8 + u8 IMEI length + IMEI + the ICCID and firmware, answered `GS100`; the login carries no total
 *         length, so it is everything received before the device waits for that answer
 *   data  `GD` + u8 count + count x (u8 length | u24 status | [fix]) where status bit 23 says a fix follows:
 *         `hh mm ss dd mm yy (BCD) | 9 bytes: lon dddmm.mmmm digits, a flag nibble (bit 3 east, bit 2 north), lat
 *         ddmm.mmmm digits | 4 bytes: km/h x 100 (5 digits), course (3 digits)`; answered `GS100` + the count.
 * Records without a fix take the connection's last fix, not valid.
 */
import { Attr } from './attributes.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const DIGITS = /^\d+$/;

/** Length of the message at the start of `b`, or 0 when more bytes are needed. */
function messageLength(b: Buffer): number {
  if (b.length < 3) return 0;
  const header = b.toString('latin1', 0, 2);
  let at = 3;
  if (header === 'GL') {
    if (b.length <= at || b.length < at + 1 + b[at]) return 0;
    return b.length;
  } else if (header === 'GD') {
    for (let i = b[2]; i > 0; i--) {
      if (b.length <= at) return 0;
      at += 1 + b[at];
    }
  } else throw new FrameError('gs100: unknown header');
  return b.length >= at ? at : 0;
}

function createFramer(): Framer {
  return {
    next(buffer) {
      const length = messageLength(buffer);
      if (!length) {
        if (buffer.length > MAX_FRAME) throw new FrameError('gs100: message too long');
        return null;
      }
      return { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

function readFix(data: Buffer, rec: DeviceRecord): void {
  const t = data.toString('hex', 3, 9);
  const c = data.toString('hex', 9, 18);
  const o = data.toString('hex', 18, 22);
  if (!DIGITS.test(t) || !DIGITS.test(c.slice(0, 9) + c.slice(10)) || !DIGITS.test(o)) throw new DecodeError('gs100: bad fix');
  const n = (s: string, from: number, to: number) => Number(s.slice(from, to));
  rec.time = utc(n(t, 10, 12), n(t, 8, 10), n(t, 6, 8), n(t, 0, 2), n(t, 2, 4), n(t, 4, 6));
  const flags = parseInt(c[9], 16);
  const lng = n(c, 0, 3) + n(c, 3, 9) / 10000 / 60;
  const lat = n(c, 10, 12) + n(c, 12, 18) / 10000 / 60;
  if (lat > 90 || lng > 180) throw new DecodeError('gs100: coordinates out of range');
  Object.assign(rec, { valid: true, lng: flags & 0x08 ? lng : -lng, lat: flags & 0x04 ? lat : -lat, speed: n(o, 0, 5) / 100, course: n(o, 5, 8) % 360 });
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const header = frame.toString('latin1', 0, 2);
  if (header === 'GL') {
    const length = frame[3];
    const imei = frame.toString('latin1', 4, 4 + length);
    if (!/^\w+$/.test(imei)) throw new DecodeError('gs100: bad IMEI');
    return { deviceId: imei, reply: latin1('GS100') };
  }
  if (header !== 'GD' || frame.length < 3) throw new DecodeError('gs100: unknown message');
  const count = frame[2];
  const holder = ctx.session as { last?: LastFix };
  const records: DeviceRecord[] = [];
  let at = 3;
  for (let i = 0; i < count; i++) {
    if (at >= frame.length) throw new DecodeError('gs100: truncated');
    const data = frame.subarray(at + 1, at + 1 + frame[at]);
    at += 1 + frame[at];
    if (data.length < 3) throw new DecodeError('gs100: short record');
    const status = data.readUIntBE(0, 3);
    const rec: DeviceRecord = { attributes: { [Attr.status]: status } };
    if (status & 0x800000) {
      if (data.length < 22) throw new DecodeError('gs100: short fix');
      readFix(data, rec);
      rememberFix(holder, rec);
    } else withLastFix(rec, holder);
    rec.time ??= ctx.now;
    records.push(rec);
  }
  return { records, reply: Buffer.concat([latin1('GS100'), Buffer.from([count])]) };
}

export const protocol: Protocol = {
  name: 'gs100',
  defaultPort: 5223,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
