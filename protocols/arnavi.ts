/**
 * Arnavi (Arnavi 4/5, Integral) protocol: a binary format and an older text format on one port.
 *
 * Binary:
 *   header   `FF | version (0x22..0x25) | IMEI u64 LE` (version 0x24 adds 8 more bytes), answered
 *            `7B 00 00 7D` (version 0x22) or `7B 04 00 <sum of the time bytes> <server time u32 LE> 7D`
 *   package  `5B | number | records... | 5D`, answered `7B 00 <number> 7D`; a record is
 *            `type | length u16 LE | time u32 LE | data | checksum`, type 0x01 holding 5-byte tags
 *            `<tag> <4 bytes>` (voltages, coordinates as floats, course/altitude/satellites/speed, IO, CAN values)
 *   result   `5B FD <code> 5D` (the device's answer to a command)
 * Text: `$AV,V<n>,<id>,<index>,<power cV>,<battery cV>,<?>,<movement>,<ignition>,<inputs>,<in1>,<in1>,[<in2>,<in2>,]
 *        <fix>,<sats>,[<altitude>,<geoid>,]<hhmmss>,<ddmm.mmmm>N,<dddmm.mmmm>E,<knots>,<course>,<ddmmyy>,...*<cs>\r\n`
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { Reader, knotsToKmh, nmeaDegrees } from './binary.ts';
import { DecodeError, FrameError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 8192;
const HEADER = 0xff;
const PACKAGE = 0x5b;
const PACKAGE_END = 0x5d;
const RESULT = 0xfd;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 4) return null;
      const first = buffer[0];
      let length: number;
      if (first === 0x24) {
        const end = buffer.indexOf('\r\n');
        if (end < 0) {
          if (buffer.length > MAX_FRAME) throw new FrameError('arnavi: text line too long');
          return null;
        }
        return { frame: buffer.subarray(0, end), consumed: end + 2 };
      } else if (first === HEADER) {
        length = buffer[1] === 0x24 ? 18 : 10;
      } else if (first === PACKAGE) {
        if (buffer[1] === RESULT) length = 4;
        else {
          // records are type, length u16 LE, time, data, checksum: 8 bytes around the data
          let i = 2;
          while (i < buffer.length && buffer[i] !== PACKAGE_END) {
            if (i + 3 > buffer.length) return null;
            i += 8 + buffer.readUInt16LE(i + 1);
            if (i > MAX_FRAME) throw new FrameError('arnavi: package too long');
          }
          if (i >= buffer.length) return null;
          length = i + 1;
        }
      } else throw new FrameError('arnavi: unknown packet start');
      return buffer.length >= length ? { frame: buffer.subarray(0, length), consumed: length } : null;
    },
  };
}

// ---- binary -----------------------------------------------------------------------------------

function headerReply(version: number, now: number): Buffer {
  if (version === 0x22) return Buffer.of(0x7b, 0x00, 0x00, 0x7d);
  const time = Buffer.alloc(4);
  time.writeUInt32LE(Math.floor(now / 1000) >>> 0);
  const sum = (time[0] + time[1] + time[2] + time[3]) & 0xff;
  return Buffer.concat([Buffer.of(0x7b, 0x04, 0x00, sum), time, Buffer.of(0x7d)]);
}

/** One 5-byte tag of a data record. */
function tag(id: number, r: Reader, rec: DeviceRecord): void {
  const a = rec.attributes;
  switch (id) {
    case 1: {
      const battery = r.u16le();
      const power = r.u16le();
      if (power !== 0 && power !== 0xffff) a[Attr.power] = power / 1000;
      if (battery !== 0 && battery !== 0xffff) a[Attr.battery] = battery / 1000;
      return;
    }
    case 3:
    case 4: {
      const v = r.f32le();
      if (id === 3 && v > -90 && v < 90) rec.lat = v;
      if (id === 4 && v > -180 && v < 180) rec.lng = v;
      return;
    }
    case 5: {
      const course = r.u8() * 2;
      const altitude = r.u8() * 10;
      const sats = r.u8();
      const knots = r.u8();
      if (sats === 0xfe || sats === 0xff) rec.valid = false;
      else Object.assign(rec, { valid: true, satellites: (sats & 0x0f) + (sats >> 4), course: course % 360, altitude, speed: knotsToKmh(knots) });
      return;
    }
    case 6: {
      const mode = r.u8();
      if (mode === 0x01) {
        const virtual = r.u8();
        const inputs = r.u16le();
        a.virtualIgnition = (virtual & 1) === 1;
        a.callButton = (virtual & 2) === 2;
        for (let i = 0; i < 8; i++) a[indexed.in(i + 1)] = ((inputs >> i) & 1) === 1;
      } else if (mode === 0x06 || mode === 0x07 || mode === 0x08) {
        const input = r.u8();
        const value = r.u16le();
        if (mode === 0x06) a[indexed.count(input)] = value;
        else if (mode === 0x07) a[`freq${input}`] = value;
        else a[indexed.adc(input)] = value / 1000;
      } else r.skip(3);
      return;
    }
    case 7: {
      const cid = r.u16le();
      const lac = r.u16le();
      Object.assign(a, { cid, lac });
      return;
    }
    case 8: {
      const mnc = r.u8();
      const mcc = r.u16le();
      a[Attr.rssi] = r.u8();
      Object.assign(a, { mcc, mnc });
      return;
    }
    case 9: {
      const status = r.u32le();
      a[Attr.status] = status;
      a[Attr.input] = status & 0xff;
      a[Attr.output] = (status >> 8) & 0x0f;
      a[Attr.motion] = ((status >> 16) & 1) === 1;
      a[Attr.armed] = ((status >> 19) & 1) === 1;
      if ((status >> 20) & 1) a[Attr.alarm] = Alarm.sos;
      return;
    }
    case 51: {
      const flags = r.u32le();
      const bit = (n: number) => ((flags >> n) & 1) === 1;
      Object.assign(a, { [Attr.door]: bit(8) || bit(9), trunk: bit(10), hood: bit(11), handbrake: bit(12), brakePedal: bit(13), engineRunning: bit(14), [Attr.ignition]: bit(16) });
      return;
    }
    case 52:
      a[Attr.hours] = Math.round((r.u32le() / 100) * 3_600_000);
      return;
    case 53:
      a[Attr.odometer] = Math.round((r.u32le() / 100) * 1000);
      return;
    case 54:
      a[Attr.fuelUsed] = r.u32le() / 10;
      return;
    case 55:
      a[Attr.fuelLevel] = r.u16le() / 10;
      r.skip(2);
      return;
    case 56:
      a[Attr.fuel] = r.u32le();
      return;
    case 57:
      a[Attr.rpm] = r.u16le();
      r.skip(2);
      return;
    case 58:
      a.engineTemp = r.i32le();
      return;
    case 59:
      a[Attr.obdSpeed] = r.u32le();
      return;
    case 69:
      a[Attr.throttle] = r.u8();
      a[Attr.engineLoad] = r.u8();
      r.skip(2);
      return;
    case 151:
      rec.hdop = a.hdop = r.u16le() / 100;
      r.skip(2);
      return;
    default:
      if (id >= 71 && id <= 79) {
        const level = r.u16le();
        const temp = r.u16le();
        if (level !== 0 && level !== 0xffff) {
          a[indexed.fuel(id - 70)] = level;
          a[indexed.temp(id - 70)] = (temp - 100) / 10;
        }
      } else r.skip(4);
  }
}

