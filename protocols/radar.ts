/**
 * Radar (Brazilian "Radar" trackers) binary protocol: `u8 product | u8 version | u32 serial | u8 index | u32 time |
 * u8 type | u16 length | body`, the frame being `length` bytes. Type 0x4C is tracking: `u16 memory count |
 * u16 memory index | u16 record count | u16 first index` then records `u16 event | u8 mask length | mask (bit n of
 * byte n / 8, least significant first) | u16 length | fields by mask bit`. The fields are listed in FIELDS; a
 * record with both a device and a fix time is kept. The devices' 0x9C acknowledgement is not sent.
 */
import { Attr, indexed } from './attributes.ts';
import { lengthFieldFramer, Reader } from './binary.ts';
import { DecodeError, type DecodeContext, type DecodeResult, type DeviceRecord, type Protocol } from './types.ts';

const MAX_FRAME = 4096;
const MSG_TRACKING = 0x4c;

type Field = number | ((r: Reader, rec: DeviceRecord, state: { deviceTime?: number }) => void);
const bitsOf = (v: number, from: number, n: number) => Math.floor(v / 2 ** from) % 2 ** n;
/** Field readers (or sizes of fields not kept) by mask bit. */
const FIELDS: Field[] = [
  (r, _rec, s) => (s.deviceTime = r.u32() * 1000),
  (r, rec) => (rec.time = r.u32() * 1000),
  (r, rec) => (rec.lat = r.i32() / 360000),
  (r, rec) => (rec.lng = r.i32() / 360000),
  (r, rec) => (rec.speed = r.u16()),
  (r, rec) => (rec.course = (r.u16() / 10) % 360),
  (r, rec) => (rec.altitude = r.i16()),
  (r, rec) => {
    const f = r.u8();
    rec.valid = (f & 0x01) !== 0;
    rec.satellites = f >> 4;
  },
  (r, rec) => {
    const f = r.u32();
    const a = rec.attributes;
    a[Attr.ignition] = bitsOf(f, 0, 1) === 1;
    a[Attr.charge] = bitsOf(f, 1, 1) === 1;
    a[Attr.motion] = bitsOf(f, 2, 1) === 1;
    for (let i = 0; i < 3; i++) a[indexed.in(i + 1)] = bitsOf(f, 4 + i, 1) === 1;
  },
  (r, rec) => {
    const f = r.u16();
    rec.attributes[Attr.blocked] = (f & 0x01) !== 0;
    rec.attributes[Attr.status] = f;
  },
  2, 2, 2, 2, 2,
  (r, rec) => (rec.attributes[Attr.odometer] = r.u32() * 100),
  4,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  12, 1, 12, 1, 12, 1, 12, 1, 12, 1,
  6, 2, 2, 2, 2, 10, 2,
  1, 1, 1, 1, 1,
  2, 4, 4,
];

function readRecord(r: Reader): DeviceRecord | undefined {
  const rec: DeviceRecord = { attributes: { [Attr.event]: r.u16() } };
  const mask = r.bytes(r.u8());
  r.skip(2); // length
  const state: { deviceTime?: number } = {};
  for (let bit = 0; bit < mask.length * 8; bit++) {
    if (!(mask[bit >> 3] & (1 << (bit & 7)))) continue;
    const field = FIELDS[bit];
    if (field === undefined) throw new DecodeError(`radar: unknown field ${bit}`);
    if (typeof field === 'number') r.skip(field);
    else field(r, rec, state);
  }
  if (rec.lat !== undefined && rec.lng !== undefined && (Math.abs(rec.lat) > 90 || Math.abs(rec.lng) > 180)) throw new DecodeError('radar: coordinates out of range');
  return state.deviceTime !== undefined && rec.time !== undefined ? rec : undefined;
}

function decode(frame: Buffer, _ctx: DecodeContext): DecodeResult {
  const r = new Reader(frame, 2);
  const deviceId = String(r.u32());
  r.skip(1 + 4); // index, timestamp
  const type = r.u8();
  r.skip(2); // length
  if (type !== MSG_TRACKING) return { deviceId };
  r.skip(4); // memory count, index
  const count = r.u16();
  r.skip(2); // first index
  const records: DeviceRecord[] = [];
  for (let i = 0; i < count; i++) {
    const rec = readRecord(r);
    if (rec) records.push(rec);
  }
  return { deviceId, records };
}

export const protocol: Protocol = {
  name: 'radar',
  defaultPort: 5188,
  transports: ['tcp'],
  maxFrameSize: MAX_FRAME,
  // the u16 at offset 12 is the length of the whole frame
  createFramer: () => lengthFieldFramer('radar', 12, 2, -14, MAX_FRAME),
  decode,
  commands: [],
};
