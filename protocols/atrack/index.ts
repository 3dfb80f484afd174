/**
 * ATrack AK/AL/AX trackers.
 *
 * Binary `@P | u16 CRC | u16 length (of what follows) | u16 sequence | u64 unit id | records`, one record:
 *   GPS, RTC and sending times (u32 s, or with `longDate` u16 year + 5 bytes), longitude and latitude
 *   (s32, 1e-6 degree), u16 heading, u8 report id, u32 odometer (0.1 km), u16 HDOP (0.1), u8 inputs,
 *   u16 speed (km/h), u8 outputs, u16 analog input (mV), driver id (NUL-terminated), two
 *   temperatures (s16, 0.1 °C; 2000 = none), text message (NUL-terminated), then the custom fields
 *   of the report form when the text message is that form (`%CI%MV%BV...`, see ./fields.ts).
 * Text `@P,<CRC>,<length>,<sequence>,<IMEI>,` + the same fields comma-separated (times as seconds or
 *   `yyyyMMddHHmmss`), the form and its values; further records on following lines.
 * `@R` is the encrypted variant (not decoded). `0xFE 0x02 | unit id | sequence` is the keep-alive.
 * `$INFO=...`, `$OK`, `$ERROR=...` answer commands.
 *
 * Reports and keep-alives are acknowledged with `0xFE 0x02 | unit id | sequence`.
 */
import { Attr } from '../attributes.ts';
import { Reader } from '../binary.ts';
import {
  DecodeError,
  FrameError,
  type Command,
  type DecodeContext,
  type DecodeResult,
  type DeviceRecord,
  type EncodeContext,
  type Framer,
  type Protocol,
} from '../types.ts';
import { formCodes, readBinaryFields, readString, readTextFields } from './fields.ts';

const MAX_FRAME = 65536;
const AT = 0x40;
const KEEPALIVE = 0xfe;
const MAX_RECORDS = 512;

// ---- framing ------------------------------------------------------------------------------------

const crlf = (b: Buffer, from: number) => b.indexOf('\r\n', from, 'latin1');

/**
 * Binary `@P`/`@R` frames by their length; text `@P,` frames end at the CR LF at or after their length
 * (inner records are CR LF separated too); `$` answers at CR LF; keep-alives are 12 bytes.
 */
function createFramer(): Framer {
  return {
    next(b) {
      if (b.length < 1) return null;
      if (b[0] === KEEPALIVE) return b.length >= 12 ? { frame: b.subarray(0, 12), consumed: 12 } : null;
      if (b[0] === 0x24 /* $ */ || b[0] === 0x0d || b[0] === 0x0a) {
        const end = crlf(b, 0);
        if (end < 0) {
          if (b.length > MAX_FRAME) throw new FrameError('atrack: line too long');
          return null;
        }
        return { frame: b.subarray(0, end + 2), consumed: end + 2 };
      }
      if (b[0] !== AT) throw new FrameError('atrack: unknown frame start');
      if (b.length < 6) return null;
      if (b[2] === 0x2c) return textFrame(b);
      const size = 6 + b.readUInt16BE(4);
      if (size > MAX_FRAME) throw new FrameError('atrack: frame too long');
      return b.length >= size ? { frame: b.subarray(0, size), consumed: size } : null;
    },
  };
}

function textFrame(b: Buffer) {
  const c1 = b.indexOf(0x2c, 3);
  const c2 = c1 < 0 ? -1 : b.indexOf(0x2c, c1 + 1);
  if (c2 < 0) {
    if (b.length > 64) throw new FrameError('atrack: bad text header');
    return null;
  }
  const length = Number(b.toString('latin1', c1 + 1, c2));
  if (!Number.isInteger(length) || length > MAX_FRAME) throw new FrameError('atrack: bad text length');
  const end = crlf(b, Math.max(c2, c2 + length - 2));
  if (end < 0) {
    if (b.length > MAX_FRAME) throw new FrameError('atrack: text frame too long');
    return null;
  }
  return { frame: b.subarray(0, end + 2), consumed: end + 2 };
}

// ---- replies ------------------------------------------------------------------------------------

function ack(unitId: bigint, sequence: number): Buffer {
  const out = Buffer.alloc(12);
  out[0] = KEEPALIVE;
  out[1] = 0x02;
  out.writeBigUInt64BE(unitId, 2);
  out.writeUInt16BE(sequence, 10);
  return out;
}

// ---- binary ---------------------------------------------------------------------------------------

function readTime(r: Reader, longDate: boolean): number {
  if (!longDate) return r.u32() * 1000;
  return Date.UTC(r.u16(), r.u8() - 1, r.u8(), r.u8(), r.u8(), r.u8());
}

const temperature = (rec: DeviceRecord, key: string, v: number) => {
  if (v !== 2000) rec.attributes[key] = v / 10;
};

function finish(rec: DeviceRecord): DeviceRecord {
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('atrack: coordinates out of range');
  return rec;
}

function readBinaryRecord(r: Reader, longDate: boolean, custom: boolean, configured?: string[]): { rec: DeviceRecord; complete: boolean } {
  const time = readTime(r, longDate);
  readTime(r, longDate); // RTC
  readTime(r, longDate); // sending time
  const lng = r.i32() / 1e6;
  const lat = r.i32() / 1e6;
  const rec: DeviceRecord = { time, valid: true, lat, lng, course: r.u16() % 360, attributes: {} };
  const a = rec.attributes;
  a[Attr.event] = r.u8();
  a[Attr.odometer] = r.u32() * 100;
  rec.hdop = r.u16() / 10;
  a[Attr.input] = r.u8();
  rec.speed = r.u16();
  a[Attr.output] = r.u8();
  a.adc1 = r.u16() / 1000;
  const driver = readString(r);
  if (driver) a[Attr.driverUniqueId] = driver;
  temperature(rec, 'temp1', r.i16());
  temperature(rec, 'temp2', r.i16());
  const text = readString(r);
  if (text) a.message = text;
  let complete = true;
  // Custom reports: the `%CI` field (a NUL-terminated string) names the form, its values follow.
  if (custom) {
    const form = readString(r);
    complete = form.startsWith('%') && readBinaryFields(r, formCodes(form).slice(1), rec);
  } else if (configured) complete = readBinaryFields(r, configured, rec);
  return { rec: finish(rec), complete };
}

