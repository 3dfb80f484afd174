/**
 * T622 Iridium (SBD via an Iridium gateway over TCP): `u8 revision | u16 length | u8 header id | u16 header length |
 * u32 reference | 15-char IMEI | u8 session status | u16 MOMSN | u16 MTMSN | u32 session time | u8 payload id |
 * u16 payload length | payload`, the frame being 3 + length bytes. The payload's fields follow the device's
 * configured report format, a list of hex field codes (the `format` setting; default `01,02,03,04,05,08`):
 * 01 event, 02 lat and 03 lon (i32le 1e-6), 04 time (u32le seconds since 2000), 05 valid, 06 satellites, 07 rssi,
 * 08 km/h (u16le), 09 course (u16le), 0A hdop x 10, 0B altitude (i16le), 0C odometer (u32le), 0D hours (u32le s),
 * 14 outputs, 15 inputs, 19 battery and 1A power (u16le x 100), 1B geofence. The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const DEFAULT_FORMAT = '01,02,03,04,05,08';
const EPOCH_2000 = Date.UTC(2000, 0, 1);

const FIELDS: Record<number, (r: Reader, rec: DeviceRecord) => void> = {
  0x01: (r, rec) => (rec.attributes[Attr.event] = r.u8()),
  0x02: (r, rec) => (rec.lat = r.i32le() / 1e6),
  0x03: (r, rec) => (rec.lng = r.i32le() / 1e6),
  0x04: (r, rec) => (rec.time = EPOCH_2000 + r.u32le() * 1000),
  0x05: (r, rec) => (rec.valid = r.u8() > 0),
  0x06: (r, rec) => (rec.satellites = r.u8()),
  0x07: (r, rec) => (rec.attributes[Attr.rssi] = r.u8()),
  0x08: (r, rec) => (rec.speed = r.u16le()),
  0x09: (r, rec) => (rec.course = r.u16le() % 360),
  0x0a: (r, rec) => (rec.hdop = r.u8() / 10),
  0x0b: (r, rec) => (rec.altitude = r.i16le()),
  0x0c: (r, rec) => (rec.attributes[Attr.odometer] = r.u32le()),
  0x0d: (r, rec) => (rec.attributes[Attr.hours] = r.u32le() * 1000),
  0x14: (r, rec) => (rec.attributes[Attr.output] = r.u8()),
  0x15: (r, rec) => (rec.attributes[Attr.input] = r.u8()),
  0x19: (r, rec) => (rec.attributes[Attr.battery] = r.u16le() / 100),
  0x1a: (r, rec) => (rec.attributes[Attr.power] = r.u16le() / 100),
  0x1b: (r) => r.skip(1), // geofence
};

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 1 + 2 + 1 + 2 + 4);
  const imei = r.ascii(15);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('t622iridium: bad IMEI');
  r.skip(1 + 2 + 2 + 4 + 1 + 2);
  const format = typeof ctx.config.format === 'string' ? ctx.config.format : DEFAULT_FORMAT;
  const rec: DeviceRecord = { attributes: {} };
  for (const code of format.split(',')) {
    const field = FIELDS[parseInt(code, 16)];
    if (!field) throw new DecodeError(`t622iridium: unknown field ${code}`);
    field(r, rec);
  }
  if (rec.lat !== undefined && rec.lng !== undefined && (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180)) throw new DecodeError('t622iridium: coordinates out of range');
  return { deviceId: imei, records: [rec] };
}

export const protocol: Protocol = {
  name: 't622iridium',
  defaultPort: 5248,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('t622iridium', 1, 2, 0, MAX_FRAME),
  decode,
  commands: [],
};
