/**
 * Snapper (Russian car alarm telematics) binary protocol, little-endian. A frame is `K`, protocol
 * version, system id (u32), serial number (u32, the device id), encryption (u16), body length (u32),
 * flags, 3 reserved bytes, packet index (u16), checksum, packet type (u16), body; or the two-byte
 * ping `P` + byte, answered `PO`.
 *   0x01 hello -> answer "hello"; every other packet -> answer "OK". An answer is a header of the same
 *   shape (version 3, zero ids) with the packet's index and type, the byte sum of the answer text, then the text.
 *   0x21 events (event code, two info bytes, time, zone); 0x23 technical info (five 4-byte items: type 0
 *   supply 0.1 V, device temperature, signal; type 1 interior and engine temperature); 0x32 GPS data (JSON:
 *   `f` flags hex: bit 3 fix present, 1 valid, 6 north, 7 east; `d` ddMMyy, `t` HHmmss, `la` ddmm.mmmm,
 *   `lo` dddmm.mmmm, `a` altitude, `s` speed in knots, `c` course, `sv` satellites); 0x37 several parts
 *   (count, then type, length and body of each). A packet without a fix takes the last one, not valid.
 */
import { Attr } from './attributes.ts';
import { Reader, knotsToKmh } from './binary.ts';
import { fixOrLast, type LastFix } from './last-fix.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 65536;
const HEADER = 25;
const MSG_HELLO = 0x01;
const MSG_EVENTS = 0x21;
const MSG_TECH_INFO = 0x23;
const MSG_GPS = 0x32;
const MSG_CONCATENATED = 0x37;

function snapperFramer(): Framer {
  return {
    next(buffer) {
      if (!buffer.length) return null;
      if (buffer[0] === 0x50) return buffer.length >= 2 ? { frame: buffer.subarray(0, 2), consumed: 2 } : null;
      if (buffer[0] !== 0x4b) throw new FrameError('snapper: bad header');
      if (buffer.length < 16) return null;
      const length = buffer.readUInt32LE(12) + HEADER;
      if (length > MAX_FRAME) throw new FrameError('snapper: frame too long');
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

function answer(index: number, type: number, text: string): Buffer {
  const body = latin1(text);
  const b = Buffer.alloc(HEADER);
  b[0] = 0x4b;
  b[1] = 3;
  b.writeUInt32LE(body.length, 12);
  b.writeUInt16LE(index, 20);
  b[22] = body.reduce((s, x) => (s + x) & 0xff, 0);
  b.writeUInt16LE(type, 23);
  return Buffer.concat([b, body]);
}

function events(r: Reader, rec: DeviceRecord): void {
  rec.attributes[Attr.event] = r.u8();
  r.skip(7); // info bytes, time, zone
}

function techInfo(r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  for (let i = 0; i < 5; i++) {
    r.skip(1); // item index
    const type = r.u8();
    if (type === 0) {
      a[Attr.power] = r.u8() / 10;
      a[Attr.deviceTemp] = r.i8();
      a[Attr.rssi] = r.u8();
    } else if (type === 1) {
      // -128: no sensor
      const [interior, engine] = [r.i8(), r.i8()];
      if (interior !== -128) a.interiorTemp = interior;
      if (engine !== -128) a.engineTemp = engine;
      r.skip(1);
    } else r.skip(3);
  }
}

function gps(body: Buffer, rec: DeviceRecord): void {
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(body.toString('latin1')) as Record<string, unknown>;
  } catch {
    throw new DecodeError('snapper: bad GPS data');
  }
  const s = (k: string) => (typeof j[k] === 'string' ? (j[k] as string) : '');
  const flags = parseInt(s('f'), 16);
  if (!(flags & 0x08)) return;
  const d = /^(\d\d)(\d\d)(\d\d)$/.exec(s('d'));
  const t = /^(\d\d)(\d\d)(\d\d)/.exec(s('t'));
  const la = /^(\d\d)(\d\d\.\d+)$/.exec(s('la'));
  const lo = /^(\d\d\d)(\d\d\.\d+)$/.exec(s('lo'));
  if (!d || !t || !la || !lo) throw new DecodeError('snapper: bad GPS fields');
  const lat = +la[1] + +la[2] / 60;
  const lng = +lo[1] + +lo[2] / 60;
  Object.assign(rec, {
    time: utc(+d[3], +d[2], +d[1], +t[1], +t[2], +t[3]),
    valid: (flags & 0x02) !== 0,
    lat: flags & 0x40 ? lat : -lat,
    lng: flags & 0x80 ? lng : -lng,
    altitude: Number(s('a')) || 0,
    speed: knotsToKmh(Number(s('s')) || 0),
    course: (Number(s('c')) || 0) % 360,
    satellites: Number(s('sv')) || 0,
  });
}

function part(type: number, r: Reader, length: number, rec: DeviceRecord): void {
  const end = r.pos + length;
  if (type === MSG_EVENTS) events(r, rec);
  else if (type === MSG_TECH_INFO) techInfo(r, rec);
  else if (type === MSG_GPS) gps(r.bytes(length), rec);
  r.pos = end;
  if (end > r.end) throw new DecodeError('snapper: part past the end');
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] === 0x50) return { reply: Buffer.from('PO') };
  if (frame[0] !== 0x4b || frame.length < HEADER) throw new DecodeError('snapper: not a frame');
  const r = new Reader(frame, 6);
  const deviceId = String(r.u32le());
  r.skip(2);
  const length = r.u32le();
  r.skip(4);
  const index = r.u16le();
  r.skip(1);
  const type = r.u16le();
  const reply = answer(index, type, type === MSG_HELLO ? 'hello' : 'OK');
  const body = new Reader(frame, HEADER, HEADER + length);
  const rec: DeviceRecord = { attributes: {} };
  if (type === MSG_CONCATENATED) {
    const count = body.u16le();
    for (let i = 0; i < count; i++) {
      const partType = body.u16le();
      part(partType, body, body.u16le(), rec);
    }
  } else if (type === MSG_EVENTS || type === MSG_TECH_INFO || type === MSG_GPS) part(type, body, body.remaining, rec);
  else return { deviceId, reply };
  fixOrLast(ctx.session as { last?: LastFix }, rec, ctx.now);
  return { deviceId, records: [rec], reply };
}

export const protocol: Protocol = {
  name: 'snapper',
  defaultPort: 5256,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: snapperFramer,
  decode,
  commands: [],
};
