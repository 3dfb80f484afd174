/**
 * Continental (VDO Fleet / Continental FMS units) binary protocol: `SV`, total length (u16), software
 * version, serial number (u32, the identity), product, type. Status messages (0x02): fix time (u32 s),
 * latitude and longitude (u32 arc-seconds, 24-bit signed; or 1/100 arc-seconds, 28-bit signed, when
 * the first byte is not 0), course, speed (km/h), fix valid, device time, event, inputs (bit 0
 * ignition), outputs, battery, temperature, reserved, then odometer and engine hours when present.
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024;
const MSG_STATUS = 0x02;

function coordinate(r: Reader, extended: boolean): number {
  const raw = r.u32();
  // sign-extend from bit 27 (extended) or bit 23
  const value = extended ? (raw << 4) >> 4 : (raw << 8) >> 8;
  return value / (extended ? 360000 : 3600);
}

function status(r: Reader): DeviceRecord {
  const time = r.u32() * 1000;
  const extended = r.peekU8() !== 0;
  const lat = coordinate(r, extended);
  const lng = coordinate(r, extended);
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('continental: coordinates out of range');
  const course = r.u16();
  const speed = r.u16();
  const valid = r.u8() > 0;
  const a: DeviceRecord['attributes'] = { deviceTime: r.u32() * 1000, [Attr.event]: r.u16() };
  const input = r.u16();
  Object.assign(a, { [Attr.ignition]: (input & 1) !== 0, [Attr.input]: input, [Attr.output]: r.u16(), [Attr.battery]: r.u8(), [Attr.deviceTemp]: r.i8() });
  r.skip(2); // reserved
  if (r.remaining > 4) a[Attr.odometer] = r.u32();
  if (r.remaining > 4) a[Attr.hours] = r.u32() * 3_600_000;
  return { time, valid, lat, lng, course: course % 360, speed, attributes: a };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 5); // header, length, software version
  const deviceId = String(r.u32());
  r.skip(1); // product
  return r.u8() === MSG_STATUS ? { deviceId, records: [status(r)] } : { deviceId };
}

export const protocol: Protocol = {
  name: 'continental',
  defaultPort: 5161,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('continental', { offset: 2, size: 2, adjust: 0, magic: Buffer.from('SV') }, MAX_FRAME),
  decode,
  commands: [],
};
