/**
 * Satsol binary protocol, little-endian: `u16 checksum | u16 preamble 0x4CBF | u32 device id | u16 length | records`,
 * each record `u16 | u16 | u16 type | u16 extra length | u32 unix time | u32 lat, u32 lon (1e-6) | u16 km/h x 100 |
 * i16 altitude | u16 course | u8 valid | u8 satellites | u8 event | u8 flags (bit 0 stored) | extra bytes`.
 * Every packet is answered `u16 CRC-16/CCITT-FALSE of what follows | BF 4C | u32 id | 00 00`.
 */
import { Attr } from './attributes.ts';
import { crc16CcittFalse, lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 65546;

function answer(id: number): Buffer {
  const b = Buffer.alloc(10);
  b.writeUInt16LE(0x4cbf, 2);
  b.writeUInt32LE(id, 4);
  b.writeUInt16LE(crc16CcittFalse(b, 2, 10), 0);
  return b;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 4);
  const id = r.u32le();
  r.skip(2); // length
  const records: DeviceRecord[] = [];
  while (r.remaining > 0) {
    r.skip(6); // checksums, type
    const extra = r.u16le();
    const rec: DeviceRecord = { time: r.u32le() * 1000, attributes: {} };
    rec.lat = r.u32le() / 1e6;
    rec.lng = r.u32le() / 1e6;
    if (rec.lat > 90 || rec.lng > 180) throw new DecodeError('satsol: coordinates out of range');
    rec.speed = r.u16le() / 100;
    rec.altitude = r.i16le();
    rec.course = r.u16le() % 360;
    rec.valid = r.u8() > 0;
    rec.satellites = r.u8();
    rec.attributes[Attr.event] = r.u8();
    if (r.u8() & 0x01) rec.attributes[Attr.archive] = true;
    r.skip(extra);
    records.push(rec);
  }
  return { deviceId: String(id), records, reply: answer(id) };
}

export const protocol: Protocol = {
  name: 'satsol',
  defaultPort: 5184,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // u16le at offset 8 counts the records
  createFramer: () => lengthFieldFramer('satsol', 8, 2, 0, MAX_FRAME, true),
  decode,
  commands: [],
};
