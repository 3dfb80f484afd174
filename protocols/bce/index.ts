/**
 * BCE (FMS/CAN trackers). After a `#BCE#\r\n` handshake every frame is
 * `IMEI u64 LE | (length u16 LE | type u8 | confirm key u8 | records)+ | sum u8`, the sum being the
 * byte sum of everything before it. Type 0xA5 (asynchronous stack) is confirmed per block with
 * `IMEI | 02 00 | 19 | key | sum`; 0xA0 (time triggered) is not. A record: `size u8 | time u32 LE`
 * (low nibble 7 = data record; seconds/2 since 2008 in the rest, wrapping) and up to four field masks
 * (see ./masks.ts). Command: output control (0x41).
 */
import { Reader } from '../binary.ts';
import { rememberFix, withLastFix, type LastFix } from '../last-fix.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from '../types.ts';
import { mask1, mask2, mask3, mask4 } from './masks.ts';

const MAX_FRAME = 65536;
const HANDSHAKE = '#BCE#\r\n';
const MSG_ASYNC_STACK = 0xa5;
const MSG_STACK_CONFIRM = 0x19;
const MSG_TIME_TRIGGERED = 0xa0;
const MSG_OUTPUT_CONTROL = 0x41;
const DATA_RECORD = 7;
const EPOCH_2008 = 0x47798280;

interface Session {
  last?: LastFix;
}

const byteSum = (b: Uint8Array, end: number) => {
  let s = 0;
  for (let i = 0; i < end; i++) s = (s + b[i]) & 0xff;
  return s;
};

/**
 * The handshake is passed over (not handed on: a buffer holding only the handshake yields no frame;
 * it is skipped together with the frame that follows). A frame ends at the first block boundary
 * that a matching sum byte follows.
 */
function createFramer(): Framer {
  let handshake = true;
  let skip = 0;
  return {
    next(buf) {
      if (handshake && buf.length >= HANDSHAKE.length) {
        handshake = false;
        if (buf.toString('latin1', 0, HANDSHAKE.length) === HANDSHAKE) skip = HANDSHAKE.length;
      }
      if (handshake) return null;
      const b = buf.subarray(skip);
      let end = 8;
      while (b.length >= end + 5) {
        end += b.readUInt16LE(end) + 2;
        if (end > MAX_FRAME) throw new FrameError('bce: frame too long');
        if (b.length > end && byteSum(b, end) === b[end]) {
          const consumed = skip + end + 1;
          skip = 0;
          return { frame: b.subarray(0, end + 1), consumed };
        }
      }
      if (b.length > MAX_FRAME) throw new FrameError('bce: no frame');
      return null;
    },
  };
}

const TEN_YEARS = 3650 * 86_400;

/** Seconds/2 since 2008 in 28 bits, wrapping: the wrap nearest before now. */
function recordTime(raw: number, now: number): number {
  let t = Math.floor(raw / 16) * 2 + EPOCH_2008;
  const threshold = Math.floor(now / 1000) - TEN_YEARS;
  while (t < threshold) t += 0x0fffffff * 2;
  return t * 1000;
}

function decodeRecord(r: Reader, end: number, now: number, session: Session): DeviceRecord | undefined {
  const rec: DeviceRecord = { attributes: {} };
  const raw = r.u32le();
  if ((raw & 0x0f) !== DATA_RECORD) return undefined;
  rec.time = recordTime(raw, now);
  const masks: number[] = [];
  let mask: number;
  do {
    mask = r.u16le();
    masks.push(mask);
  } while (mask & 0x8000 && masks.length < 8);
  const limited = new Reader(r.buf, r.pos, end);
  [mask1, mask2, mask3, mask4].forEach((decodeMask, i) => {
    if (masks[i] !== undefined) decodeMask(limited, masks[i], rec);
  });
  if (rec.valid) {
    rememberFix(session, rec);
    return rec;
  }
  return Object.keys(rec.attributes).length ? withLastFix(rec, session) : undefined;
}

function confirm(imei: bigint, key: number): Buffer {
  const b = Buffer.alloc(13);
  b.writeBigUInt64LE(imei, 0);
  b.writeUInt16LE(2, 8);
  b[10] = MSG_STACK_CONFIRM;
  b[11] = key;
  b[12] = byteSum(b, 12);
  return b;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 9) throw new DecodeError('bce: too short');
  const r = new Reader(frame, 0, frame.length - 1);
  const imeiBig = r.buf.readBigUInt64LE(0);
  r.skip(8);
  const deviceId = imeiBig.toString().padStart(15, '0');
  const records: DeviceRecord[] = [];
  const replies: Buffer[] = [];
  while (r.remaining > 1) {
    const length = r.u16le();
    const dataEnd = r.pos + length;
    if (dataEnd > r.end) throw new DecodeError('bce: block past the end');
    const type = r.u8();
    if (type !== MSG_ASYNC_STACK && type !== MSG_TIME_TRIGGERED) break;
    const key = r.u8() & 0x7f;
    while (r.pos < dataEnd) {
      const structEnd = r.pos + 1 + r.u8();
      if (structEnd > dataEnd) throw new DecodeError('bce: record past its block');
      const rec = decodeRecord(new Reader(frame, r.pos, structEnd), structEnd, ctx.now, ctx.session as Session);
      if (rec) records.push(rec);
      r.pos = structEnd;
    }
    if (type === MSG_ASYNC_STACK) replies.push(confirm(imeiBig, key));
  }
  return { deviceId, records, reply: replies.length ? Buffer.concat(replies) : undefined };
}

function encode(command: Command, ctx: EncodeContext): Buffer {
  if (command.type !== 'outputControl') throw new Error(`bce: unsupported command ${command.type}`);
  if (!/^\d{1,20}$/.test(ctx.deviceId)) throw new Error('bce: the device id must be numeric');
  const b = Buffer.alloc(17);
  b.writeBigUInt64LE(BigInt(ctx.deviceId), 0);
  b.writeUInt16LE(6, 8);
  b[10] = MSG_OUTPUT_CONTROL;
  b[11] = Number(command.attributes.index) === 1 ? 0x0a : 0x0b;
  b[12] = 0xff; // index
  b[13] = 0x00; // form id
  b.writeUInt16LE(Number(command.attributes.data ?? 0) > 0 ? 0x0055 : 0, 14);
  b[16] = byteSum(b, 16);
  return b;
}

export const protocol: Protocol = {
  name: 'bce',
  defaultPort: 5080,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['outputControl'],
  encode,
};
