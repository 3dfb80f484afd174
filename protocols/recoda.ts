/**
 * Recoda binary protocol, little-endian: `u32 type | u32 frame length | [u16 version | u16 index] | body`
 * (no version/index on heartbeats). Types: 0x00001001 heartbeat, 0x20001001 link registration (12-char
 * device id), 0x20001011 GPS data (`u64 ms time | u8 flags`, with flag bit 0: `u16 declination | u16 km/h |
 * u8 lon degrees | u8 lon minutes | u8 lat degrees | u8 lat minutes | u32 lon, u32 lat seconds | u8 status`
 * (bit 0 valid, bit 1 west, bit 2 north)), others (requests, event notices) carry nothing kept.
 * The devices expect no answer.
 */
import { lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 2048;
const MSG_HEARTBEAT = 0x00001001;
const MSG_SIGNAL_LINK_REGISTRATION = 0x20001001;
const MSG_GPS_DATA = 0x20001011;

function decodeGps(r: Reader): DeviceRecord {
  const rec: DeviceRecord = { time: r.u64le(), attributes: {} };
  if (r.u8() & 0x01) {
    r.skip(2); // declination
    rec.speed = r.u16le();
    let lng = r.u8() + r.u8() / 60;
    let lat = r.u8() + r.u8() / 60;
    lng += r.u32le() / 3600;
    lat += r.u32le() / 3600;
    const status = r.u8();
    if (lat > 90 || lng > 180) throw new DecodeError('recoda: coordinates out of range');
    Object.assign(rec, { valid: (status & 0x01) !== 0, lat: status & 0x04 ? lat : -lat, lng: status & 0x02 ? -lng : lng });
  }
  return rec;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  const type = r.u32le();
  r.skip(4); // length
  if (type !== MSG_HEARTBEAT) r.skip(4); // version, index
  if (type === MSG_SIGNAL_LINK_REGISTRATION) {
    const id = r.ascii(12).replace(/\0+$/, '');
    if (!/^[\x21-\x7e]+$/.test(id)) throw new DecodeError('recoda: bad device id');
    return { deviceId: id };
  }
  if (type === MSG_GPS_DATA && ctx.deviceId) {
    const rec = decodeGps(r);
    return { records: [rec] };
  }
  return {};
}

export const protocol: Protocol = {
  name: 'recoda',
  defaultPort: 5151,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u32le at offset 4 is the length of the whole frame
  createFramer: () => lengthFieldFramer('recoda', 4, 4, -8, MAX_FRAME, true),
  decode,
  commands: [],
};
