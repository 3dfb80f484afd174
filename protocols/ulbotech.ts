/**
 * Ulbotech T3xx trackers.
 *
 * Binary: `0xF8 | u8 version | u8 type | IMEI (8 bytes BCD) | u32 time (top bit a flag; s since 2000-01-01 UTC) |
 *   data blocks (u8 type, u8 length, content) | u16 CRC-16/XMODEM of version..blocks | 0xF8`,
 *   with 0xF8 and 0xF7 inside escaped as `F7 01` and `F7 00` (the framer un-escapes).
 *   Blocks: 0x01 GPS (s32 lat, s32 lng in 1e-6 degree, u16 km/h, u16 course, u16 HDOP ×100; 9999 =
 *   no fix), 0x02 cell (mcc, mnc, lac, u32 or u16 cid, rssi), 0x03 status and alarm words, 0x04 odometer (m),
 *   0x05 analog channels (u16: channel in the top 4 bits, raw 12-bit value), 0x07 OBD items
 *   (u8 length << 4 | service, PID, raw value), 0x0B CAN data (u16 length); others are skipped.
 * Text: `*TS01,<IMEI>[,<hhmmss><ddmmyy>,<reply>]#` (heartbeat or command reply).
 * Binary reports are acknowledged with `*TS01,ACK:<CRC as 4 hex digits>#`.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import {
  DecodeError,
  FrameError,
  type AttrValue,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from './types.ts';

const MAX_FRAME = 4096;
const FLAG = 0xf8;
const ESC = 0xf7;
const EPOCH_2000 = Date.UTC(2000, 0, 1);

type Attrs = Record<string, AttrValue>;

/** CRC-16/XMODEM (poly 0x1021, init 0). */
export function crc16Xmodem(buf: Uint8Array, start = 0, end = buf.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) {
    crc ^= buf[i] << 8;
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

// ---- framing ------------------------------------------------------------------------------------

/** Binary frames run from F8 to F8 (un-escaped here); text frames from `*` to `#`. */
function createFramer(): Framer {
  return {
    next(buffer) {
      if (!buffer.length) return null;
      if (buffer[0] === 0x2a) {
        const end = buffer.indexOf(0x23);
        if (end < 0) {
          if (buffer.length > MAX_FRAME) throw new FrameError('ulbotech: text frame too long');
          return null;
        }
        return { frame: buffer.subarray(0, end + 1), consumed: end + 1 };
      }
      if (buffer[0] !== FLAG) throw new FrameError('ulbotech: unknown frame start');
      const end = buffer.indexOf(FLAG, 1);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('ulbotech: frame too long');
        return null;
      }
      return { frame: unescape(buffer.subarray(0, end + 1)), consumed: end + 1 };
    },
  };
}

function unescape(b: Buffer): Buffer {
  if (b.indexOf(ESC) < 0) return b;
  const out: number[] = [];
  for (let i = 0; i < b.length; i++) {
    if (b[i] === ESC && i + 1 < b.length - 1) out.push(b[++i] === 0x01 ? FLAG : ESC);
    else out.push(b[i]);
  }
  return Buffer.from(out);
}

// ---- blocks -------------------------------------------------------------------------------------

/** OBD items: `u8 (length << 4 | service) | PID | value (length - 2 bytes)`, raw SAE values. */
const OBD: Record<number, [string, (v: number) => number]> = {
  0x04: [Attr.engineLoad, (v) => (v * 100) / 255],
  0x05: [Attr.coolantTemp, (v) => v - 40],
  0x0c: [Attr.rpm, (v) => v / 4],
  0x0d: [Attr.obdSpeed, (v) => v],
  0x0f: ['intakeTemp', (v) => v - 40],
  0x10: ['maf', (v) => v / 100],
  0x11: [Attr.throttle, (v) => (v * 100) / 255],
  0x1f: ['runTime', (v) => v],
  0x2f: [Attr.fuelLevel, (v) => (v * 100) / 255],
};

function readObd(r: Reader, a: Attrs): void {
  while (r.remaining >= 2) {
    const length = r.u8() >> 4;
    if (length < 2) break;
    const pid = r.u8();
    const value = r.bytes(Math.min(length - 2, r.remaining));
    const known = OBD[pid];
    if (known && value.length >= 1 && value.length <= 4) a[known[0]] = known[1](value.readUIntBE(0, value.length));
  }
}

