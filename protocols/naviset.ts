/**
 * Naviset binary protocol (GT-10/GT-20), little-endian: `u16 (bits 14-15 type, 0-11 length) | body | u16 CRC`.
 * Type 0 header: `u16 device number | 15-char IMEI`. Type 1 data: `u16 device number | u8 block mask | records`,
 * each record `u16 index | u8 status | u32 time | u32 lat, u32 lon (1e-6) | u16 km/h x 10` then, per bit of the
 * block mask, a block: a u8 field mask and the fields of BLOCKS[block] whose bit is set.
 * Every packet is answered `01` + its CRC (u16le).
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 4 + 0xfff;
const MSG_HEADER = 0;
const MSG_DATA = 1;

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 2) return null;
      const length = 2 + (buffer.readUInt16LE(0) & 0x0fff) + 2;
      if (length < 6) throw new FrameError('naviset: bad length');
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

type Field = (r: Reader, rec: DeviceRecord) => void;
const set = (name: string, read: (r: Reader) => number): Field => (r, rec) => (rec.attributes[name] = read(r));
const skip = (n: number): Field => (r) => r.skip(n);

/** Blocks by block-mask bit; in each, fields by field-mask bit. */
const BLOCKS: Field[][] = [
  [
    (r, rec) => {
      const s = r.u8();
      rec.valid = (s & 0x80) !== 0;
      rec.satellites = s & 0x7f;
    },
    (r, rec) => (rec.course = (r.u16le() / 10) % 360),
    (r, rec) => (rec.altitude = r.i16le()),
    (r, rec) => (rec.hdop = r.u8() / 10),
    (r, rec) => {
      rec.attributes[Attr.power] = r.u16le() / 1000;
      rec.attributes[Attr.battery] = r.u16le() / 1000;
    },
    (r, rec) => {
      rec.attributes[Attr.input] = r.u8();
      rec.attributes[Attr.output] = r.u8();
    },
    set(Attr.odometer, (r) => r.u32le()),
    skip(6), // accelerometer
  ],
  Array.from({ length: 8 }, (_, i) => set(indexed.adc(i + 1), (r) => r.u16le())),
  [
    set(Attr.deviceTemp, (r) => r.i8()),
    skip(6), // key code
    (r, rec) => [1, 2].forEach((n) => (rec.attributes[indexed.temp(n)] = r.i8())),
    (r, rec) => [3, 4].forEach((n) => (rec.attributes[indexed.temp(n)] = r.i8())),
    (r, rec) => [5, 6, 7, 8].forEach((n) => (rec.attributes[indexed.temp(n)] = r.i8())),
    set(Attr.hours, (r) => r.u16le() * 60_000), // engine minutes
    skip(1), // extra status
    skip(1), // geofence
  ],
  [
    set(indexed.fuel(1), (r) => r.u16le()),
    set(indexed.fuel(2), (r) => r.u16le()),
    set(Attr.fuel, (r) => r.u16le()),
    skip(18),
    skip(1), // fuel 1 temperature
    skip(1), // fuel 2 temperature
    skip(2), // fuel 1 frequency
    skip(2), // fuel 2 frequency
  ],
  [
    (r, rec) => {
      r.skip(1); // fuel level %
      rec.attributes[Attr.rpm] = r.u16le();
      rec.attributes[Attr.coolantTemp] = r.i8();
    },
    skip(4), // fuel consumption
    set(Attr.odometer, (r) => r.u32le()),
    skip(2), skip(2), skip(2), skip(2), skip(2), // axle weights
  ],
  [skip(1), skip(3), skip(4), skip(4), skip(2), skip(26), skip(4), skip(4)],
];

function readRecord(r: Reader, blockMask: number): DeviceRecord {
  const rec: DeviceRecord = { attributes: { [Attr.index]: r.u16le(), [Attr.status]: r.u8() }, valid: true };
  rec.time = r.u32le() * 1000;
  rec.lat = r.u32le() / 1e6;
  rec.lng = r.u32le() / 1e6;
  if (rec.lat > 90 || rec.lng > 180) throw new DecodeError('naviset: coordinates out of range');
  rec.speed = r.u16le() / 10;
  BLOCKS.forEach((fields, b) => {
    if (!(blockMask & (1 << b))) return;
    const mask = r.u8();
    fields.forEach((read, i) => mask & (1 << i) && read(r, rec));
  });
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame.length < 6) throw new DecodeError('naviset: short frame');
  const reply = Buffer.from([0x01, frame[frame.length - 2], frame[frame.length - 1]]);
  const r = new Reader(frame, 0, frame.length - 2);
  const type = r.u16le() >> 14;
  r.skip(2); // device number
  if (type === MSG_HEADER) {
    const imei = r.ascii(15);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('naviset: bad IMEI');
    return { deviceId: imei, reply };
  }
  if (type !== MSG_DATA || !ctx.deviceId) return { reply };
  const blockMask = r.u8();
  const records: DeviceRecord[] = [];
  while (r.remaining > 0) records.push(readRecord(r, blockMask));
  return { records, reply };
}

export const protocol: Protocol = {
  name: 'naviset',
  defaultPort: 5194,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
