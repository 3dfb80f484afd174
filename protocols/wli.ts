/**
 * WLI binary protocol. A frame runs from STX (0x02) to ETX (0x03); inside, `DB D2` stands for 0x02,
 * `DB D3` for 0x03 and `DB DD` for 0xDB (the framer un-escapes). After STX a class byte:
 *   '2' login: `wli:<id>`
 *   '1' report: index (u16), length, checksum, report type, 0, then fields: number, 0, value, 0 where a
 *       value is ASCII up to a zero byte, or 0xFF, a u16 length and binary data. Field 52 (binary) is the
 *       GPS block: reason, century, yy MM dd HH mm ss, latitude and longitude (i32, 1/600 000 degree),
 *       speed (knots), course (0.1°), odometer (feet), altitude (i32, 0.1 m). Five fields from an offset
 *       that depends on the report type (0xE4: 10, 0xCB: 80, 0x1E: 182, others 35) are MCC, MNC, LAC,
 *       cell id and signal; field 246 `a,b,supply,battery,...` (0.01 V); field 255 the device time (Unix
 *       seconds). A report without a GPS block (and every 0xE4 report) takes the last fix, not valid.
 * Devices get no answer.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { fixOrLast, type LastFix } from './last-fix.ts';
import { bracketedFramer, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const UNESCAPED: Record<number, number> = { 0xd2: 0x02, 0xd3: 0x03, 0xdd: 0xdb };

function wliFramer(): Framer {
  const bracketed = bracketedFramer('wli', 0x02, 0x03, MAX_FRAME);
  return {
    next(buffer) {
      const f = bracketed.next(buffer);
      if (!f || !f.frame.includes(0xdb)) return f;
      const out: number[] = [];
      for (let i = 0; i < f.frame.length; i++) {
        const b = f.frame[i];
        if (b === 0xdb && UNESCAPED[f.frame[i + 1]] !== undefined) out.push(UNESCAPED[f.frame[++i]]);
        else out.push(b);
      }
      return { frame: Buffer.from(out), consumed: f.consumed };
    },
  };
}

const CELL_OFFSETS: Record<number, number> = { 0xe4: 10, 0xcb: 80, 0x1e: 182 };

function gps(data: Buffer, rec: DeviceRecord): void {
  const r = new Reader(data, 2);
  const [yy, mo, dd, hh, mi, ss] = r.bytes(6);
  const lat = r.i32() / 600000;
  const lng = r.i32() / 600000;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('wli: coordinates out of range');
  Object.assign(rec, { time: utc(yy, mo, dd, hh, mi, ss), valid: true, lat, lng, speed: r.u16() * 1.852, course: (r.u16() / 10) % 360 });
  rec.attributes[Attr.odometer] = Math.round(r.u32() * 0.3048);
  rec.altitude = r.i32() / 10;
}

function report(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 2, frame[frame.length - 1] === 0x03 ? frame.length - 1 : frame.length);
  const rec: DeviceRecord = { attributes: { [Attr.index]: r.u16() } };
  r.skip(4); // length, checksum
  const type = r.u8();
  r.skip(1);
  const cellOffset = CELL_OFFSETS[type] ?? 35;
  const cell: number[] = [];
  let deviceTime: number | undefined;
  while (r.remaining > 1) {
    const field = r.u8();
    r.skip(1);
    if (r.peekU8() === 0xff) {
      r.skip(1);
      const data = r.bytes(r.u16());
      if (field === 52) gps(data, rec);
    } else {
      const end = frame.indexOf(0, r.pos);
      if (end < 0 || end >= r.end) break;
      const value = r.ascii(end - r.pos);
      const n = field - cellOffset;
      if (n >= 0 && n < 5) cell[n] = Number(value);
      else if (field === 246) {
        const v = value.split(',');
        if (v.length >= 4 && /^\d+$/.test(v[2]) && /^\d+$/.test(v[3])) {
          rec.attributes[Attr.power] = Number(v[2]) / 100;
          rec.attributes[Attr.battery] = Number(v[3]) / 100;
        }
      } else if (field === 255 && /^\d{1,12}$/.test(value)) deviceTime = Number(value) * 1000;
    }
    if (r.remaining > 0) r.skip(1);
  }
  if (cell.length >= 4 && cell.slice(0, 4).every((v) => Number.isInteger(v))) {
    rec.cells = [{ mcc: cell[0], mnc: cell[1], lac: cell[2], cid: cell[3], ...(Number.isInteger(cell[4]) ? { rssi: cell[4] } : {}) }];
  }
  if (rec.lat === undefined || type === 0xe4) {
    for (const k of ['lat', 'lng', 'altitude', 'speed', 'course', 'valid'] as const) delete rec[k];
    rec.time = deviceTime;
  }
  fixOrLast(ctx.session as { last?: LastFix }, rec, ctx.now);
  return { records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0x02 || frame.length < 3) throw new DecodeError('wli: not a frame');
  if (frame[1] === 0x31) return report(frame, ctx);
  if (frame[1] === 0x32) {
    const m = /^wli:([\x21-\x7e]{1,32})$/.exec(frame.toString('latin1', 2, frame[frame.length - 1] === 0x03 ? frame.length - 1 : frame.length));
    if (!m) throw new DecodeError('wli: bad login');
    return { deviceId: m[1] };
  }
  return {};
}

export const protocol: Protocol = {
  name: 'wli',
  defaultPort: 5209,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: wliFramer,
  decode,
  commands: [],
};
