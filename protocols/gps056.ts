/**
 * GPS056 protocol: `$$<length, 2 ASCII digits><type 7 chars><imei 15 chars><body>#`, the frame being length + 5
 * bytes; bytes up to the next `$` after a frame are skipped.
 *   LOGN..  login, answered `*LGSA<type[4..]><imei>1#`
 *   GPSL..  `dd mm yy hh mm ss | lat, lon as u16 ddmm + u16 1/10000 minute + hemisphere letter | u8 km/h | u16 course |
 *           status | 2 bytes`, answered `*GPSA<type[4..]><imei><those 2 bytes>#`
 *   SYNC..  status only, answered `*SYSA<type[4..]><imei>#`
 * Status: `u8 inputs | u8 outputs | i16le analog x 5.06 mV | u8 satellites | u8 rssi`.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { rememberFix, withLastFix, type LastFix } from './last-fix.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 104;
const DOLLAR = 0x24;

function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && buffer[start] !== DOLLAR) start++;
      if (buffer.length - start < 4) return null;
      const digits = buffer.toString('latin1', start + 2, start + 4);
      if (!/^\d\d$/.test(digits)) throw new FrameError('gps056: bad length');
      const length = Number(digits) + 5;
      if (buffer.length - start < length) return null;
      return { frame: buffer.subarray(start, start + length), consumed: start + length };
    },
  };
}

function coordinate(r: Reader): number {
  const v = r.u16();
  const value = Math.trunc(v / 100) + ((v % 100) + r.u16() / 10000) / 60;
  const hemisphere = r.u8();
  return hemisphere === 0x53 || hemisphere === 0x57 ? -value : value;
}

function status(r: Reader, rec: DeviceRecord): void {
  rec.attributes[Attr.input] = r.u8();
  rec.attributes[Attr.output] = r.u8();
  rec.attributes[indexed.adc(1)] = (r.i16le() * 5.06) / 1000;
  rec.satellites = r.u8();
  rec.attributes[Attr.rssi] = r.u8();
}

const answer = (type: string, imei: string, content: Buffer | string = '') =>
  Buffer.concat([latin1(`*${type}${imei}`), typeof content === 'string' ? latin1(content) : content, latin1('#')]);

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 4);
  const type = r.ascii(7);
  const imei = r.ascii(15);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('gps056: bad IMEI');
  const holder = ctx.session as { last?: LastFix };
  const suffix = type.slice(4);
  if (type.startsWith('LOGN')) return { deviceId: imei, reply: answer(`LGSA${suffix}`, imei, '1') };
  if (type.startsWith('GPSL')) {
    const [dd, mo, yy, h, m, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
    const rec: DeviceRecord = { time: utc(yy, mo, dd, h, m, s), valid: true, attributes: {} };
    rec.lat = coordinate(r);
    rec.lng = coordinate(r);
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('gps056: coordinates out of range');
    rec.speed = r.u8();
    rec.course = r.u16() % 360;
    status(r, rec);
    rememberFix(holder, rec);
    return { deviceId: imei, records: [rec], reply: answer(`GPSA${suffix}`, imei, Buffer.from(r.bytes(2))) };
  }
  if (type.startsWith('SYNC')) {
    const rec = withLastFix({ attributes: {} }, holder);
    status(r, rec);
    rec.time ??= ctx.now;
    return { deviceId: imei, records: [rec], reply: answer(`SYSA${suffix}`, imei) };
  }
  return { deviceId: imei };
}

export const protocol: Protocol = {
  name: 'gps056',
  defaultPort: 5141,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
