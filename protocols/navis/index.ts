/**
 * Navtelecom (protocol name `navis`): NTCB and FLEX on one port.
 *
 * NTCB frame: `@NTC | receiver u32 LE | sender u32 LE | length u16 LE | data XOR | header XOR | data`.
 *   `*>S:<IMEI>` handshake, answered `*<S`; `*>FLEX` FLEX negotiation (protocol and structure versions,
 *   field bit mask), answered `*<FLEX B0 <versions>`; `*>T` one record, answered `*<T <index u32>`; `*>A`
 *   several, answered `*<A <count>`; `*@...` the answer to a command. Answers swap receiver and sender.
 * FLEX frame (after the negotiation): `~A <count> <records> <CRC-8>`, `~T <index u32> <record> <CRC-8>`,
 *   `~C <record> <CRC-8>` (current state), answered `~A <count>`, `~T <index>`, `~C <index>` with a CRC-8
 *   (poly 0x31, init 0xFF). A single 0x7F byte is a keep-alive.
 */
import { Reader } from '../binary.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from '../types.ts';
import { decodeRecord, parseNegotiation, type FlexLayout } from './flex.ts';
import { decodeNtcbRecord } from './ntcb.ts';

const MAX_FRAME = 65535 + 16;
const NTCB = 0x40; // '@'
const FLEX = 0x7e; // '~'
const KEEPALIVE = 0x7f;
const HEADER = 16;

const CRC8 = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let b = 0; b < 8; b++) c = c & 0x80 ? ((c << 1) ^ 0x31) & 0xff : (c << 1) & 0xff;
    t[i] = c;
  }
  return t;
})();
function crc8(buf: Uint8Array, start = 0, end = buf.length): number {
  let c = 0xff;
  for (let i = start; i < end; i++) c = CRC8[c ^ buf[i]];
  return c;
}
function xor(buf: Uint8Array, start: number, end: number): number {
  let x = 0;
  for (let i = start; i < end; i++) x ^= buf[i];
  return x;
}

const isNegotiation = (frame: Buffer) => frame.length > HEADER + 6 && frame.toString('latin1', HEADER, HEADER + 6) === '*>FLEX';

// ---- framer -----------------------------------------------------------------------------------

function createFramer(config?: Record<string, unknown>): Framer {
  // The FLEX record size comes from the negotiation frame this framer cut (or a setting, for a stream joined late).
  let size = typeof config?.flexDataSize === 'number' ? config.flexDataSize : 0;
  const take = (buffer: Buffer, length: number) => {
    if (length > MAX_FRAME) throw new FrameError('navis: frame too long');
    return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
  };
  return {
    next(buffer) {
      if (buffer.length === 0) return null;
      const first = buffer[0];
      if (first === KEEPALIVE) return { frame: buffer.subarray(0, 1), consumed: 1 };
      if (first === NTCB) {
        if (buffer.length < HEADER) return null;
        const cut = take(buffer, HEADER + buffer.readUInt16LE(12));
        if (cut && isNegotiation(cut.frame)) {
          try {
            size = parseNegotiation(cut.frame.subarray(HEADER + 6)).layout.size;
          } catch {
            // a negotiation we cannot read: its data frames will not be cut either
          }
        }
        return cut;
      }
      if (first !== FLEX) throw new FrameError('navis: unknown frame start');
      if (buffer.length < 3) return null;
      const type = buffer[1];
      if (type === 0x41) {
        // ~A
        const count = buffer[2];
        if (count === 0) throw new FrameError('navis: empty FLEX array');
        if (size) return take(buffer, 4 + count * size);
        const found = scanArray(buffer, count);
        if (found) size = (found.consumed - 4) / count;
        return found;
      }
      if (!size) throw new FrameError('navis: FLEX data before the negotiation');
      if (type === 0x54) return take(buffer, 7 + size); // ~T
      if (type === 0x43) return take(buffer, 3 + size); // ~C
      throw new FrameError('navis: unsupported FLEX frame');
    },
  };
}

/**
 * A FLEX array on a stream whose negotiation this framer did not see: the frame ends at the first
 * whole number of records followed by their CRC-8 and then by the end of the data or another frame's start.
 */
function scanArray(buffer: Buffer, count: number): { frame: Buffer; consumed: number } | null {
  let c = 0xff;
  for (let i = 0; i < 3; i++) c = CRC8[c ^ buffer[i]];
  const limit = Math.min(buffer.length - 1, MAX_FRAME);
  for (let e = 3; e <= limit; e++) {
    if (e > 3 && (e - 3) % count === 0 && c === buffer[e]) {
      const after = buffer[e + 1];
      if (after === undefined || after === FLEX || after === NTCB || after === KEEPALIVE) return { frame: buffer.subarray(0, e + 1), consumed: e + 1 };
    }
    c = CRC8[c ^ buffer[e]];
  }
  if (buffer.length > MAX_FRAME) throw new FrameError('navis: no FLEX array end');
  return null;
}

// ---- decoder ----------------------------------------------------------------------------------

interface Session {
  flex?: FlexLayout;
}

/** An NTCB frame carrying `data`, from `sender` to `receiver`. */
function ntcbFrame(prefix: Buffer, receiver: number, sender: number, data: Buffer): Buffer {
  const out = Buffer.alloc(HEADER + data.length);
  prefix.copy(out, 0, 0, 4);
  out.writeUInt32LE(receiver >>> 0, 4);
  out.writeUInt32LE(sender >>> 0, 8);
  out.writeUInt16LE(data.length, 12);
  out[14] = xor(data, 0, data.length);
  out[15] = xor(out, 0, 15);
  data.copy(out, HEADER);
  return out;
}

