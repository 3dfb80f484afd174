/**
 * FLEX records (Navtelecom FLEX 1.0, 2.0, 3.0): a record is the fields the device announced in its
 * `*>FLEX` bit mask, in field-number order, each of a size the field number fixes. The mask is sent once
 * per connection, so the session keeps it (and the framer learns the record size from the same frame).
 */
import { Alarm, Attr, indexed } from '../attributes.ts';
import { Reader } from '../binary.ts';
import { DecodeError, type DeviceRecord } from '../types.ts';

/** Field sizes in bytes, fields 1..255, run-length coded as [size, how many fields in a row]. */
const SIZE_RUNS: Array<[number, number]> = [
  [4, 1], [2, 1], [4, 1], [1, 5], [4, 5], [2, 1], [4, 2], [2, 12], [1, 4], [4, 2], [2, 2], [4, 1], [2, 7], [1, 8],
  [2, 1], [4, 1], [2, 1], [1, 1], [4, 1], [2, 5], [1, 3], [2, 1], [4, 1], [2, 1], [1, 1],
  // FLEX 2.0 (fields 70..122)
  [8, 1], [2, 1], [1, 1], [16, 1], [4, 1], [2, 1], [4, 1], [37, 1], [1, 6], [3, 10], [6, 1], [12, 1], [24, 1],
  [48, 1], [1, 4], [4, 2], [1, 1], [4, 1], [2, 1], [6, 1], [2, 1], [6, 1], [2, 8], [1, 1], [2, 3], [1, 1],
  // FLEX 3.0 (fields 123..255)
  [1, 4], [4, 6], [2, 6], [1, 2], [2, 1], [3, 1], [2, 1], [1, 2], [3, 1], [2, 20], [1, 4], [2, 1], [4, 3], [2, 1],
  [4, 1], [2, 2], [4, 1], [2, 13], [4, 4], [6, 1], [3, 1], [1, 1], [2, 2], [1, 1], [4, 1], [5, 1], [4, 2], [1, 16],
  [2, 15], [4, 15], [8, 3],
];
/** FIELD_SIZE[n - 1] is the size of field n. */
export const FIELD_SIZE: readonly number[] = SIZE_RUNS.flatMap(([size, n]) => Array<number>(n).fill(size));
if (FIELD_SIZE.length !== 255) throw new Error(`navis: FLEX size table has ${FIELD_SIZE.length} fields`);

export interface FlexLayout {
  /** Enabled field numbers (1-based), ascending. */
  fields: number[];
  /** Bytes of one record. */
  size: number;
}

/** The `*>FLEX` body after `*>FLEX`: `B0 | protocol version | structure version | bit count | mask`, mask MSB first. */
export function parseNegotiation(body: Buffer): { protocolVersion: number; structVersion: number; layout: FlexLayout } {
  const r = new Reader(body);
  if (r.u8() !== 0xb0) throw new DecodeError('navis: not a FLEX negotiation');
  const protocolVersion = r.u8();
  const structVersion = r.u8();
  const bits = r.u8();
  const mask = r.bytes(Math.ceil(bits / 8));
  const fields: number[] = [];
  let size = 0;
  for (let i = 0; i < bits; i++) {
    if ((mask[i >> 3] >> (7 - (i & 7))) & 1) {
      fields.push(i + 1);
      size += FIELD_SIZE[i];
    }
  }
  if (size === 0) throw new DecodeError('navis: empty FLEX mask');
  return { protocolVersion, structVersion, layout: { fields, size } };
}

type FieldReader = (r: Reader, rec: DeviceRecord, a: DeviceRecord['attributes']) => void;

const mv = (r: Reader) => r.u16le() / 1000;
function set(a: DeviceRecord['attributes'], key: string, value: number, available: (v: number) => boolean): void {
  if (Number.isFinite(value) && available(value)) a[key] = value;
}
/** Raw values of fields without a common name, all ones ("not available") left out. */
const RAW: Record<number, [(r: Reader) => number, number]> = {
  1: [(r) => r.u8(), 0xff],
  2: [(r) => r.u16le(), 0xffff],
  4: [(r) => r.u32le(), 0xffffffff],
};

