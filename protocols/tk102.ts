/**
 * TK102 GPRS protocol: `[ | type u8 | sequence (10 characters) | length u8 | data | ]`.
 *   0x80 login, data = id           -> `[ 00 <sequence> <n+1> 30 <data> ]` (0x30: GPRS mode)
 *   0x21 (`!`) login, data `(<imei>,...)`  -> the same answer
 *   0xF0 heartbeat                  -> `[ FF <sequence> <n> <data> ]`
 *   0x90/0x93/others: `(<kind><hhmmss><A|V><ddmm.mmmm><N|S><dddmm.mmmm><E|W><knots ddd.ddd><ddmmyy>...)`
 */
import { knotsToKmh } from './binary.ts';
import { nmeaCoordinate, utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MSG_LOGIN = 0x80;
const MSG_LOGIN_2 = 0x21;
const MSG_LOGIN_RESPONSE = 0x00;
const MSG_HEARTBEAT = 0xf0;
const MSG_HEARTBEAT_RESPONSE = 0xff;
const MODE_GPRS = 0x30;
const MAX_FRAME = 12 + 1 + 255 + 1;

/** The length byte at offset 12 counts the data; `]` follows it. */
function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length && buf[0] !== 0x5b) throw new FrameError('tk102: no [');
      if (buf.length < 13) return null;
      const size = 13 + buf[12] + 1;
      return buf.length >= size ? { frame: buf.subarray(0, size), consumed: size } : null;
    },
  };
}

function answer(type: number, sequence: Buffer, content: Buffer): Buffer {
  if (content.length > 255) throw new DecodeError('tk102: answer too long');
  return Buffer.concat([Buffer.from([0x5b, type]), sequence, Buffer.from([content.length]), content, Buffer.from([0x5d])]);
}

const FIX = /^\([A-Z]+(\d\d)(\d\d)(\d\d)([AV])(\d{4}\.\d{4})([NS])(\d{5}\.\d{4})([EW])(\d{3}\.\d{3})(\d\d)(\d\d)(\d\d).*\)/s;

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 14 || frame[0] !== 0x5b) throw new DecodeError('tk102: bad frame');
  const type = frame[1];
  const sequence = frame.subarray(2, 12);
  const length = frame[12];
  if (13 + length > frame.length) throw new DecodeError('tk102: truncated');
  const data = frame.subarray(13, 13 + length);
  if (type === MSG_LOGIN || type === MSG_LOGIN_2) {
    const id = type === MSG_LOGIN ? data.toString('latin1') : data.toString('latin1', 1, 16);
    if (!/^[\x21-\x7e]+$/.test(id)) return {};
    return { deviceId: id, reply: answer(MSG_LOGIN_RESPONSE, sequence, Buffer.concat([Buffer.from([MODE_GPRS]), data])) };
  }
  if (type === MSG_HEARTBEAT) return { reply: answer(MSG_HEARTBEAT_RESPONSE, sequence, data) };
  const m = FIX.exec(data.toString('latin1'));
  if (!m) return {};
  const [, hh, mi, ss, valid, lat, ns, lng, ew, knots, dd, mo, yy] = m;
  return {
    records: [
      {
        time: utc(Number(yy), Number(mo), Number(dd), Number(hh), Number(mi), Number(ss)),
        valid: valid === 'A',
        lat: nmeaCoordinate(lat, ns),
        lng: nmeaCoordinate(lng, ew),
        speed: knotsToKmh(Number(knots)),
        attributes: {},
      },
    ],
  };
}

export const protocol: Protocol = {
  name: 'tk102',
  defaultPort: 5036,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
