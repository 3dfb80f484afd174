/**
 * Anytrek binary protocol (little-endian): `78 78 | u16 length | u8 type | 8 bytes: 00 and the first 14 IMEI
 * digits (BCD; the check digit is computed) | u16 firmware | u16 battery (10 mV) | u8 signal | yy mm dd hh mi ss | u8 satellites (low
 * nibble) | u32 lat, u32 lon (1/1 800 000 degree) | u8 speed km/h | u16 flags (course in bits 0-9, bit 10
 * north, bit 11 west, bit 12 valid) | u32 info index | u32 setting index | u8 status (bit 0 charging,
 * bit 1 ignition, bit 4 alarm) | u16 charge current | u32 odometer | ... | 0d 0a`. The length counts the
 * bytes after itself minus the 2-byte tail.
 * Every report is answered `78 78 | 07 00 | type | 00 error | 00 00 interval | 00 clear alarm | 00 00 | 0d 0a`.
 */
import { Alarm, Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { luhnDigit, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const HEADER = Buffer.from([0x78, 0x78]);

/** The answer to a report of `type`: no error, report interval and alarm left as they are. */
export function reply(type: number): Buffer {
  return Buffer.from([0x78, 0x78, 0x07, 0x00, type, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0d, 0x0a]);
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u16() !== 0x7878) throw new DecodeError('anytrek: bad header');
  r.skip(2); // length
  const type = r.u8();
  const digits = r.hex(8).slice(2);
  if (!/^\d{14}$/.test(digits)) throw new DecodeError('anytrek: bad IMEI');
  const imei = digits + luhnDigit(digits);
  const firmware = r.u16le();
  const battery = r.u16le() / 100;
  const rssi = r.u8();
  const [yy, mo, dd, hh, mi, ss] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()];
  const satellites = r.u8() & 0x0f;
  let lat = r.u32le() / 1_800_000;
  let lng = r.u32le() / 1_800_000;
  const speed = r.u8();
  const flags = r.u16le();
  if (!(flags & 0x400)) lat = -lat;
  if (flags & 0x800) lng = -lng;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('anytrek: coordinates out of range');
  r.skip(8); // info index, setting index
  const status = r.u8();
  r.skip(2); // charge current
  const odometer = r.u32le();
  const rec: DeviceRecord = {
    time: utc(yy, mo, dd, hh, mi, ss),
    valid: (flags & 0x1000) !== 0,
    lat,
    lng,
    speed,
    course: (flags & 0x3ff) % 360,
    satellites,
    attributes: {
      versionFw: firmware,
      [Attr.battery]: battery,
      [Attr.rssi]: rssi,
      [Attr.charge]: (status & 1) !== 0,
      [Attr.ignition]: (status & 2) !== 0,
      [Attr.odometer]: odometer,
    },
  };
  if (status & 0x10) rec.attributes[Attr.alarm] = Alarm.general;
  return { deviceId: imei, records: [rec], reply: reply(type) };
}

export const protocol: Protocol = {
  name: 'anytrek',
  defaultPort: 5177,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('anytrek', { offset: 2, size: 2, littleEndian: true, adjust: 2, magic: HEADER }, MAX_FRAME),
  decode,
  commands: [],
};
