/**
 * Pricol binary protocol: fixed 64-byte frames `<`, device id (7 ASCII), event type, packet version,
 * status, GSM signal, GPS status, dd MM yy HH mm ss, latitude (ddmm as u16 then 4 minute decimals as u16, `N`/`S`),
 * longitude (dddmm as u24, 4 decimals as u16, `E`/`W`), speed km/h, inputs (u16), outputs, analog
 * alerts, custom alert types (u16), five analog values (u16), odometer (u24), rpm (u16), ... `>`.
 * Each frame is answered `ACK`. A frame with an empty date is a status record.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { latin1, utc } from './text.ts';
import { DecodeError, type AttrValue, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const FRAME = 64;
const ACK = latin1('ACK');

function fixedFramer() {
  return {
    next(buffer: Buffer) {
      return buffer.length < FRAME ? null : { frame: buffer.subarray(0, FRAME), consumed: FRAME };
    },
  };
}

function coordinate(whole: number, fraction: number, hemisphere: number, negative: number): number {
  const v = Math.floor(whole / 100) + ((whole % 100) * 10000 + fraction) / 600000;
  return hemisphere === negative ? -v : v;
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  if (frame[0] !== 0x3c) throw new DecodeError('pricol: not a frame');
  const r = new Reader(frame, 1);
  const deviceId = r.ascii(7).replace(/\0+$/, '');
  if (!/^[\x21-\x7e]+$/.test(deviceId)) throw new DecodeError('pricol: bad device id');
  const attributes: Record<string, AttrValue> = { [Attr.event]: r.u8() };
  r.skip(1); // packet version
  attributes[Attr.status] = r.u8();
  attributes[Attr.rssi] = r.u8();
  r.skip(1); // GPS status
  const [dd, mo, yy, hh, mi, ss] = r.bytes(6);
  const lat = coordinate(r.u16(), r.u16(), r.u8(), 0x53);
  const lng = coordinate(r.u24(), r.u16(), r.u8(), 0x57);
  const speed = r.u8();
  attributes[Attr.input] = r.u16();
  attributes[Attr.output] = r.u8();
  r.skip(3); // analog and custom alert types
  for (let i = 1; i <= 5; i++) attributes[indexed.adc(i)] = r.u16();
  attributes[Attr.odometer] = r.u24();
  attributes[Attr.rpm] = r.u16();
  const dated = mo >= 1 && mo <= 12 && dd >= 1 && dd <= 31;
  const rec: DeviceRecord = dated && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { time: utc(yy, mo, dd, hh, mi, ss), valid: true, lat, lng, speed, attributes } : { time: ctx.now, attributes };
  return { deviceId, records: [rec], reply: ACK };
}

export const protocol: Protocol = {
  name: 'pricol',
  defaultPort: 5134,
  transports: ['tcp', 'udp'],
  maxFrameSize: FRAME,
  createFramer: fixedFramer,
  decode,
  commands: [],
};
