/**
 * NIOT binary protocol: `58 58 | u8 type | u16 length | 8-byte IMEI (BCD, a pad digit first) | body | u8 checksum | 0D`;
 * the frame is 5 + length bytes. Type 0x80 is position data:
 *   `yy mm dd hh mm ss (BCD) | lat, lon (sign-and-magnitude, 1/1800000 degree) | 2 BCD bytes | 2 BCD course |
 *    u8 status X (bit 7 valid; bits 3-4: 10 power cut, 01 low power) | u32 odometer | u8 status A (bit 7 clear =
 *    ignition on, bit 6 clear = overspeed) | u8 | u8 | u8 satellites | u8 battery x 10 | u16 power x 10 |
 *    u8 speed limit | u8 km/h | 3 bytes | extensions (u16 length, u16 type: 0x0001 ICCID, 0x0002 status D)`
 * Every packet is answered `58 58 21 0005 <its checksum> <its type> 00 <XOR> 0D`.
 */
import { Alarm, Attr } from './attributes.ts';
import { lengthFieldFramer, Reader, xorSum } from './binary.ts';
import { utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_RESPONSE = 0x21;
const MSG_POSITION_DATA = 0x80;

const bcd = (b: number): number => {
  if ((b >> 4) > 9 || (b & 0x0f) > 9) throw new DecodeError('niot: bad BCD');
  return (b >> 4) * 10 + (b & 0x0f);
};
const signMagnitude = (v: number): number => (v >= 0x80000000 ? -(v - 0x80000000) : v);

function response(type: number, checksum: number): Buffer {
  const b = Buffer.from([0x58, 0x58, MSG_RESPONSE, 0x00, 0x05, checksum, type, 0x00, 0x00, 0x0d]);
  b[8] = xorSum(b, 2, 8);
  return b;
}

function decodePosition(r: Reader): DeviceRecord {
  const [yy, mo, dd, h, m, s] = [r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8()].map(bcd);
  const rec: DeviceRecord = { time: utc(yy, mo, dd, h, m, s), attributes: {} };
  rec.lat = signMagnitude(r.u32()) / 1_800_000;
  rec.lng = signMagnitude(r.u32()) / 1_800_000;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('niot: coordinates out of range');
  r.skip(2);
  rec.course = (bcd(r.u8()) * 100 + bcd(r.u8())) % 360;
  const a = rec.attributes;
  const x = r.u8();
  rec.valid = (x & 0x80) !== 0;
  const power = (x >> 3) & 0x03;
  if (power === 0b10) a[Attr.alarm] = Alarm.powerCut;
  else if (power === 0b01) a[Attr.alarm] = Alarm.lowPower;
  a[Attr.odometer] = r.u32();
  const sa = r.u8();
  a[Attr.ignition] = (sa & 0x80) === 0;
  if (!(sa & 0x40)) a[Attr.alarm] = Alarm.overspeed;
  r.skip(2); // status B, C
  rec.satellites = r.u8();
  a[Attr.battery] = r.u8() / 10;
  a[Attr.power] = r.u16() / 10;
  r.skip(1); // speed limit
  rec.speed = r.u8();
  r.skip(3); // sensor speed, reserved
  while (r.remaining > 4) {
    const length = r.u16();
    const type = r.u16();
    if (type === 0x0001) a[Attr.iccid] = r.ascii(20);
    else if (type === 0x0002) {
      const d = r.u8();
      if (d & 0x20) a[Attr.alarm] = Alarm.removing;
      if (d & 0x10) a[Attr.alarm] = Alarm.tampering;
      r.skip(2);
    } else r.skip(Math.max(0, length - 2));
  }
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  if (frame.length < 16) throw new DecodeError('niot: short frame');
  const r = new Reader(frame, 2, frame.length);
  const type = r.u8();
  r.skip(2); // length
  const imei = r.hex(8).slice(1);
  const reply = response(type, frame[frame.length - 2]);
  if (type !== MSG_POSITION_DATA) return { deviceId: imei, reply };
  return { deviceId: imei, records: [decodePosition(r)], reply };
}

export const protocol: Protocol = {
  name: 'niot',
  defaultPort: 5210,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('niot', 3, 2, 0, MAX_FRAME),
  decode,
  commands: [],
};