function decodeBinary(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 6, 6 + frame.readUInt16BE(4));
  const sequence = r.u16();
  const unitId = r.buf.readBigUInt64BE(r.skip(8).pos - 8);
  const reply = ack(unitId, sequence);
  const deviceId = unitId.toString();
  if (frame[0] === AT && frame[1] === 0x52) return { deviceId, reply }; // @R: encrypted
  const longDate = ctx.config.longDate === true;
  const custom = ctx.config.custom === true;
  const configured = typeof ctx.config.form === 'string' ? formCodes(ctx.config.form) : undefined;
  const records: DeviceRecord[] = [];
  while (r.remaining > 0 && records.length < MAX_RECORDS) {
    const { rec, complete } = readBinaryRecord(r, longDate, custom, configured);
    records.push(rec);
    if (!complete) break;
  }
  return { deviceId, records, reply };
}

// ---- text -----------------------------------------------------------------------------------------

const textTime = (v: string): number =>
  v.length === 14 ? Date.UTC(+v.slice(0, 4), +v.slice(4, 6) - 1, +v.slice(6, 8), +v.slice(8, 10), +v.slice(10, 12), +v.slice(12, 14)) : Number(v) * 1000;

/** One text record: 17 standard fields, then the form (in the `%CI` field or configured) and its values. */
function textRecord(f: string[], configured: string[] | undefined): DeviceRecord | undefined {
  if (f.length < 17) return undefined;
  const n = (i: number) => Number(f[i]);
  const rec: DeviceRecord = { time: textTime(f[0]), valid: true, lng: n(3) / 1e6, lat: n(4) / 1e6, course: n(5) % 360, hdop: n(8) / 10, speed: n(10), attributes: {} };
  if (![rec.time, rec.lat, rec.lng, rec.course, rec.speed].every(Number.isFinite)) throw new DecodeError('atrack: bad text record');
  const a = rec.attributes;
  Object.assign(a, { [Attr.event]: n(6), [Attr.odometer]: n(7) * 100, [Attr.input]: n(9), [Attr.output]: n(11), adc1: n(12) / 1000 });
  if (f[13] && f[13] !== '0') a[Attr.driverUniqueId] = f[13];
  temperature(rec, 'temp1', n(14));
  temperature(rec, 'temp2', n(15));
  const rest = f.slice(17);
  if (rest[0]?.startsWith('%CI')) readTextFields(rest.slice(1), formCodes(rest[0]).slice(1), rec);
  else if (configured) readTextFields(rest, configured, rec);
  return finish(rec);
}

function decodeText(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const lines = frame.toString('latin1').split('\r\n').filter((l) => l.trim());
  const head = lines[0]?.split(',') ?? [];
  if (head.length < 5) throw new DecodeError('atrack: short text header');
  const sequence = Number(head[3]);
  const imei = head[4];
  if (!/^\d{1,19}$/.test(imei) || !Number.isInteger(sequence)) throw new DecodeError('atrack: bad text header');
  const form = typeof ctx.config.form === 'string' ? formCodes(ctx.config.form) : undefined;
  const records: DeviceRecord[] = [];
  const first = textRecord(head.slice(5), form);
  if (first) records.push(first);
  for (const line of lines.slice(1, MAX_RECORDS)) {
    const rec = textRecord(line.split(','), form);
    if (rec) records.push(rec);
  }
  return { deviceId: imei, records, reply: ack(BigInt(imei), sequence & 0xffff) };
}

/** `$INFO=<imei>,<model>,<firmware>,...`, `$OK`, `$ERROR=<code>`: answers to commands. */
function decodeAnswer(frame: Buffer): DecodeResult {
  const text = frame.toString('latin1').trim();
  const info = /^\$INFO=(\d+),/.exec(text);
  return { deviceId: info?.[1], records: [{ attributes: { [Attr.result]: text.slice(1) } }] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length >= 12 && frame[0] === KEEPALIVE && frame[1] === 0x02) {
    return { deviceId: frame.readBigUInt64BE(2).toString(), reply: Buffer.from(frame.subarray(0, 12)) };
  }
  if (frame[0] === 0x24) return decodeAnswer(frame);
  // Text frames: `@P,`, or a device that replaces `@P` by two other bytes.
  if (frame.length > 3 && frame[2] === 0x2c) return decodeText(frame, ctx);
  // Binary frames: `@P`, `@R` (encrypted), or other two bytes some firmwares put in their place.
  if (frame.length < 16 || 6 + frame.readUInt16BE(4) > frame.length) throw new DecodeError('atrack: truncated');
  return decodeBinary(frame, ctx);
}

// ---- commands ---------------------------------------------------------------------------------------

/** AT commands as text lines: `custom` sends its data as given, with the CR LF the device expects. */
function encode(command: Command, _ctx: EncodeContext): Buffer {
  if (command.type !== 'custom') throw new Error(`atrack: unsupported command ${command.type}`);
  return Buffer.from(`${String(command.attributes.data ?? '')}\r\n`, 'latin1');
}

export const protocol: Protocol = {
  name: 'atrack',
  defaultPort: 5044,
  transports: ['tcp', 'udp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: ['custom'],
  carriesText: false,
  encode,
};