function readBlock(type: number, r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  switch (type) {
    case 0x01: {
      const lat = r.i32() / 1e6;
      const lng = r.i32() / 1e6;
      if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('ulbotech: coordinates out of range');
      const speed = r.u16();
      const course = r.u16() % 360;
      const hdop = r.u16();
      Object.assign(rec, { lat, lng, speed, course, valid: hdop < 9999 && hdop > 0 });
      if (hdop < 9999) rec.hdop = hdop / 100;
      break;
    }
    case 0x02: {
      // 11 bytes with a 4-byte cell id, 9 on older firmware with 2 bytes
      const [mcc, mnc, lac, cid, rssi] = [r.u16(), r.u16(), r.u16(), r.remaining >= 5 ? r.u32() : r.u16(), r.u8()];
      if (mcc !== 0xffff) rec.cells = [{ mcc, mnc, lac, cid, rssi }];
      break;
    }
    case 0x03:
      a[Attr.status] = r.u16();
      a.alarmBits = r.u16();
      break;
    case 0x04:
      a[Attr.odometer] = r.u32();
      break;
    case 0x05:
      // Channel numbers and raw 12-bit readings: the scale depends on the model's wiring.
      while (r.remaining >= 2) {
        const v = r.u16();
        a[`adcRaw${v >> 12}`] = v & 0xfff;
      }
      break;
    case 0x07:
      readObd(r, a);
      break;
  }
}

// ---- entry ----------------------------------------------------------------------------------------

function decodeBinary(frame: Buffer): DecodeResult {
  // A frame may arrive without its CRC and closing flag (a truncated capture): blocks are read while whole.
  const closed = frame.length >= 20 && frame[frame.length - 1] === FLAG;
  const end = closed ? frame.length - 3 : frame.length;
  let reply: Buffer | undefined;
  if (closed) {
    const crc = frame.readUInt16BE(end);
    if (crc16Xmodem(frame, 1, end) !== crc) throw new DecodeError('ulbotech: bad CRC');
    reply = Buffer.from(`*TS01,ACK:${crc.toString(16).toUpperCase().padStart(4, '0')}#`, 'latin1');
  }
  const r = new Reader(frame, 3, end);
  const imei = r.hex(8).replace(/^0/, '');
  // The top bit of the time word is a flag, the other 31 are seconds since 2000.
  const rec: DeviceRecord = { time: EPOCH_2000 + (r.u32() & 0x7fffffff) * 1000, attributes: {} };
  while (r.remaining >= 2) {
    const type = r.u8();
    const length = type === 0x0b ? r.u16() : r.u8();
    if (length > r.remaining) break;
    readBlock(type, new Reader(r.bytes(length)), rec);
  }
  return { deviceId: imei, records: [rec], reply };
}

const TEXT = /^\*TS\d\d,(\d{15})(?:,(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(\d\d),([^#]*))?#?$/;

function decodeText(frame: Buffer): DecodeResult {
  const m = TEXT.exec(frame.toString('latin1').trim());
  if (!m) throw new DecodeError('ulbotech: bad text frame');
  const [, imei, hh, mi, ss, dd, mo, yy, text] = m;
  if (text === undefined) return { deviceId: imei };
  const time = Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss));
  return { deviceId: imei, records: [{ time, attributes: { [Attr.result]: text } }] };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame[0] === 0x2a) return decodeText(frame);
  if (frame[0] !== FLAG || frame.length < 16) throw new DecodeError('ulbotech: unknown frame');
  return decodeBinary(frame);
}

// ---- commands -----------------------------------------------------------------------------------------

/** Commands are text: `*TS01,<command>#`. */
function encode(command: Command, _ctx: EncodeContext): Buffer {
  if (command.type !== 'custom') throw new Error(`ulbotech: unsupported command ${command.type}`);
  return Buffer.from(`*TS01,${String(command.attributes.data ?? '')}#`, 'latin1');
}

export const protocol: Protocol = {
  name: 'ulbotech',
  defaultPort: 5072,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom'],
  carriesText: false,
  encode,
};