function flexReply(head: string, value: Buffer): Buffer {
  const out = Buffer.concat([Buffer.from(head, 'latin1'), value, Buffer.alloc(1)]);
  out[out.length - 1] = crc8(out, 0, out.length - 1);
  return out;
}

const withTime = (records: DeviceRecord[]) => records.filter((r) => r.time !== undefined);

function decodeNtcb(frame: Buffer, session: Session): DecodeResult {
  if (frame.length < HEADER) throw new DecodeError('navis: short NTCB header');
  const length = frame.readUInt16LE(12);
  if (frame.length < HEADER + length) throw new DecodeError('navis: truncated NTCB frame');
  if (xor(frame, 0, 15) !== frame[15]) throw new DecodeError('navis: bad header checksum');
  if (xor(frame, HEADER, HEADER + length) !== frame[14]) throw new DecodeError('navis: bad data checksum');
  if (length === 0) return {}; // keep-alive
  const data = frame.subarray(HEADER, HEADER + length);
  const answer = (body: Buffer) => ntcbFrame(frame, frame.readUInt32LE(8), frame.readUInt32LE(4), body);
  const type = data.toString('latin1', 0, 3);
  if (type === '*>S') {
    const id = data.toString('latin1', 3).replace(/^:/, '').trim();
    if (!/^[0-9A-Za-z]{1,20}$/.test(id)) throw new DecodeError('navis: bad identifier');
    return { deviceId: id, reply: answer(Buffer.from('*<S', 'latin1')) };
  }
  if (type === '*>F' && data.toString('latin1', 0, 6) === '*>FLEX') {
    const { protocolVersion, structVersion, layout } = parseNegotiation(data.subarray(6));
    session.flex = layout;
    return { reply: answer(Buffer.from([...Buffer.from('*<FLEX', 'latin1'), 0xb0, protocolVersion, structVersion])) };
  }
  if (type === '*>T') {
    const rec = decodeNtcbRecord(new Reader(data, 3));
    const index = Buffer.alloc(4);
    index.writeUInt32LE(rec.attributes.index as number);
    return { records: withTime([rec]), reply: answer(Buffer.concat([Buffer.from('*<T', 'latin1'), index])) };
  }
  if (type === '*>A') {
    const r = new Reader(data, 3);
    const count = r.u8();
    const records: DeviceRecord[] = [];
    for (let i = 0; i < count; i++) records.push(decodeNtcbRecord(r));
    return { records: withTime(records), reply: answer(Buffer.from([...Buffer.from('*<A', 'latin1'), count])) };
  }
  if (data[0] === 0x2a && data[1] === 0x40) {
    // `*@...`: the device's answer to a command
    return { records: [{ attributes: { result: data.toString('latin1').trim() } }] };
  }
  return {};
}

function decodeFlex(frame: Buffer, session: Session): DecodeResult {
  const layout = session.flex;
  if (!layout) throw new DecodeError('navis: FLEX data before the negotiation');
  if (frame.length < 4 || crc8(frame, 0, frame.length - 1) !== frame[frame.length - 1]) throw new DecodeError('navis: bad FLEX CRC');
  const r = new Reader(frame, 2, frame.length - 1);
  const type = frame[1];
  if (type === 0x41) {
    const count = r.u8();
    const records: DeviceRecord[] = [];
    for (let i = 0; i < count; i++) records.push(decodeRecord(r, layout));
    return { records: withTime(records), reply: flexReply('~A', Buffer.of(count)) };
  }
  if (type === 0x54 || type === 0x43) {
    const index = type === 0x54 ? r.bytes(4) : undefined;
    const rec = decodeRecord(r, layout);
    const value = index ?? Buffer.alloc(4);
    if (!index) value.writeUInt32LE(Number(rec.attributes.index ?? 0) >>> 0);
    return { records: withTime([rec]), reply: flexReply(type === 0x54 ? '~T' : '~C', Buffer.from(value)) };
  }
  throw new DecodeError('navis: unsupported FLEX frame');
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const session = ctx.session as Session;
  if (frame.length === 0) throw new DecodeError('navis: empty frame');
  if (frame[0] === KEEPALIVE) return {};
  if (frame[0] === NTCB) return decodeNtcb(frame, session);
  if (frame[0] === FLEX) return decodeFlex(frame, session);
  throw new DecodeError('navis: unknown frame start');
}

// ---- encoder ----------------------------------------------------------------------------------

const PREFIX = Buffer.from('@NTC', 'latin1');
// The device numbers itself 0 and the server 1 unless configured otherwise.
const DEVICE_NUMBER = 0;
const SERVER_NUMBER = 1;

const COMMANDS: Record<string, (a: Command['attributes']) => string> = {
  custom: (a) => String(a.data ?? ''),
};

function encode(command: Command, _ctx: EncodeContext): Buffer {
  const build = COMMANDS[command.type];
  if (!build) throw new Error(`navis: unsupported command ${command.type}`);
  const text = Buffer.from(build(command.attributes), 'latin1');
  if (text.length === 0 || text.length > 1024) throw new Error('navis: command text must be 1..1024 bytes');
  return ntcbFrame(PREFIX, DEVICE_NUMBER, SERVER_NUMBER, text);
}

export const protocol: Protocol = {
  name: 'navis',
  defaultPort: 5019,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
