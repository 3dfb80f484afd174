/**
 * Navigil binary protocol (little-endian). A message may start with the preamble F6 F5 77 24 (dropped); then
 * a 20-byte header `u8 protocol version | u8 version id | u16 sequence | u16 message id | u16 length of
 * header and data | u16 flags | u16 CRC | u32 unit id (the device identity) | u32 time` and the data.
 * The CRC is CRC-16/CCITT-FALSE of the data (checked). Times count seconds of GPS-style time: 25 leap seconds ahead of UTC.
 * Reports: 8 unit report, 12 TG2 report, 13 position report (lat/lon in 1/50 000 degree), 15 position
 * report 2, 17 snapshot 4, 18 tracking data; other messages carry the identity only.
 * A message whose flags bit 0 is clear is acknowledged: a header of message id 255 (the server's own
 * sequence, length 24, flags 0, CRC-16/CCITT-FALSE of the data, unit id 0, the server time) and the data
 * `u16 acknowledged sequence | u16 0 (OK)`.
 */
import { Attr, indexed } from './attributes.ts';
import { crc16CcittFalse, Reader } from './binary.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const HEADER = 20;
const PREAMBLE = 0x2477f5f6;
const LEAP_SECONDS = 25;
const ACKNOWLEDGEMENT = 255;

function createFramer(): Framer {
  return {
    next(buffer) {
      const skip = buffer.length >= 4 && buffer.readUInt32LE(0) === PREAMBLE ? 4 : 0;
      if (buffer.length < skip + HEADER) return null;
      const length = buffer.readUInt16LE(skip + 6);
      if (length < HEADER || length > MAX_FRAME) throw new FrameError(`navigil: bad length ${length}`);
      if (buffer.length < skip + length) return null;
      return { frame: buffer.subarray(skip, skip + length), consumed: skip + length };
    },
  };
}

const time = (seconds: number): number => (seconds - LEAP_SECONDS) * 1000;
const cmsToKmh = (v: number): number => v * 0.36; // 0.1 m/s -> km/h

function acknowledgement(sequence: number, ctx: DecodeContext): Buffer {
  const own = ((ctx.session.sequence as number | undefined) ?? 0) + 1;
  ctx.session.sequence = own & 0xffff;
  const b = Buffer.alloc(HEADER + 4);
  b[0] = 1;
  b.writeUInt16LE(own & 0xffff, 2);
  b.writeUInt16LE(ACKNOWLEDGEMENT, 4);
  b.writeUInt16LE(HEADER + 4, 6);
  b.writeUInt32LE(Math.floor(ctx.now / 1000) + LEAP_SECONDS, 16);
  b.writeUInt16LE(sequence, HEADER);
  b.writeUInt16LE(crc16CcittFalse(b, HEADER, HEADER + 4), 10);
  return b;
}

function latLng(rec: DeviceRecord, lat: number, lng: number): void {
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('navigil: coordinates out of range');
  rec.lat = lat;
  rec.lng = lng;
}

function report(id: number, r: Reader, timestamp: number): DeviceRecord | undefined {
  const rec: DeviceRecord = { attributes: {} };
  const a = rec.attributes;
  switch (id) {
    case 8: // unit report
      rec.valid = true;
      r.skip(2); // trigger
      a.flags = r.u16le();
      latLng(rec, r.i32le() / 1e7, r.i32le() / 1e7);
      rec.altitude = r.u16le();
      rec.satellites = r.u16le();
      a.satellitesVisible = r.u16le();
      a.gpsAntennaState = r.u16le();
      rec.speed = cmsToKmh(r.u16le());
      rec.course = r.u16le() % 360;
      a[Attr.odometer] = r.u32le();
      a[Attr.distance] = r.u32le();
      a[Attr.battery] = r.u16le() / 1000;
      a[Attr.charge] = r.u16le() !== 0;
      rec.time = time(r.u32le());
      return rec;
    case 12: // TG2 report
      rec.valid = true;
      r.skip(4); // trigger, reserved, assisted GPS age
      rec.time = time(r.u32le());
      latLng(rec, r.i32le() / 1e7, r.i32le() / 1e7);
      rec.altitude = r.u16le();
      rec.satellites = r.u8();
      a.satellitesVisible = r.u8();
      rec.speed = cmsToKmh(r.u16le());
      rec.course = r.u16le() % 360;
      a[Attr.odometer] = r.u32le();
      a.maximumSpeed = r.u16le();
      a.minimumSpeed = r.u16le();
      for (let i = 1; i <= 3; i++) a[indexed.io(i)] = r.u16le(); // supply 1, supply 2, solar voltages
      a[Attr.battery] = r.u16le() / 1000;
      return rec;
    case 13: { // position report
      rec.time = time(timestamp);
      latLng(rec, ((r.u24le() << 8) >> 8) / 50000, ((r.u24le() << 8) >> 8) / 50000);
      rec.speed = r.u8();
      rec.course = (r.u8() * 2) % 360;
      rec.valid = (r.u8() & 0xc0) === 0xc0;
      return rec;
    }
    case 15: // position report 2
      rec.time = time(timestamp);
      latLng(rec, r.i32le() / 1e7, r.i32le() / 1e7);
      r.skip(1); // trigger
      rec.speed = r.u8();
      rec.valid = (r.u8() & 0xc0) === 0xc0;
      rec.satellites = r.u8();
      a[Attr.odometer] = r.u32le();
      return rec;
    case 17: // snapshot 4
      r.skip(4); // trigger, fix source, fix quality, assistance age
      rec.valid = (r.u32le() & 0x0400) !== 0;
      rec.time = time(r.u32le());
      latLng(rec, r.i32le() / 1e7, r.i32le() / 1e7);
      rec.altitude = r.u16le();
      rec.satellites = r.u8();
      a.satellitesVisible = r.u8();
      rec.speed = cmsToKmh(r.u16le());
      rec.course = (r.u16le() / 10) % 360;
      a.maximumSpeed = r.u8();
      a.minimumSpeed = r.u8();
      a[Attr.odometer] = r.u32le();
      a[indexed.io(1)] = r.u8(); // supply voltage 1
      a[indexed.io(2)] = r.u8(); // supply voltage 2
      a[Attr.battery] = r.u16le() / 1000;
      return rec;
    case 18: // tracking data
      rec.time = time(timestamp);
      r.skip(1); // tracking mode
      rec.valid = (r.u8() & 1) !== 0;
      r.skip(2); // duration
      latLng(rec, r.i32le() / 1e7, r.i32le() / 1e7);
      rec.speed = r.u8();
      rec.course = (r.u8() * 2) % 360;
      rec.satellites = r.u8();
      a[Attr.battery] = r.u16le() / 1000;
      a[Attr.odometer] = r.u32le();
      return rec;
    default:
      return undefined;
  }
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(2); // protocol version, version id
  const sequence = r.u16le();
  const id = r.u16le();
  r.skip(2); // length
  const flags = r.u16le();
  if (r.u16le() !== crc16CcittFalse(frame, HEADER, frame.length)) throw new DecodeError('navigil: bad CRC');
  const deviceId = String(r.u32le());
  const timestamp = r.u32le();
  const rec = report(id, r, timestamp);
  const result: DecodeResult = { deviceId };
  if (rec) {
    rec.attributes[Attr.index] = sequence;
    result.records = [rec];
  }
  if (!(flags & 1)) result.reply = acknowledgement(sequence, ctx);
  return result;
}

export const protocol: Protocol = {
  name: 'navigil',
  defaultPort: 5025,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME + 4,
  createFramer,
  decode,
  commands: [],
};
