/**
 * Queclink @Track (GL/GV/GMT/CV series), three wire formats on one port:
 *
 *   A. ASCII  `+RESP:GTFRI,<protocol version>,<imei>,<device name>,...,<send time>,<count>$`
 *             (`+BUFF:` = buffered replay, `+ACK:` = command/heartbeat acknowledgement). Field layouts
 *             depend on the report type and on the model encoded in the protocol version prefix.
 *             The GT300 dialect puts the IMEI in field 1 and ends with `\0`.
 *   B. HEX    `+RSP` `+EVT` `+INF` `+HBD` `+ACK` ... binary headers, length at a header-specific
 *             offset, `<count:2><crc16:2>\r\n` trailer (CRC-16/CCITT-FALSE over bytes 4..L-4).
 *   C. Pro    `2B|2D 00 <len:2> ...` records of TLV data ids, `<count:2><crc8:1>$` trailer.
 *
 * Replies: `+ACK:GTHBD` heartbeats always get `+SACK:GTHBD,<protocol version>,<count>$`; with the
 * `ack` setting every recognised report gets `+SACK:<count>$` (the device's own count echoed verbatim).
 */
import { FrameError, type Command, type DecodeContext, type DecodeResult, type EncodeContext, type Framer, type Protocol } from '../types.ts';
import { bad, remember } from './fields.ts';
import { decodeText } from './text.ts';
import { decodeHex, decodePro } from './hex.ts';

const MAX_FRAME = 8192;

// ---------------------------------------------------------------------------------------------
// Framer
// ---------------------------------------------------------------------------------------------

/** HEX headers and where their total-length field sits (offset, width). */
const BINARY_LENGTH: Record<string, [number, number]> = {
  '+RSP': [9, 2], '+BSP': [9, 2], '+EVT': [9, 2], '+BVT': [9, 2], '+CAN': [9, 2], '+DAT': [9, 2],
  '+INF': [7, 2], '+BNF': [7, 2],
  '+HBD': [5, 1],
  '+CRD': [6, 2], '+BRD': [6, 2], '+LGN': [6, 2],
  '+ACK': [6, 1],
};

type Format = 'text' | 'hex' | 'pro' | 'proHeartbeat';

/** Which of the three formats a frame (or stream head) is in; needs at least 5 bytes. */
function formatOf(buf: Buffer): Format {
  if ((buf[0] === 0x2b || buf[0] === 0x2d) && buf[1] === 0x00) return 'pro';
  if (buf[0] === 0x2b && buf[1] === 0x10) return 'proHeartbeat';
  const head = buf.toString('latin1', 0, 4);
  if (head === '+ACK') return buf[4] === 0x3a /* : */ ? 'text' : 'hex';
  return head in BINARY_LENGTH ? 'hex' : 'text';
}

/** Total length declared by a binary frame head, or null when the head is not complete yet. */
function binaryLength(buf: Buffer, format: Format): number | null {
  if (format === 'pro') return buf.length >= 4 ? buf.readUInt16BE(2) : null;
  if (format === 'proHeartbeat') return buf.length >= 3 ? buf[2] : null;
  const [offset, width] = BINARY_LENGTH[buf.toString('latin1', 0, 4)];
  if (buf.length < offset + width) return null;
  return width === 1 ? buf[offset] : buf.readUInt16BE(offset);
}

const FILLER = new Set([0x0d, 0x0a, 0x00, 0x24, 0x20]);

/** Text frames end at `$` (or `\0` on the GT300 dialect); binary frames carry their length. */
function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && FILLER.has(buffer[start])) start++; // stray terminators between frames
      if (buffer.length - start < 5) return null;
      const head = buffer.subarray(start);
      if (head[0] !== 0x2b && head[0] !== 0x2d) throw new FrameError('gl200: frame does not start with + or -');
      const format = formatOf(head);
      if (format !== 'text') {
        const length = binaryLength(head, format);
        if (length === null) return null;
        if (length < 11 || length > MAX_FRAME) throw new FrameError(`gl200: bad binary length ${length}`);
        if (head.length < length) return null;
        return { frame: head.subarray(0, length), consumed: start + length };
      }
      for (let i = 0; i < head.length; i++) {
        if (head[i] === 0x24 || head[i] === 0x00) return { frame: head.subarray(0, i), consumed: start + i + 1 };
        if (i >= MAX_FRAME) break;
      }
      if (head.length > MAX_FRAME) throw new FrameError('gl200: no $ within max frame size');
      return null;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------------

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 5) bad('frame too short');
  const format = formatOf(frame);
  if (format === 'text') return decodeText(frame, ctx);
  const result = format === 'hex' ? decodeHex(frame) : decodePro(frame, ctx);
  if (result.records) remember(result.records, ctx);
  if (result.reply === undefined) delete result.reply;
  return result;
}

/** Commands as @Track AT commands; the password is the device's configured one (default `gl200`). */
const COMMANDS: Record<string, (pw: string, c: Command) => string> = {
  positionSingle: (pw) => `AT+GTRTO=${pw},1,,,,,,FFFF$`,
  rebootDevice: (pw) => `AT+GTRTO=${pw},3,,,,,,FFFF$`,
  engineStop: (pw) => `AT+GTOUT=${pw},1,,,0,0,0,0,0,0,0,,,,,,,FFFF$`,
  engineResume: (pw) => `AT+GTOUT=${pw},0,,,0,0,0,0,0,0,0,,,,,,,FFFF$`,
  custom: (_pw, c) => String(c.attributes.data ?? ''),
};

function encode(command: Command, ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`gl200: unsupported command ${command.type}`);
  const pw = typeof ctx.config.password === 'string' && ctx.config.password ? ctx.config.password : 'gl200';
  return Buffer.from(build(pw, command), 'latin1');
}

export const protocol: Protocol = {
  name: 'gl200',
  defaultPort: 5004,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
