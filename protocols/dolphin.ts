/**
 * Dolphin binary protocol: a 28-byte header `AB AB | u32 index | u16 version | u16 flags | u16 type |
 * u64 IMEI | u32 length | u32 reserved` (little-endian) and a protobuf body of `length` bytes.
 * Type 1 (data pack) holds repeated points `{1 latitude, 2 longitude, 3 altitude, 5 speed km/h, 6 bearing
 * (floats), 4 satellites, 7 HDOP, 8 unix time (fixed32), 9 alarm, 11 IO ids, 12 IO values}`; it is answered
 * `AB AB | index | 00 00 flags | 02 00 type | u32 length | 00000000 | data pack response {1: OK}`.
 * Other message types are left alone.
 */
import { Attr, indexed } from './attributes.ts';
import { Reader } from './binary.ts';
import { lengthFieldFramer } from './framers.ts';
import { protoEncode, ProtoReader } from './protobuf.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 1024 * 1024;
const HEADER = Buffer.from([0xab, 0xab]);
const DATA_PACK_REQUEST = 1;
const DATA_PACK_RESPONSE = 2;
const DATA_PACK_OK = 1;
/**
 * IO ids (the device's alarm-type numbering) with a name in the shared vocabulary; every IO value is also
 * kept raw as `io<id>`. Voltages arrive in mV, the odometer in metres, engine time in seconds.
 */
const IO_NAMES: Record<number, [string, (v: number) => number | boolean]> = {
  10: [Attr.ignition, (v) => v !== 0],
  11: [Attr.motion, (v) => v !== 0],
  30: [Attr.rssi, (v) => v],
  40: [Attr.power, (v) => v / 1000],
  41: [Attr.battery, (v) => v / 1000],
  50: [Attr.odometer, (v) => v],
  52: [Attr.hours, (v) => v * 1000],
  70: [indexed.in(1), (v) => v !== 0],
  71: [indexed.in(2), (v) => v !== 0],
  73: [indexed.in(3), (v) => v !== 0],
  90: [indexed.out(1), (v) => v !== 0],
  91: [indexed.out(2), (v) => v !== 0],
};

function reply(index: number): Buffer {
  const body = protoEncode([[1, DATA_PACK_OK]]);
  const head = Buffer.alloc(18);
  HEADER.copy(head, 0);
  head.writeUInt32LE(index, 2);
  head.writeUInt16LE(DATA_PACK_RESPONSE, 8);
  head.writeUInt32LE(body.length, 10);
  return Buffer.concat([head, body]);
}

/** `io<id>` names, made once per id: a data pack repeats the same few dozen on every point. */
const IO_KEYS: string[] = [];
const ioKey = (id: number): string => (id < 4096 ? (IO_KEYS[id] ??= indexed.io(id)) : indexed.io(id));

function point(p: ProtoReader): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  let time: number | undefined;
  const ids: number[] = [];
  const values: number[] = [];
  while (p.next()) {
    switch (p.field) {
      case 1: rec.lat = p.float(); break;
      case 2: rec.lng = p.float(); break;
      case 3: rec.altitude = p.float(); break;
      case 4: rec.satellites = p.uint(); break;
      case 5: rec.speed = p.float(); break;
      case 6: rec.course = p.float(); break;
      case 7: rec.hdop = p.uint(); break;
      case 8: time = p.fixed32(); break;
      case 9: if (p.uint()) rec.attributes[Attr.event] = p.uint(); break;
      case 11: p.uints(ids); break;
      case 12: p.uints(values); break;
    }
  }
  const { lat, lng, speed, course, altitude } = rec;
  if (lat === undefined || lng === undefined || time === undefined || !(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) throw new DecodeError('dolphin: bad point');
  if (speed !== undefined && !(speed >= 0)) delete rec.speed;
  if (course !== undefined && !(course >= 0 && course <= 360)) delete rec.course;
  if (altitude !== undefined && !Number.isFinite(altitude)) delete rec.altitude;
  rec.time = time * 1000;
  rec.valid = true;
  const n = Math.min(ids.length, values.length);
  for (let i = 0; i < n; i++) {
    rec.attributes[ioKey(ids[i])] = values[i];
    const named = IO_NAMES[ids[i]];
    if (named) rec.attributes[named[0]] = named[1](values[i]);
  }
  return rec;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame);
  if (r.u16() !== 0xabab) throw new DecodeError('dolphin: bad header');
  const index = r.u32le();
  r.skip(4); // version, flags
  const type = r.u16le();
  const imei = String(r.bytes(8).readBigUInt64LE(0));
  const length = r.u32le();
  r.skip(4); // reserved
  const body = r.bytes(length);
  if (type !== DATA_PACK_REQUEST) return { deviceId: imei };
  const records: DeviceRecord[] = [];
  for (const pack = new ProtoReader(body); pack.next(); ) if (pack.field === 1) records.push(point(pack.message()));
  return { deviceId: imei, records, reply: reply(index) };
}

export const protocol: Protocol = {
  name: 'dolphin',
  defaultPort: 5219,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  createFramer: () => lengthFieldFramer('dolphin', { offset: 20, size: 4, littleEndian: true, adjust: 4, magic: HEADER }, MAX_FRAME),
  decode,
  commands: [],
};
