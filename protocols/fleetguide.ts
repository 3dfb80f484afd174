/**
 * FleetGuide (UDP, little-endian): `53 | u16 options | [u32 device id] | [u8 type (low nibble) and index
 * (high nibble)] | [u16 acknowledgement] | data | u16 CRC-16/CCITT-FALSE of all but the signature` (checked). Options: bits 0-10 data length, 11 device id
 * present, 12 type byte present, 13 acknowledgement present, 14 data compressed (a marker byte, then
 * literals; the marker followed by two variable-size numbers copies `length` bytes from `offset` back,
 * the marker followed by 0 is the marker itself).
 * Data is a list of records `u16 header (bits 0-9 length, 10-15 type) | body`; a time record (type 0)
 * starts a new point. Types: 0 time (seconds since 2010-01-01), 1 location (u32 lat × 90/2^32-1,
 * u32 lon × 180/2^32-1, u16 speed 0.1 km/h with the hemisphere bits 14 south and 15 west, u16 course
 * bits 0-8 / motion 9-10 / satellites 11-15, u16 altitude bit 14 negative, absent from a 12-byte record), 3 supply and battery,
 * 6 inputs, 7 outputs, 8 analog inputs, 11 fuel levels, 12 fuel temperatures, 13 temperatures,
 * 18 a sensor value. A point without a location record gets the last location of the connection (not
 * valid; 0/0 before the first fix).
 * Every message except the "no acknowledgement" types (4 data, 6 report) is answered
 * `53 | options | [device id] | [type: 2 after a sync request] | [u16 mask of indexes up to this one] |
 * CRC-16/CCITT-FALSE of everything after the signature`.
 */
import { Alarm, Attr, indexed } from './attributes.ts';
import { crc16CcittFalse, Reader } from './binary.ts';
import { placeRecord, type LastFix } from './last-fix.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const MAX_DATA = 65536;
const SIGNATURE = 0x53;
const SYNC_REQ = 1;
const SYNC_ACK = 2;
const DATA_NO_ACK = 4;
const REPORT_NO_ACK = 6;
const EPOCH_2010 = 1262304000;

function reply(deviceId: number | undefined, type: number | undefined, index: number | undefined): Buffer {
  const b: number[] = [SIGNATURE, 0, 0];
  let options = 0;
  if (deviceId !== undefined) {
    options |= 1 << 11;
    b.push(deviceId & 0xff, (deviceId >>> 8) & 0xff, (deviceId >>> 16) & 0xff, deviceId >>> 24);
  }
  if (type !== undefined) {
    options |= 1 << 12;
    b.push(type);
  }
  if (index !== undefined) {
    options |= 1 << 13;
    const mask = (1 << (index + 1)) - 1;
    b.push(mask & 0xff, mask >> 8);
  }
  b[1] = options & 0xff;
  b[2] = options >> 8;
  const out = Buffer.from([...b, 0, 0]);
  out.writeUInt16LE(crc16CcittFalse(out, 1, b.length), b.length);
  return out;
}

/** A variable-size number of the compression: 7 bits a byte, most significant first, bit 7 = more follow. */
function varSize(r: Reader): number {
  let y = 0;
  for (let n = 0; n < 4; n++) {
    const b = r.u8();
    y = (y << 7) | (b & 0x7f);
    if (!(b & 0x80)) return y;
  }
  throw new DecodeError('fleetguide: bad size');
}

function decompress(input: Buffer): Buffer {
  const out = Buffer.allocUnsafe(MAX_DATA); // only the bytes written are returned
  let n = 0;
  if (!input.length) return out.subarray(0, 0);
  const r = new Reader(input);
  const marker = r.u8();
  while (r.remaining > 0) {
    const symbol = r.u8();
    if (symbol !== marker) {
      if (n >= MAX_DATA) throw new DecodeError('fleetguide: data too long');
      out[n++] = symbol;
    } else if (r.peekU8() === 0) {
      r.skip(1);
      if (n >= MAX_DATA) throw new DecodeError('fleetguide: data too long');
      out[n++] = marker;
    } else {
      const length = varSize(r);
      const offset = varSize(r);
      if (offset < 1 || offset > n || n + length > MAX_DATA) throw new DecodeError('fleetguide: bad back reference');
      for (let i = 0; i < length; i++, n++) out[n] = out[n - offset];
    }
  }
  return out.subarray(0, n);
}