function decodePackage(frame: Buffer): { number: number; records: DeviceRecord[]; result?: string } {
  const r = new Reader(frame, 1);
  const number = r.u8();
  if (number === RESULT) return { number, records: [], result: String(r.u8()) };
  const records: DeviceRecord[] = [];
  while (r.remaining > 0) {
    const type = r.u8();
    if (type === PACKAGE_END) break;
    const length = r.u16le();
    const time = r.u32le() * 1000;
    const end = r.pos + length;
    if (end + 1 > r.end) throw new DecodeError('arnavi: record past the end');
    if (type === 0x01 && length > 0) {
      const rec: DeviceRecord = { time, attributes: {} };
      while (r.pos + 5 <= end) tag(r.u8(), r, rec);
      if (rec.lat === undefined || rec.lng === undefined) {
        delete rec.lat;
        delete rec.lng;
      }
      records.push(rec);
    } else if (type === 0x03 && length > 0) {
      records.push({ time, attributes: { [Attr.result]: frame.toString('latin1', r.pos, end) } });
    }
    r.pos = end + 1; // checksum
  }
  return { number, records };
}

// ---- text -------------------------------------------------------------------------------------

const TEXT =
  /^\$AV,V\d,(\d+),(\d+),(\d+),(\d+),-?\d+,[01],([01]),(\d+),\d+,\d+,(?:\d+,\d+,)?([01]),(\d+),(?:(\d+\.\d+)?,(?:\d+\.\d+)?,)?(\d\d)(\d\d)(\d\d),(\d{4}\.\d+)([NS]),(\d{5}\.\d+)([EW]),(\d+\.\d+),(\d+\.\d+),(\d\d)(\d\d)(\d\d)/;

function decodeText(s: string): DecodeResult {
  const m = TEXT.exec(s);
  if (!m) return {};
  const [, id, index, power, battery, ignition, input, fix, sats, altitude, hh, mi, ss, lat, ns, lng, ew, speed, course, dd, mo, yy] = m;
  const a: Record<string, AttrValue> = {
    [Attr.index]: Number(index),
    [Attr.power]: Number(power) / 100,
    [Attr.battery]: Number(battery) / 100,
    [Attr.ignition]: ignition === '1',
    [Attr.input]: Number(input),
  };
  const la = nmeaDegrees(Number(lat));
  const lo = nmeaDegrees(Number(lng));
  if (la > 90 || lo > 180) return { deviceId: id };
  const rec: DeviceRecord = {
    time: Date.UTC(2000 + Number(yy), Number(mo) - 1, Number(dd), Number(hh), Number(mi), Number(ss)),
    valid: fix === '1',
    lat: ns === 'S' ? -la : la,
    lng: ew === 'W' ? -lo : lo,
    speed: knotsToKmh(Number(speed)),
    course: Number(course) % 360,
    satellites: Number(sats),
    attributes: a,
  };
  if (altitude !== undefined) rec.altitude = Number(altitude);
  return { deviceId: id, records: [rec] };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] === 0x24) return decodeText(frame.toString('latin1'));
  if (frame[0] === HEADER) {
    if (frame.length < 10) throw new DecodeError('arnavi: short header');
    const imei = frame.readBigUInt64LE(2).toString();
    return { deviceId: imei, reply: headerReply(frame[1], ctx.now) };
  }
  if (frame[0] !== PACKAGE || frame.length < 4) throw new DecodeError('arnavi: not a package');
  const { number, records, result } = decodePackage(frame);
  if (result !== undefined) return { records: [{ attributes: { [Attr.result]: result } }] };
  return { records, reply: Buffer.of(0x7b, 0x00, number, 0x7d) };
}

export const protocol: Protocol = {
  name: 'arnavi',
  defaultPort: 5100,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  carriesText: false,
};
