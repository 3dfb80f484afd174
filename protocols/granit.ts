/**
 * Granit Navigator (04x) binary-in-text protocol.
 *
 *   current position  `+RRCB~ | u16le length | u16le device id | u32le unix time | structure (20) | *XX`
 *   archive           `+DDAT~ | u16le length | u16le device id | u8 format (4) | u8 blocks | u16le pack no |
 *                      blocks of (u32le time | 6 structures | u16le seconds between them) | *XX`
 *   text              `+IDNT: ...`, `OK`, `ERROR ...`: answers to commands
 * Every message ends with CR LF; the framer skips the binary part after `~` by its length, since it may
 * hold CR LF. `*XX` is the XOR of the bytes before `*` in upper-case hex (the decoder does not check it).
 * A structure: u8 flags (bit 7 valid, 1 alarm, 4 north, 5 east, 6 course bit 8) | u8 satellites << 4 | pdop |
 * u8 lon degrees | u8 lat degrees | u16le lon and lat 1/1000 minutes | u8 km/h | u8 course | i16le distance |
 * 4 x u8 analog inputs + u8 their high bits | u8 altitude / 10 | u8 outputs | u8 status. A structure of 0xFE
 * bytes is an empty archive slot.
 * Replies: `BB+UGRC~` (time, id) to a current position, `BB+ARCF~` (pack no, id) to an archive.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, xorSum } from './binary.ts';
import { DecodeError, FrameError, type Command, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const CRLF = Buffer.from('\r\n');

function createFramer(): Framer {
  return {
    next(buffer) {
      let end = buffer.indexOf(CRLF);
      if (end < 0) {
        if (buffer.length > MAX_FRAME) throw new FrameError('granit: no line end');
        return null;
      }
      const tilde = buffer.indexOf(0x7e);
      if (tilde >= 0 && tilde < end) {
        if (buffer.length < tilde + 3) return null;
        const from = tilde + 2 + buffer.readUInt16LE(tilde + 1);
        if (from > MAX_FRAME) throw new FrameError('granit: frame too long');
        end = buffer.indexOf(CRLF, from);
        if (end < 0) {
          if (buffer.length > MAX_FRAME) throw new FrameError('granit: no line end');
          return null;
        }
      }
      return { frame: buffer.subarray(0, end), consumed: end + 2 };
    },
  };
}

/** `text` followed by `*XX\r\n` (XOR of every byte before the star). */
function withChecksum(body: Buffer): Buffer {
  return Buffer.concat([body, Buffer.from(`*${xorSum(body).toString(16).toUpperCase().padStart(2, '0')}\r\n`, 'latin1')]);
}

function binaryReply(header: string, words: number[], time?: number): Buffer {
  const b = Buffer.alloc(header.length + 2 + (time !== undefined ? 4 : 0) + words.length * 2);
  let o = b.write(header, 'latin1');
  o = b.writeUInt16LE(b.length - header.length - 2, o);
  if (time !== undefined) o = b.writeUInt32LE(time, o);
  for (const w of words) o = b.writeUInt16LE(w, o);
  return withChecksum(b);
}

function readStructure(r: Reader, rec: DeviceRecord): void {
  const flags = r.u8();
  const sats = r.u8();
  const lonDeg = r.u8();
  const latDeg = r.u8();
  const lonMin = r.u16le();
  const latMin = r.u16le();
  rec.valid = (flags & 0x80) !== 0;
  let lat = latDeg + latMin / 60000;
  let lng = lonDeg + lonMin / 60000;
  if (rec.valid) {
    if (!(flags & 0x10)) lat = -lat;
    if (!(flags & 0x20)) lng = -lng;
  }
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('granit: coordinates out of range');
  Object.assign(rec, { lat, lng, satellites: sats >> 4, speed: r.u8() });
  rec.course = (r.u8() | (flags & 0x40 ? 0x100 : 0)) % 360;
  const a = rec.attributes;
  if (flags & 0x02) a[Attr.alarm] = Alarm.general;
  a.pdop = sats & 0x0f;
  a[Attr.distance] = r.i16le();
  const adc = [r.u8(), r.u8(), r.u8(), r.u8()];
  const high = r.u8();
  adc.forEach((v, i) => (a[indexed.adc(i + 1)] = (((high >> (6 - 2 * i)) & 0x03) << 8) | v));
  rec.altitude = r.u8() * 10;
  a[Attr.output] = r.u8();
  r.skip(1); // messages waiting in the device
}

function decodeCurrent(r: Reader): DecodeResult {
  r.skip(2);
  const id = r.u16le();
  const time = r.u32le();
  const rec: DeviceRecord = { time: time * 1000, attributes: {} };
  readStructure(r, rec);
  return { deviceId: String(id), records: [rec], reply: binaryReply('BB+UGRC~', [id], time) };
}

function decodeArchive(r: Reader): DecodeResult {
  r.skip(2);
  const id = r.u16le();
  if (r.u8() !== 4) return { deviceId: String(id) };
  let blocks = r.u8();
  const pack = r.u16le();
  const records: DeviceRecord[] = [];
  while (blocks-- > 0) {
    const time = r.u32le();
    const step = new Reader(r.buf, r.pos + 120, r.end).u16le();
    for (let i = 0; i < 6; i++) {
      if (r.peekU8() === 0xfe) {
        r.skip(20);
        continue;
      }
      const rec: DeviceRecord = { time: (time + i * step) * 1000, attributes: { [Attr.archive]: true } };
      readStructure(r, rec);
      records.push(rec);
    }
    r.skip(2);
  }
  return { deviceId: String(id), records, reply: binaryReply('BB+ARCF~', [pack, id]) };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const header = frame.toString('latin1', 0, 6);
  if (header === '+RRCB~') return decodeCurrent(new Reader(frame, 6));
  if (header === '+DDAT~') return decodeArchive(new Reader(frame, 6));
  if (frame.indexOf(0x7e) >= 0) throw new DecodeError('granit: unknown message');
  // a text answer to a command
  if (!ctx.deviceId) return {};
  return { records: [{ time: ctx.now, attributes: { [Attr.result]: frame.toString('latin1') } }] };
}

const COMMANDS: Record<string, string> = { identification: 'BB+IDNT', rebootDevice: 'BB+RESET', positionSingle: 'BB+RRCD' };

function encode(command: Command): Buffer {
  const text = COMMANDS[command.type];
  if (!text) throw new Error(`granit: unsupported command ${command.type}`);
  return withChecksum(Buffer.from(text, 'latin1'));
}

export const protocol: Protocol = {
  name: 'granit',
  defaultPort: 5113,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: Object.keys(COMMANDS),
  encode,
};