function readRecord(d: Reader, type: number, length: number, rec: DeviceRecord): void {
  const a = rec.attributes;
  switch (type) {
    case 0:
      rec.time = (d.u32le() + EPOCH_2010) * 1000;
      break;
    case 1: {
      let lat = (d.u32le() * 90) / 0xffffffff;
      let lng = (d.u32le() * 180) / 0xffffffff;
      const speed = d.u16le();
      if (speed & 0x4000) lat = -lat;
      if (speed & 0x8000) lng = -lng;
      const course = d.u16le();
      Object.assign(rec, { valid: true, lat, lng, speed: (speed & 0x3fff) / 10, course: (course & 0x1ff) % 360, satellites: course >> 11 });
      if (d.remaining >= 2) {
        const altitude = d.u16le();
        rec.altitude = altitude & 0x4000 ? -(altitude & 0x3fff) : altitude & 0x3fff;
      }
      const motion = (course >> 9) & 3;
      if (motion > 0) a[Attr.motion] = motion === 1;
      break;
    }
    case 3: {
      const [low, flags, high] = [d.u8(), d.u8(), d.u8()];
      a[Attr.power] = (low + ((flags & 0x1f) << 8)) / 100;
      a[Attr.ignition] = (flags & 0x20) !== 0;
      a[Attr.battery] = ((flags >> 6) + (high << 2)) / 100;
      if (length >= 4) {
        const extra = d.u8();
        if (extra & 1) a[Attr.alarm] = Alarm.lowPower;
        else if (extra & 2) a[Attr.alarm] = Alarm.lowBattery;
      }
      break;
    }
    case 6:
      a[Attr.input] = d.u8();
      break;
    case 7:
      a[Attr.output] = d.u8();
      break;
    case 8: {
      const mask = d.u8();
      for (let i = 0; i < 8; i++) if (mask & (1 << i)) a[indexed.adc(i + 1)] = d.u16le();
      break;
    }
    case 11: {
      const mask = d.u8();
      for (let i = 1; i < 8; i++) if (mask & (1 << i)) a[indexed.fuel(i)] = d.u16le();
      break;
    }
    case 12: {
      const mask = d.u8();
      for (let i = 1; i < 8; i++) if (mask & (1 << i)) a[`fuelTemp${i}`] = d.i8();
      break;
    }
    case 13: {
      const mask = d.u8();
      for (let i = 0; i < 8; i++) {
        if (!(mask & (1 << i))) continue;
        const t = d.i16le();
        if (t !== -0x8000) a[indexed.temp(i + 1)] = t / 100; // -0x8000: no sensor
      }
      break;
    }
    case 18: {
      const sensor = d.u8();
      if (length === 2) a[`sensor${sensor}`] = d.u8();
      else if (length === 3) a[`sensor${sensor}`] = d.u16le();
      else if (length === 5) a[`sensor${sensor}`] = d.u32le();
      break;
    }
  }
}

function decodeData(data: Buffer, now: number, session: { last?: LastFix }): DeviceRecord[] {
  const records: DeviceRecord[] = [];
  let rec: DeviceRecord = { attributes: {} };
  const close = () => {
    if (rec.lat !== undefined || Object.keys(rec.attributes).length) {
      rec.time ??= now;
      records.push(placeRecord(rec, session));
    }
  };
  const d = new Reader(data);
  while (d.remaining > 0) {
    const header = d.u16le();
    const length = header & 0x3ff;
    const type = header >> 10;
    const end = d.pos + length;
    if (end > d.end) throw new DecodeError('fleetguide: truncated record');
    if (type === 0 && rec.time !== undefined) {
      close();
      rec = { attributes: {} };
    }
    readRecord(new Reader(data, d.pos, end), type, length, rec);
    d.pos = end;
  }
  close();
  return records;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u8() !== SIGNATURE) throw new DecodeError('fleetguide: bad signature');
  if (frame.length < 5 || crc16CcittFalse(frame, 1, frame.length - 2) !== frame.readUInt16LE(frame.length - 2)) throw new DecodeError('fleetguide: bad CRC');
  const options = r.u16le();
  const length = options & 0x7ff;
  const id = options & (1 << 11) ? r.u32le() : undefined;
  let type = 0;
  let index: number | undefined;
  if (options & (1 << 12)) {
    const v = r.u8();
    type = v & 0x0f;
    index = v >> 4;
  }
  if (options & (1 << 13)) r.skip(2); // acknowledgement
  const raw = r.bytes(length);
  const data = options & (1 << 14) ? decompress(raw) : raw;
  const result: DecodeResult = {};
  if (id !== undefined) result.deviceId = String(id);
  if (type !== DATA_NO_ACK && type !== REPORT_NO_ACK) result.reply = reply(id, type === SYNC_REQ ? SYNC_ACK : undefined, index);
  const records = decodeData(data, ctx.now, ctx.session as { last?: LastFix });
  if (records.length) result.records = records;
  return result;
}

export const protocol: Protocol = {
  name: 'fleetguide',
  defaultPort: 5254,
  transports: ['udp'],
  maxFrameSize: MAX_FRAME,
  decode,
  commands: [],
};
