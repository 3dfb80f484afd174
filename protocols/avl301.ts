/**
 * AVL-301 (GT06-like) binary protocol: `$`, type, total length (u8), body, CR LF.
 *   `L` login: IMEI as BCD (the first nibble is padding)        -> `$L#\r\n`
 *   `H` status / heartbeat                                       -> `$H#\r\n`
 *   `$` GPS + LBS + status: yy MM dd HH mm ss, GPS info (low nibble satellites), visible satellites,
 *       latitude and longitude (u32, 1/600000 degree), speed (km/h), course and flags (bits 0..9
 *       course, 10 south, 11 west, 12 valid), LAC (u16), cell id (u24), flags (bit 1 ignition),
 *       supply level, GSM signal
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 256;
const ack = (type: string) => latin1(`$${type}#\r\n`);

function position(r: Reader): DeviceRecord {
  const time = utc(r.u8(), r.u8(), r.u8(), r.u8(), r.u8(), r.u8());
  const satellites = r.u8() & 0x0f;
  const visible = r.u8();
  let lat = r.u32() / 600000;
  let lng = r.u32() / 600000;
  const speed = r.u8();
  const union = r.u16();
  if (union & 0x0400) lat = -lat;
  if (union & 0x0800) lng = -lng;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180) throw new DecodeError('avl301: coordinates out of range');
  const lac = r.u16();
  const cid = r.u24();
  const flags = r.u8();
  return {
    time,
    valid: (union & 0x1000) !== 0,
    lat,
    lng,
    speed,
    course: (union & 0x03ff) % 360,
    satellites,
    cells: lac || cid ? [{ mcc: 0, mnc: 0, lac, cid }] : undefined,
    attributes: { satellitesVisible: visible, [Attr.ignition]: (flags & 0x02) !== 0, powerLevel: r.u8(), [Attr.rssi]: r.u8() },
  };
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(1); // '$'
  const type = String.fromCharCode(r.u8());
  r.skip(1); // length
  if (type === 'L') {
    const imei = r.hex(8).slice(1);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('avl301: bad IMEI');
    return { deviceId: imei, reply: ack('L') };
  }
  if (type === 'H') return { reply: ack('H') };
  if (type === '$') {
    const rec = position(r);
    if (!rec.cells) delete rec.cells;
    return { records: [rec] };
  }
  return {};
}

export const protocol: Protocol = {
  name: 'avl301',
  defaultPort: 5085,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('avl301', { offset: 2, size: 1, adjust: 0, magic: Buffer.from('$') }, MAX_FRAME),
  decode,
  commands: [],
};
