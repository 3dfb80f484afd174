/**
 * PST (Polyservice) binary protocol, over TCP in `(` .. `)` with 0x27, 0x28, 0x29 inside sent as
 * `0x27, byte XOR 0x40` (the framer un-escapes), over UDP as bare datagrams:
 *   `u32 device id | u8 version | u32 index | u8 type | body | u16 CRC-16/XMODEM`
 * Type 0x05 is a status: `u32 packed time | u8 status (bit 4 blocked, bit 7 ignition) | u8 tag count |
 * tags (u8 tag, u8 length, value)`: 0x0D battery (units of 5 %, up to 20), 0x10 fix (packed time,
 * lat, lon as sign + minutes . 1/10000 minutes, u8 km/h, u8 course / 2, i16 altitude, u32 GPS state).
 * Packed time: bits 26-31 year - 2000, 22-25 month, 17-21 day, 12-16 hour, 6-11 minute, 0-5 second.
 * Every packet is acknowledged: `id | version | index | 0x00 | type | CRC`. Commands (type 0x06) carry
 * u16 command, two u16 arguments.
 */
import { Attr } from './attributes.ts';
import { crc16Xmodem, Reader } from './binary.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type EncodeContext, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const OPEN = 0x28;
const CLOSE = 0x29;
const ESC = 0x27;
const MSG_ACK = 0x00;
const MSG_STATUS = 0x05;
const MSG_COMMAND = 0x06;

function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && buffer[start] === OPEN) start++;
      const end = buffer.indexOf(CLOSE, start);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('pst: frame too long');
        return null;
      }
      const out = Buffer.alloc(end - start);
      let n = 0;
      for (let i = start; i < end; i++) out[n++] = buffer[i] === ESC && i + 1 < end ? buffer[++i] ^ 0x40 : buffer[i];
      return { frame: out.subarray(0, n), consumed: end + 1 };
    },
  };
}

/** `(` + escaped bytes + `)` for a TCP connection. */
function framed(data: Buffer): Buffer {
  const out: number[] = [OPEN];
  for (const b of data) {
    if (b === ESC || b === OPEN || b === CLOSE) out.push(ESC, b ^ 0x40);
    else out.push(b);
  }
  out.push(CLOSE);
  return Buffer.from(out);
}

function withCrc(b: Buffer): Buffer {
  const out = Buffer.alloc(b.length + 2);
  b.copy(out);
  out.writeUInt16BE(crc16Xmodem(b), b.length);
  return out;
}

function readTime(r: Reader): number {
  const v = r.u32();
  const field = (from: number, bits: number) => Math.floor(v / 2 ** from) % 2 ** bits;
  const [month, day, h, m, s] = [field(22, 4), field(17, 5), field(12, 5), field(6, 6), field(0, 6)];
  if (!(month >= 1 && month <= 12 && day >= 1 && h < 24 && m < 60 && s < 60)) throw new DecodeError('pst: bad time');
  return Date.UTC(2000 + field(26, 6), month - 1, day, h, m, s);
}

function readCoordinate(r: Reader): number {
  const v = r.u32();
  const magnitude = v % 0x80000000;
  return (v >= 0x80000000 ? -1 : 1) * (Math.floor(magnitude / 0x10000) + (magnitude % 0x10000) / 10000) / 60;
}

function decodeStatus(r: Reader): DeviceRecord | undefined {
  readTime(r); // the device's time of the status
  const status = r.u8();
  const rec: DeviceRecord = { attributes: { [Attr.blocked]: (status & 0x10) !== 0, [Attr.ignition]: (status & 0x80) !== 0, [Attr.status]: status } };
  for (let n = r.u8(); n > 0; n--) {
    const tag = r.u8();
    const value = new Reader(r.bytes(r.u8()));
    if (tag === 0x0d) {
      const level = value.u8();
      if (level <= 20) rec.attributes[Attr.batteryLevel] = level * 5;
    } else if (tag === 0x10) {
      rec.time = readTime(value);
      Object.assign(rec, { valid: true, lat: readCoordinate(value), lng: readCoordinate(value), speed: value.u8(), course: (value.u8() * 2) % 360, altitude: value.i16() });
      if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('pst: coordinates out of range');
    }
  }
  return rec.time !== undefined ? rec : undefined;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 0, frame.length - 2);
  const id = r.u32();
  const version = r.u8();
  const index = r.u32();
  const type = r.u8();
  const ack = Buffer.alloc(11);
  ack.writeUInt32BE(id, 0);
  ack[4] = version;
  ack.writeUInt32BE(index, 5);
  ack[9] = MSG_ACK;
  ack[10] = type;
  const reply = ctx.transport === 'tcp' ? framed(withCrc(ack)) : withCrc(ack);
  const rec = type === MSG_STATUS ? decodeStatus(r) : undefined;
  return { deviceId: String(id), records: rec ? [rec] : [], reply };
}

const COMMANDS: Record<string, number> = { engineStop: 0x0002, engineResume: 0x0001 };

/** Over TCP the command goes in `(` .. `)`; as a datagram, bare. */
function encode(command: Command, ctx: EncodeContext): Buffer {
  const code = COMMANDS[command.type];
  if (code === undefined) throw new Error(`pst: unsupported command ${command.type}`);
  if (!/^\d+$/.test(ctx.deviceId)) throw new Error('pst: the device id is a number');
  const b = Buffer.alloc(16);
  b.writeUInt32BE(Number(BigInt(ctx.deviceId) & 0xffffffffn), 0); // the device id as the u32 the device sends
  b[4] = 0x06; // version
  b.writeUInt32BE(1, 5); // index
  b[9] = MSG_COMMAND;
  b.writeUInt16BE(code, 10);
  b.writeUInt16BE(0xffff, 12);
  b.writeUInt16BE(0xffff, 14);
  const packet = withCrc(b);
  return ctx.transport === 'tcp' ? framed(packet) : packet;
}

export const protocol: Protocol = {
  name: 'pst',
  defaultPort: 5207,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
