/**
 * MAVLink 2 over UDP (little-endian): `FD | u8 payload length | u8 incompatibility flags | u8 compatibility
 * flags | u8 sequence | u8 system id (the device identity) | u8 component id | u24 message id | payload |
 * u16 checksum | [13-byte signature]`. Message 33 (GLOBAL_POSITION_INT) is a fix: `u32 time since boot ms |
 * i32 lat, i32 lon (1e-7 degrees) | i32 altitude mm (MSL) | i32 relative altitude mm | i16 vx, vy, vz cm/s |
 * u16 heading cdeg (65535 unknown)`; the sender drops trailing zero bytes of a payload, restored here. The
 * message carries no date: the fix is placed at the time it arrives. Other messages are left alone.
 * The vehicles expect no answer.
 */
import { Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 280;
const MAGIC = 0xfd;
const GLOBAL_POSITION_INT = 33;
const POSITION_SIZE = 28;

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u8() !== MAGIC) throw new DecodeError('mavlink2: not a MAVLink 2 frame');
  const length = r.u8();
  r.skip(3); // incompatibility and compatibility flags, sequence
  const deviceId = String(r.u8());
  r.skip(1); // component id
  const type = r.u24le();
  const payload = r.bytes(length);
  if (type !== GLOBAL_POSITION_INT) return { deviceId };
  const full = Buffer.alloc(POSITION_SIZE);
  payload.copy(full, 0, 0, Math.min(length, POSITION_SIZE));
  const p = new Reader(full);
  const timeBoot = p.u32le();
  const rec: DeviceRecord = { time: ctx.now, valid: true, lat: p.i32le() / 1e7, lng: p.i32le() / 1e7, altitude: p.i32le() / 1000, attributes: { timeBoot } };
  if (Math.abs(rec.lat!) > 90 || Math.abs(rec.lng!) > 180) throw new DecodeError('mavlink2: coordinates out of range');
  rec.attributes.relativeAltitude = p.i32le() / 1000;
  const [vx, vy] = [p.i16le(), p.i16le()];
  p.skip(2); // vz
  rec.speed = (Math.hypot(vx, vy) * 36) / 1000; // cm/s -> km/h
  const heading = p.u16le();
  if (heading !== 0xffff) rec.course = (heading / 100) % 360;
  return { deviceId, records: [rec] };
}

export const protocol: Protocol = {
  name: 'mavlink2',
  defaultPort: 5224,
  transports: ['udp'],
  maxFrameSize: MAX_FRAME,
  decode,
  commands: [],
};
