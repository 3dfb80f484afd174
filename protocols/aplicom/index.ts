/**
 * Aplicom protocols D, E, F and H (Aplicom A1/A9/A11 units): binary frames.
 *
 *   protocol letter (D position, E tachograph, F CAN/FMS, H histograms) + version flags (0x80: a
 *   full 56-bit IMEI follows instead of a 24-bit unit id, 0x40: a 24-bit field selector follows the
 *   length) + id + length (2) + [selector (3)] + event (1) + event info (1) + the fields the
 *   selector names, in a fixed order. Without a selector each protocol has its default one.
 *   A unit id of a TC65 module becomes its IMEI (the module's IMEI base plus the id, the one whose
 *   Luhn digit checks).
 * Devices may send their id as ASCII digits first ("alive" message); the framer skips them.
 * The units expect no answer from the server (none is sent).
 */
import { Attr } from '../attributes.ts';
import { Reader } from '../binary.ts';
import { rememberFix, withLastFix, type LastFix } from '../last-fix.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from '../types.ts';
import { decodeE, decodeF, decodeH } from './tachograph.ts';
import { decodeCan, decodeEventData } from './events.ts';

const MAX_FRAME = 0xffff + 12;
const MAX_ALIVE_DIGITS = 32;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;

function createFramer(): Framer {
  return {
    next(buffer) {
      let start = 0;
      while (start < buffer.length && isDigit(buffer[start])) start++;
      if (start > MAX_ALIVE_DIGITS) throw new FrameError('aplicom: too many alive digits');
      if (buffer.length - start < 11) return null;
      const version = buffer[start + 1];
      let offset = version & 0x80 ? 9 : 5;
      const length = buffer.readUInt16BE(start + offset);
      offset += 2 + (version & 0x40 ? 3 : 0);
      const end = start + offset + length;
      return buffer.length >= end ? { frame: buffer.subarray(start, end), consumed: end } : null;
    },
  };
}

// ---- identity ---------------------------------------------------------------------------------

const TC65I_V11 = 0x14143b4000000;
const TC65_V28 = 358244010000000;
const TC65_V20 = 0x1437207000000;

function luhnValid(n: number): boolean {
  let sum = 0;
  let double = false;
  for (let v = n; v > 0; v = Math.floor(v / 10)) {
    let d = v % 10;
    if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The IMEI a 24-bit unit id stands for (first base whose IMEI checks), or the id itself. */
function imeiFromUnitId(id: number): string {
  if (id === 0) return '0';
  for (const imei of [TC65I_V11 + id, TC65_V28 + ((id + 0xa8180) & 0xffffff), TC65_V20 + id]) if (luhnValid(imei)) return String(imei);
  return String(id);
}

// ---- protocol D -------------------------------------------------------------------------------

const DEFAULT_SELECTOR: Record<string, number> = { D: 0x0002fc, E: 0x007ffc, F: 0x0007fd, H: 0x0002fc };
const EVENT_DATA = 119;

interface Session {
  last?: LastFix;
}

function decodeD(r: Reader, rec: DeviceRecord, selector: number, event: number, ctx: DecodeContext): void {
  const a = rec.attributes;
  const has = (bit: number) => (selector & bit) !== 0;
  const located = has(0x0008);
  if (located) rec.valid = (r.u8() & 0x40) !== 0;
  const deviceTime = has(0x0004) ? r.u32() * 1000 : undefined;
  if (located) {
    rec.time = r.u32() * 1000;
    rec.lat = r.i32() / 1e6;
    rec.lng = r.i32() / 1e6;
    rec.satellites = r.u8();
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('aplicom: coordinates out of range');
  } else rec.time = deviceTime;
  if (has(0x0010)) {
    rec.speed = r.u8();
    a.maximumSpeed = r.u8();
    rec.course = r.u8() * 2;
    if (rec.course > 360) throw new DecodeError('aplicom: course out of range');
  }
  if (has(0x0040)) a[Attr.input] = r.u8();
  if (has(0x0020)) for (let i = 1; i <= 4; i++) a[`adc${i}`] = r.u16();
  if (has(0x8000)) {
    a[Attr.power] = r.u16() / 1000;
    a[Attr.battery] = r.u16() / 1000;
  }
  if (has(0x10000)) r.skip(6); // pulse rate 1
  if (has(0x20000)) r.skip(6); // pulse rate 2
  if (has(0x0080)) a.trip1 = r.u32();
  if (has(0x0100)) a.trip2 = r.u32();
  if (has(0x0040)) a[Attr.output] = r.u8();
  if (has(0x0200)) a[Attr.driverUniqueId] = String(r.u16() * 2 ** 32 + r.u32());
  if (has(0x0400)) r.skip(1); // keypad
  if (has(0x0800)) rec.altitude = r.i16();
  if (has(0x2000)) r.skip(2); // snapshot counter
  if (has(0x4000)) r.skip(8); // state flags
  if (has(0x80000)) r.skip(11); // cell info
  if (has(0x1000)) decodeEventData(r, rec, event);
  if (ctx.config.can === true && r.remaining && has(0x1000) && event === EVENT_DATA) decodeCan(r, a);
  if (!located) withLastFix(rec, ctx.session as Session);
  else rememberFix(ctx.session as Session, rec);
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const kind = String.fromCharCode(r.u8());
  const version = r.u8();
  const id = version & 0x80 ? ((BigInt(r.u32()) << 24n) | BigInt(r.u24())).toString() : imeiFromUnitId(r.u24());
  r.skip(2); // length
  let selector = DEFAULT_SELECTOR[kind] ?? DEFAULT_SELECTOR.D;
  if (version & 0x40) selector = r.u24();
  const event = r.u8();
  const rec: DeviceRecord = { attributes: { [Attr.event]: event, eventInfo: r.u8() } };
  switch (kind) {
    case 'D':
      decodeD(r, rec, selector, event, ctx);
      break;
    case 'E':
      decodeE(r, rec, selector);
      break;
    case 'F':
      decodeF(r, rec, selector);
      break;
    case 'H':
      decodeH(r, rec, selector);
      break;
    default:
      return { deviceId: id };
  }
  if (kind !== 'D') withLastFix(rec, ctx.session as Session);
  return { deviceId: id, records: [rec] };
}

export const protocol: Protocol = {
  name: 'aplicom',
  defaultPort: 5049,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