/** What a field means; fields not listed are kept raw as `io<n>` when 1, 2 or 4 bytes, else skipped. */
const FIELDS = new Map<number, FieldReader>([
  [1, (r, _, a) => { a[Attr.index] = r.u32le(); }],
  [2, (r, _, a) => { a[Attr.event] = r.u16le(); }],
  [3, (r, rec) => { rec.time ??= r.u32le() * 1000; }], // event time: the fix time (field 9) wins when present
  [4, (r, _, a) => {
    // bit 2: alarm; bits 3-4: mode (1, 2 = guarded)
    const s = r.u8();
    const mode = (s >> 3) & 3;
    a[Attr.armed] = mode === 1 || mode === 2;
    if (s & 0x04) a[Attr.alarm] = Alarm.general;
  }],
  [5, (r, _, a) => { a[Attr.status] = r.u8(); }],
  [6, (r, _, a) => { a.status2 = r.u8(); }],
  [7, (r, _, a) => { a[Attr.rssi] = r.u8(); }],
  [8, (r, rec) => {
    const nav = r.u8(); // bit 1: valid fix; bits 2..7: satellites
    rec.valid = (nav & 0x02) !== 0;
    rec.satellites = nav >> 2;
  }],
  [9, (r, rec) => {
    const t = r.u32le(); // 0: no fix yet
    if (t) rec.time = t * 1000;
  }],
  [10, (r, rec) => { rec.lat = r.i32le() / 600000; }], // 1/10000 of a minute
  [11, (r, rec) => { rec.lng = r.i32le() / 600000; }],
  [12, (r, rec) => { rec.altitude = r.i32le() / 10; }],
  [13, (r, rec) => { rec.speed = r.f32le(); }],
  [14, (r, rec) => { rec.course = r.u16le() % 360; }],
  [15, (r, _, a) => { a[Attr.odometer] = Math.round(r.f32le() * 1000); }],
  [16, (r, _, a) => { a[Attr.distance] = Math.round(r.f32le() * 1000); }],
  [19, (r, _, a) => { a[Attr.power] = mv(r); }],
  [20, (r, _, a) => { a[Attr.battery] = mv(r); }],
  ...[21, 22, 23, 24, 25, 26, 27, 28].map((n): [number, FieldReader] => [n, (r, _, a) => { a[indexed.adc(n - 20)] = mv(r); }]),
  [29, (r, _, a) => { a[Attr.input] = ((a[Attr.input] as number | undefined) ?? 0) | r.u8(); }],
  [30, (r, _, a) => { a[Attr.input] = ((a[Attr.input] as number | undefined) ?? 0) | (r.u8() << 8); }],
  [31, (r, _, a) => { a[Attr.output] = ((a[Attr.output] as number | undefined) ?? 0) | r.u8(); }],
  [32, (r, _, a) => { a[Attr.output] = ((a[Attr.output] as number | undefined) ?? 0) | (r.u8() << 8); }],
  [33, (r, _, a) => { a[indexed.count(1)] = r.u32le(); }],
  [34, (r, _, a) => { a[indexed.count(2)] = r.u32le(); }],
  [37, (r, _, a) => { a[Attr.hours] = r.u32le() * 1000; }], // seconds
  ...[38, 39, 40, 41, 42, 43, 44].map((n): [number, FieldReader] => [n, (r, _, a) => { a[indexed.fuel(n - 37)] = r.u16le(); }]),
  ...[45, 46, 47, 48, 49, 50, 51, 52].map((n): [number, FieldReader] => [n, (r, _, a) => {
    const t = r.i8();
    if (t !== -128) a[indexed.temp(n - 44)] = t; // -128: no sensor
  }]),
  // CAN values: all ones (and 0x7FFF, -128, a negative float) mean "not available"
  [54, (r, _, a) => { set(a, Attr.fuelUsed, r.f32le(), (v) => v >= 0); }],
  [55, (r, _, a) => { set(a, Attr.rpm, r.u16le(), (v) => v < 0x7fff); }],
  [56, (r, _, a) => { set(a, Attr.coolantTemp, r.i8(), (v) => v !== -128); }],
  [57, (r, _, a) => { set(a, 'obdOdometer', Math.round(r.f32le() * 1000), (v) => v >= 0); }],
  [69, (r, _, a) => { set(a, Attr.obdSpeed, r.u8(), (v) => v !== 0xff); }],
  [70, (r, _, a) => {
    let visible = 0; // satellites seen, per constellation
    for (let i = 0; i < 8; i++) visible += r.u8();
    a.satVisible = visible;
  }],
  [71, (r, rec, a) => {
    rec.hdop = r.u8() / 10;
    a.pdop = r.u8() / 10;
  }],
]);

/** One record of `layout.size` bytes. */
export function decodeRecord(r: Reader, layout: FlexLayout): DeviceRecord {
  const rec: DeviceRecord = { attributes: {} };
  const end = r.pos + layout.size;
  if (end > r.end) throw new DecodeError('navis: FLEX record past the end');
  for (const n of layout.fields) {
    const read = FIELDS.get(n);
    const size = FIELD_SIZE[n - 1];
    const raw = RAW[size];
    if (read) read(r, rec, rec.attributes);
    else if (raw) {
      const v = raw[0](r);
      if (v !== raw[1]) rec.attributes[indexed.io(n)] = v;
    } else r.skip(size);
  }
  if (rec.lat === undefined || rec.lng === undefined || !(Math.abs(rec.lat) <= 90 && Math.abs(rec.lng) <= 180)) {
    delete rec.lat;
    delete rec.lng;
  }
  if (rec.speed !== undefined && !(rec.speed >= 0 && rec.speed < 2000)) delete rec.speed;
  return rec;
}
