/**
 * Dualcam (Teltonika DualCam) file upload: the camera connects, says who it is and which file it
 * has, and the server pulls the file. Big-endian: `type u16 | ...`.
 *   0 init: protocol u16, IMEI u64, settings u32 -> `0008 <n> %photof|%photor|%videof|%videor` (bits 26..29),
 *          `000C 0002 0000` (bit 25: ask for the file path) or `0000`
 *   13 path: `len u16 | path`                    -> `0008 <len> <path>` (request that file)
 *   1 start: `0004 | size u32` (packets when < 8192, else bytes) -> `0002 0004 <first u32>` (resume from)
 *   4 data: `len u16 | bytes (len - 2) | crc`; 5 complete -> the file as media, answered `0009`
 * Frames: 16 bytes for init, else 4 + the u16 length at offset 2.
 */
import { withLastFix, type LastFix } from './last-fix.ts';
import { Reader } from './binary.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MSG_INIT = 0;
const MSG_START = 1;
const MSG_RESUME = 2;
const MSG_DATA = 4;
const MSG_COMPLETE = 5;
const MSG_FILE_REQUEST = 8;
const MSG_INIT_REQUEST = 9;
const MSG_PATH_REQUEST = 0x0c;
const MSG_PATH_RESPONSE = 0x0d;
const MEDIA_MAX = 16 << 20;

interface Session {
  last?: LastFix;
  video?: boolean;
  size?: number;
  current?: number;
  parts?: Buffer[];
  received?: number;
}

function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 4) return null;
      const length = buf.readUInt16BE(0) === 0 ? 16 : 4 + buf.readUInt16BE(2);
      if (buf.readUInt16BE(0) > 0x0d) throw new FrameError('dualcam: unknown message type');
      return buf.length >= length ? { frame: buf.subarray(0, length), consumed: length } : null;
    },
  };
}

const u16 = (...v: number[]) => {
  const b = Buffer.alloc(v.length * 2);
  v.forEach((x, i) => b.writeUInt16BE(x, i * 2));
  return b;
};
const fileRequest = (file: Buffer) => Buffer.concat([u16(MSG_FILE_REQUEST, file.length), file]);

function init(r: Reader, session: Session): DecodeResult {
  r.u16(); // protocol id
  const deviceId = r.buf.readBigUInt64BE(r.skip(8).pos - 8).toString();
  const settings = r.u32();
  const bit = (n: number) => (settings & 2 ** n) !== 0;
  let reply: Buffer;
  if (bit(25)) reply = u16(MSG_PATH_REQUEST, 2, 0);
  else if (bit(26) || bit(27) || bit(28) || bit(29)) {
    const file = bit(26) ? '%photof' : bit(27) ? '%photor' : bit(28) ? '%videof' : '%videor';
    session.video = file.startsWith('%video');
    reply = fileRequest(Buffer.from(file, 'latin1'));
  } else reply = u16(MSG_INIT);
  return { deviceId, reply };
}

/** The file is whole: hand it over as media and ask the camera to start again. */
function complete(session: Session): DecodeResult {
  const data = Buffer.concat(session.parts ?? []);
  const attribute = session.video ? 'video' : 'image';
  Object.assign(session, { parts: undefined, received: 0 });
  const rec = withLastFix({ attributes: { [attribute]: '' } }, session);
  return { records: [rec], media: [{ record: 0, attribute, data, extension: session.video ? 'h265' : 'jpg' }], reply: u16(MSG_INIT_REQUEST) };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  const r = new Reader(frame);
  const type = r.u16();
  switch (type) {
    case MSG_INIT:
      return init(r, session);
    case MSG_START: {
      r.u16(); // length
      const size = r.i32();
      if (size < 0 || size > MEDIA_MAX) throw new DecodeError('dualcam: bad file size');
      // under 8192 the size counts packets (numbered from 1), else bytes
      Object.assign(session, { size, current: size < 8192 ? 1 : 0, parts: [], received: 0 });
      const reply = Buffer.alloc(8);
      reply.writeUInt16BE(MSG_RESUME, 0);
      reply.writeUInt16BE(4, 2);
      reply.writeUInt32BE(session.current!, 4);
      return { reply };
    }
    case MSG_DATA: {
      const length = r.u16() - 2;
      if (!session.parts || length < 0) return {};
      const data = r.bytes(length);
      session.received = (session.received ?? 0) + length;
      if (session.received > MEDIA_MAX) throw new DecodeError('dualcam: file too large');
      session.parts.push(Buffer.from(data));
      const packets = (session.size ?? 0) < 8192;
      const finished = packets ? session.current === session.size : (session.current ?? 0) + length === session.size;
      session.current = (session.current ?? 0) + (packets ? 1 : length);
      return finished ? complete(session) : {};
    }
    case MSG_COMPLETE:
      return session.parts ? complete(session) : {};
    case MSG_PATH_RESPONSE: {
      const file = r.bytes(r.u16());
      return { reply: fileRequest(Buffer.from(file)) };
    }
    default:
      return {};
  }
}

export const protocol: Protocol = {
  name: 'dualcam',
  defaultPort: 5232,
  transports: ['tcp'],
  maxFrameSize: 4 + 0xffff,
  createFramer,
  decode,
  commands: [],
};
