/**
 * GT06 / Concox binary protocol (and the many clones that speak it).
 *
 *   short frame  78 78 | len u8  | type | content | serial u16 | crc u16 | 0d 0a   (len = type..crc)
 *   long frame   79 79 | len u16 | type | content | serial u16 | crc u16 | 0d 0a
 *   crc          CRC-16/X-25 over len..serial
 *
 * The device logs in with its IMEI (type 0x01), then sends fixes, status/heartbeats, alarms, cell and
 * Wi-Fi scans and command replies. Most frames are acknowledged with an empty frame of the same type
 * echoing the serial number. Times are local to the zone announced in the login (UTC by default).
 * Message layouts differ between models; the frame length (and `modelOverride`) tells them apart.
 */
import { Reader } from '../binary.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type EncodeContext, type Framer, type Protocol } from '../types.ts';
import { T, detectVariant, NT_MODELS, VL_MODELS, type Msg, type Out, buildFrame, ack } from './messages.ts';
import { decodeLogin, decodeOther, SHORT_RULES } from './short.ts';
import { LONG_HANDLERS } from './long.ts';

/** Reply frames, for tests and the simulator. */
export { buildFrame };

const MAX_FRAME = 4096;

// ---------------------------------------------------------------------------------------------
// Framer
// ---------------------------------------------------------------------------------------------

/**
 * Cuts frames by their declared length when it ends in CR LF there; otherwise by the first CR LF.
 * Some devices declare a wrong length (Wi-Fi scans put the access point count in the length byte,
 * some logins are short), so the terminator decides. While fewer bytes than the declared length are
 * buffered, a CR LF only ends a frame when it is the last thing received, so a CR LF inside the
 * binary content of a frame still in transit does not cut it.
 */
function createFramer(): Framer {
  return {
    next(buf) {
      if (buf.length < 5) return null;
      const head = buf.readUInt16BE(0);
      if (head !== 0x7878 && head !== 0x7979) throw new FrameError('gt06: bad frame header');
      const declared = head === 0x7878 ? buf[2] + 5 : buf.readUInt16BE(2) + 6;
      if (buf.length >= declared && buf[declared - 2] === 0x0d && buf[declared - 1] === 0x0a) {
        return { frame: buf.subarray(0, declared), consumed: declared };
      }
      const limit = Math.min(buf.length, MAX_FRAME);
      for (let i = 4; i + 1 < limit; i++) {
        if (buf[i] !== 0x0d || buf[i + 1] !== 0x0a) continue;
        if (buf.length >= declared || i + 2 === buf.length) return { frame: buf.subarray(0, i + 2), consumed: i + 2 };
      }
      if (buf.length >= MAX_FRAME) throw new FrameError('gt06: no frame end within max frame size');
      return null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Decode entry
// ---------------------------------------------------------------------------------------------

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 5) throw new DecodeError('gt06: frame too short');
  const head = frame.readUInt16BE(0);
  if (head !== 0x7878 && head !== 0x7979) throw new DecodeError('gt06: bad header');
  const long = head === 0x7979;
  const r = new Reader(frame, 2);
  const length = long ? r.u16() : r.u8();
  const type = r.u8();
  const model = String(ctx.config.modelOverride ?? ctx.config.model ?? '').toUpperCase();
  const m: Msg = {
    r,
    frame,
    type,
    length,
    dataLength: length - 5,
    variant: detectVariant(frame, type),
    model,
    lw: model.startsWith('LW'),
    sw: model === 'SEEWORLD',
    nt: NT_MODELS.has(model),
    vl: VL_MODELS.has(model),
    tz: typeof ctx.session.tz === 'number' ? ctx.session.tz : 0,
    now: ctx.now,
    rec: { attributes: {} },
  };
  if (!long && type === T.login) return decodeLogin(m, ctx.session);
  if (!ctx.deviceId) return {}; // nothing is accepted before the login
  let out: Out;
  if (long) out = LONG_HANDLERS[type]?.(m) ?? { reply: null };
  else out = SHORT_RULES.find(([match]) => match(m))?.[1](m) ?? decodeOther(m);
  const reply = out.reply === undefined ? ack(m) : out.reply ?? undefined;
  const result: DecodeResult = {};
  if (out.rec) result.records = [out.rec];
  if (reply) result.reply = reply;
  if (long ? type === T.stringInfo : type === T.string) result.commandAck = true; // the answer to a 0x80 command
  return result;
}

// ---------------------------------------------------------------------------------------------
// Encoder
// ---------------------------------------------------------------------------------------------

/**
 * Server command frame (0x80): command length, 4-byte server flag, ASCII command, optional language
 * word (config `language`: English = 2), serial 0. The device answers with a 0x15 or 0x21 text frame.
 */
export function encodeContent(text: string, language = false): Buffer {
  const command = Buffer.from(text, 'utf8');
  if (command.length > 240) throw new Error('gt06: command text too long');
  const content = Buffer.alloc(1 + 4 + command.length + (language ? 2 : 0));
  content[0] = 4 + command.length;
  command.copy(content, 5);
  if (language) content.writeUInt16BE(2, 5 + command.length);
  return buildFrame(false, T.command0, 0, content);
}

const COMMANDS: Record<string, (c: Command, alt: boolean, password: string) => string> = {
  engineStop: (_c, alt, pw) => (alt ? `DYD,${pw}#` : 'Relay,1#'),
  engineResume: (_c, alt, pw) => (alt ? `HFYD,${pw}#` : 'Relay,0#'),
  custom: (c) => String(c.attributes.data ?? ''),
  message: (c) => String(c.attributes.message ?? ''),
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`gt06: unsupported command ${command.type}`);
  const alt = ctx.config.alternative === true || ctx.config.alternative === 'true';
  const password = String(ctx.config.password ?? '123456');
  const language = ctx.config.language === true || ctx.config.language === 'true';
  return encodeContent(build(command, alt, password), language);
}

export const protocol: Protocol = {
  name: 'gt06',
  defaultPort: 5023,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  carriesText: true,
  commandAcks: true,
  encode,
};
