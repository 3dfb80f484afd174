/**
 * Dingtek sensors (level, parking, ...), messages as hex text: `80 <forced> <device type> <type> <length> ...`,
 * the frame being length x 2 characters (the length byte at characters 8-9). Types 0x01, 0x02 and 0x04 are data:
 * `u16 height | u8 GPS fix | f32 lon | f32 lat | u8 temperature | u32 status | u16 battery mV | f32 rssi | u16 index |
 * ... | 8-byte IMEI (BCD, a pad digit first) | u8`; others (0x03 configuration) carry nothing kept. The time is the
 * time of arrival. The devices expect no answer.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 512;
const DATA_TYPES = new Set([0x01, 0x02, 0x04]);

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 10) return null;
      const digits = buffer.toString('latin1', 8, 10);
      if (!/^[0-9A-Fa-f]{2}$/.test(digits)) throw new FrameError('dingtek: bad length');
      const length = parseInt(digits, 16) * 2;
      if (length < 10) throw new FrameError('dingtek: bad length');
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const text = frame.toString('latin1').trim();
  if (!/^([0-9A-Fa-f]{2})+$/.test(text.slice(0, 10))) throw new DecodeError('dingtek: not hex');
  const type = parseInt(text.slice(6, 8), 16);
  if (!DATA_TYPES.has(type)) return {};
  if (!/^([0-9A-Fa-f]{2})+$/.test(text)) throw new DecodeError('dingtek: not hex');
  const b = Buffer.from(text, 'hex');
  if (b.length < 14) throw new DecodeError('dingtek: short message');
  const imei = b.toString('hex', b.length - 9, b.length - 1).slice(1);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('dingtek: bad IMEI');
  const r = new Reader(b, 5);
  const height = r.u16();
  const valid = r.u8() > 0;
  const lng = r.f32();
  const lat = r.f32();
  if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) throw new DecodeError('dingtek: coordinates out of range');
  const attributes: Record<string, number> = { height, [indexed.temp(1)]: r.u8(), [Attr.status]: r.u32(), [Attr.battery]: r.u16() / 1000 };
  const rssi = r.f32();
  if (Number.isFinite(rssi)) attributes[Attr.rssi] = rssi;
  attributes[Attr.index] = r.u16();
  return { deviceId: imei, records: [{ time: ctx.now, valid, lat, lng, attributes }] };
}

export const protocol: Protocol = {
  name: 'dingtek',
  defaultPort: 5208,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  commands: [],
};
