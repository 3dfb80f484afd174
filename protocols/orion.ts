/**
 * Orion binary protocol (little-endian fields). A frame starts `PW`, then a type byte (low nibble:
 * 0 user log, 3 system log).
 *   user log: header byte (bit 6: the device wants an answer, low nibble: record count), device id
 *     (u32 BE), records (event, record length, flags, latitude and longitude as ddmmmmmm with 4 minute
 *     decimals, altitude 0.1 m, course, speed 0.1 km/h, yy MM dd HH mm ss, satellites, further bytes
 *     up to the record length), then a sequence byte and a CRC of 2 bytes
 *     -> `*`, the CRC bytes, the sequence byte
 *   system log: 12 header bytes whose u16 LE at offset 8 is the body length; nothing decoded.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const MSG_USERLOG = 0;
const MSG_SYSLOG = 3;

/** Frame length from the record lengths (user log) or the body length (system log); null: need more. */
function frameLength(b: Buffer): number | null {
  if (b.length < 6) return null;
  const type = b[2] & 0x0f;
  if (type === MSG_USERLOG) {
    if (b.length < 11) return null;
    let length = 11;
    for (let i = 0, at = 8; i < (b[3] & 0x0f); i++) {
      if (b.length < at + 2) return null;
      const record = b[at + 1];
      if (record < 2) throw new FrameError('orion: bad record length');
      at += record;
      length += record;
    }
    return length;
  }
  if (type === MSG_SYSLOG) return b.length < 18 ? null : 18 + b.readUInt16LE(8);
  throw new FrameError(`orion: unknown type ${type}`);
}

function orionFramer(): Framer {
  return {
    next(buffer) {
      const from = buffer.indexOf('PW', 0, 'latin1');
      if (from < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('orion: no message start');
        return null;
      }
      const length = frameLength(buffer.subarray(from));
      if (length === null || buffer.length - from < length) return null;
      return { frame: buffer.subarray(from, from + length), consumed: from + length };
    },
  };
}

const coordinate = (raw: number) => Math.trunc(raw / 1_000_000) + (raw % 1_000_000) / 10_000 / 60;

function record(r: Reader): DeviceRecord {
  const start = r.pos;
  const event = r.u8();
  const length = r.u8();
  const flags = r.u16le();
  const lat = coordinate(r.i32le());
  const lng = coordinate(r.i32le());
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('orion: coordinates out of range');
  const altitude = r.i16le() / 10;
  const course = r.u16le() % 360;
  const speed = r.u16le() / 10;
  const [yy, mo, dd, hh, mi, ss] = r.bytes(6);
  const satellites = r.u8();
  if (length < r.pos - start) throw new DecodeError('orion: record shorter than its fields');
  r.pos = start;
  r.skip(length);
  return { time: utc(yy, mo, dd, hh, mi, ss), valid: satellites >= 3, lat, lng, altitude, course, speed, satellites, attributes: { [Attr.event]: event, [Attr.status]: flags } };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 6 || frame[0] !== 0x50 || frame[1] !== 0x57) throw new DecodeError('orion: not a frame');
  if ((frame[2] & 0x0f) !== MSG_USERLOG) return {};
  const r = new Reader(frame, 3);
  const header = r.u8();
  const deviceId = String(r.u32());
  const records: DeviceRecord[] = [];
  for (let i = 0; i < (header & 0x0f); i++) records.push(record(r));
  if (r.remaining < 3) throw new DecodeError('orion: truncated');
  const n = frame.length;
  const reply = header & 0x40 ? Buffer.from([0x2a, frame[n - 2], frame[n - 1], frame[n - 3]]) : undefined;
  return { deviceId, records, reply };
}

export const protocol: Protocol = {
  name: 'orion',
  defaultPort: 5070,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: orionFramer,
  decode,
  commands: [],
};
