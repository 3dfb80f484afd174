/**
 * Queclink GL601 binary protocol (big-endian): `u8 header | u8 reserved | u16 length of the whole frame |
 * u8 flags (bit 7: a u16 record count follows, else one record) | 8 bytes IMEI (hex, leading digit
 * dropped) | u16 device type | u16 protocol version | u8 custom version | u8 n, n reserved bytes` then
 * records. Sizes and ids are variable: one byte, or two when the first has bit 7 set (that bit dropped).
 * A record: `size (counting itself) | u32 device time | u16 index | u8 record id | u8 event` then data
 * items `id | size | data`: 81/82 location (`u8 state (bits 2-3 = 2: valid) | i32 lon, i32 lat (1e-6) |
 * u32 fix time | u16 speed 0.1 km/h`, and for 82 `u8 HDOP ×10 | u16 course | i24 altitude 0.1 m |
 * u8 satellites`), 97 battery (`u8 status | u16 mV | u8 % | u8 charging`); other items are skipped.
 * A record without a location gets the connection's last one, not valid (0/0 before any).
 * The devices expect no answer.
 */
import { Attr } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { placeRecord, type LastFix } from './last-fix.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;

const variable = (r: Reader): number => (r.peekU8() & 0x80 ? r.u16() & 0x7fff : r.u8());

function item(r: Reader, id: number, rec: DeviceRecord): void {
  if (id === 81 || id === 82) {
    const state = r.u8();
    rec.valid = ((state >> 2) & 3) === 2;
    rec.lng = r.i32() / 1e6;
    rec.lat = r.i32() / 1e6;
    if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('gl601: coordinates out of range');
    rec.time = r.u32() * 1000;
    rec.speed = r.u16() / 10;
    if (id === 82) {
      rec.hdop = r.u8() / 10;
      rec.course = r.u16() % 360;
      rec.altitude = ((r.u24() << 8) >> 8) / 10;
      rec.satellites = r.u8();
    }
  } else if (id === 97) {
    r.skip(1); // battery status
    rec.attributes[Attr.battery] = r.u16() / 1000;
    rec.attributes[Attr.batteryLevel] = r.u8();
  }
}

function decode(frame: Buffer, ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  r.skip(4); // header, reserved, length
  const flags = r.u8();
  const count = flags & 0x80 ? r.u16() : 1;
  const imei = r.hex(8).slice(1);
  if (!/^\d{15}$/.test(imei)) throw new DecodeError('gl601: bad IMEI');
  r.skip(5); // device type, protocol version, custom version
  r.skip(r.u8()); // reserved
  const session = ctx.session as { last?: LastFix };
  const records: DeviceRecord[] = [];
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    const end = start + variable(r);
    if (end > r.end || end <= start) throw new DecodeError('gl601: bad record size');
    const deviceTime = r.u32() * 1000;
    r.skip(3); // record index, record id
    const rec: DeviceRecord = { attributes: { [Attr.event]: r.u8() } };
    while (r.pos < end) {
      const id = variable(r);
      const size = variable(r);
      const itemEnd = r.pos + size;
      if (itemEnd > end) throw new DecodeError('gl601: bad item size');
      item(new Reader(frame, r.pos, itemEnd), id, rec);
      r.pos = itemEnd;
    }
    rec.time ??= deviceTime;
    records.push(placeRecord(rec, session));
  }
  return { deviceId: imei, records };
}

export const protocol: Protocol = {
  name: 'gl601',
  defaultPort: 5257,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // the u16 at offset 2 is the length of the whole frame
  createFramer: () => lengthFieldFramer('gl601', { offset: 2, size: 2, adjust: -4 }, MAX_FRAME),
  decode,
  commands: [],
};
