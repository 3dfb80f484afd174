/**
 * NVS binary protocol (big-endian). A login is `00 | u8 length | IMEI (15 ASCII digits) | firmware text`,
 * answered `OK` (`NO01` refuses an unknown device). Data is `CC CC CC CC | u16 length | u64 IMEI | u8 codec |
 * u8 count | records | u8 count | u16 CRC`, a record being `u32 unix time | u8 reason | i32 lon, i32 lat
 * (1e-7 degrees) | i16 altitude | u16 course | u8 satellites | u16 speed km/h | u8 valid | u8 systems |
 * u8 cause element id` and IO elements in four groups of 1-, 2-, 4- and 8-byte values (`u8 count`, then
 * `u8 id | value` each), kept as `io<id>`. The devices expect no answer to data.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { latin1 } from './text.ts';
import { DecodeError, FrameError, type DecodeContext, type DecodeResult, type DeviceRecord, type Framer, type Protocol } from './types.ts';

const MAX_FRAME = 65544;
const OK = latin1('OK');
const REFUSED = latin1('NO01');

function createFramer(): Framer {
  return {
    next(buffer) {
      if (buffer.length < 6) return null;
      let length: number;
      if (buffer[0] === 0) length = 2 + buffer.readUInt16BE(0);
      else if (buffer.readUInt32BE(0) === 0xcccccccc) length = 4 + 2 + buffer.readUInt16BE(4) + 2;
      else throw new FrameError('nvs: bad frame start');
      return buffer.length < length ? null : { frame: buffer.subarray(0, length), consumed: length };
    },
  };
}

function record(r: Reader): DeviceRecord {
  const rec: DeviceRecord = { time: r.u32() * 1000, attributes: { [Attr.event]: r.u8() } };
  rec.lng = r.i32() / 1e7;
  rec.lat = r.i32() / 1e7;
  if (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180) throw new DecodeError('nvs: coordinates out of range');
  rec.altitude = r.i16();
  rec.course = r.u16() % 360;
  rec.satellites = r.u8();
  rec.speed = r.u16();
  rec.valid = r.u8() !== 0;
  r.skip(2); // used systems, cause element id
  const a = rec.attributes;
  for (let n = r.u8(); n > 0; n--) a[indexed.io(r.u8())] = r.u8();
  for (let n = r.u8(); n > 0; n--) a[indexed.io(r.u8())] = r.u16();
  for (let n = r.u8(); n > 0; n--) a[indexed.io(r.u8())] = r.u32();
  for (let n = r.u8(); n > 0; n--) a[indexed.io(r.u8())] = r.i64();
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (frame[0] === 0) {
    r.skip(2); // length
    const imei = r.ascii(15);
    if (!/^\d{15}$/.test(imei)) throw new DecodeError('nvs: bad IMEI');
    return { deviceId: imei, reply: OK };
  }
  if (r.u32() !== 0xcccccccc) throw new DecodeError('nvs: bad marker');
  r.skip(2); // length
  const imei = String(r.u64()).padStart(15, '0');
  r.skip(1); // codec
  const records: DeviceRecord[] = [];
  for (let n = r.u8(); n > 0; n--) records.push(record(r));
  return { ...(/^\d{15}$/.test(imei) ? { deviceId: imei } : {}), records };
}

export const protocol: Protocol = {
  name: 'nvs',
  defaultPort: 5101,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer,
  decode,
  refuse: () => REFUSED,
  commands: [],
};
