/**
 * M2M binary protocol: fixed 23-byte messages, every byte but 0x0B sent plus 0x20. The first message of a
 * connection is the login (8 bytes of decimal digit pairs, the IMEI after a leading digit); the next ones are
 * fixes: `day | month | year | hour | minute | second (masked) | lat degrees | minutes | 1/100 | 1/10000 minute |
 * u8 (bit 7 west, bit 6 south, low bits lon hundreds) | lon degrees | minutes | 1/100 | 1/10000 | km/h | satellites`.
 * A fix with no satellites is cell information (not kept). The devices expect no answer.
 */
import { Reader } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const LENGTH = 23;

function createFramer(): Framer {
  return { next: (buffer) => (buffer.length < LENGTH ? null : { frame: buffer.subarray(0, LENGTH), consumed: LENGTH }) };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const b = Buffer.from(frame);
  for (let i = 0; i < b.length; i++) if (b[i] !== 0x0b) b[i] = (b[i] - 0x20) & 0xff;
  const r = new Reader(b);
  if (!ctx.session.loggedIn) {
    ctx.session.loggedIn = true;
    let digits = '';
    for (let i = 0; i < 8; i++) digits += String(r.u8()).padStart(2, '0');
    return { deviceId: digits.slice(1) };
  }
  if (!ctx.deviceId) return {};
  const [dd, mo, yy, hh, mi, ss] = [r.u8() & 0x3f, r.u8() & 0x3f, r.u8(), r.u8() & 0x3f, r.u8() & 0x7f, r.u8() & 0x7f];
  let lat = r.u8() + (r.u8() + r.u8() / 100 + r.u8() / 10000) / 60;
  const flags = r.u8();
  let lng = (flags & 0x3f) * 100 + r.u8() + (r.u8() + r.u8() / 100 + r.u8() / 10000) / 60;
  if (flags & 0x80) lng = -lng;
  if (flags & 0x40) lat = -lat;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('m2m: coordinates out of range');
  const speed = r.u8();
  const satellites = r.u8();
  if (!satellites) return {};
  return { records: [{ time: utc(yy, mo, dd, hh, mi, ss), valid: true, lat, lng, speed, satellites, attributes: {} }] };
}

export const protocol: Protocol = {
  name: 'm2m',
  defaultPort: 5054,
  transports: ['tcp'],
  maxFrameSize: LENGTH,
  createFramer,
  decode,
  commands: [],
};
