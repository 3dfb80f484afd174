/**
 * Point batches: the columns a worker reads (`FullPointColumns`, src/core/point.ts) as the points
 * the pipeline stages take (`pointsOf`), and the same columns as compact binary: a protobuf
 * `PointBatch` message of packed columns (one double array per field, flags as fixed32 in the FLAG
 * layout), for whatever must carry points between processes or threads. The packed columns are
 * written and read directly as typed arrays — the same wire format protobufjs produces for the
 * schema below (a test checks both ways), at a fraction of the cost of an object graph per point.
 */
import protobuf from 'protobufjs';
import { emptyFullColumns, flagsOf, FLAG, ignitionOf, type FullPointColumns } from '../core/point.ts';
import type { Point } from './types.ts';

/** Field number -> column, in wire order. */
const DOUBLE_FIELDS = ['time', 'lat', 'lng', 'alt', 'speed', 'course', 'satellites', 'precision', 'hdop', 'odometer', 'hours', 'fuelUsed'] as const;
export type DoubleField = (typeof DOUBLE_FIELDS)[number];
const FLAGS_FIELD = 13;
const fieldNumber = (i: number) => i + 1;

/** The schema, for other readers of the format (and the interop test). */
export const PointBatch = protobuf.Root.fromJSON({
  nested: {
    PointBatch: {
      fields: {
        ...Object.fromEntries(DOUBLE_FIELDS.map((name, i) => [name, { id: fieldNumber(i), type: 'double', rule: 'repeated', options: { packed: true } }])),
        // FLAG of src/core/point.ts: 1 valid, 2 lbs, 4 archive, 8 ignition reported, 16 ignition on, 32 alarm
        flags: { id: FLAGS_FIELD, type: 'fixed32', rule: 'repeated', options: { packed: true } },
      },
    },
  },
}).lookupType('PointBatch');

/** Monomorphic reads per column (a computed key per point and field would be far slower). */
const GETTERS: Record<DoubleField, (p: Point) => number> = {
  time: (p) => p.time,
  lat: (p) => p.lat,
  lng: (p) => p.lng,
  alt: (p) => p.alt,
  speed: (p) => p.speed,
  course: (p) => p.course,
  satellites: (p) => p.satellites,
  precision: (p) => p.precision,
  hdop: (p) => p.hdop,
  odometer: (p) => p.odometer ?? NaN,
  hours: (p) => p.hours ?? NaN,
  fuelUsed: (p) => p.fuelUsed ?? NaN,
};

const varintLength = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);
function writeVarint(buf: Uint8Array, at: number, n: number): number {
  while (n >= 0x80) {
    buf[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  buf[at++] = n;
  return at;
}

if (new Uint8Array(new Float64Array([1]).buffer)[7] !== 0x3f) throw new Error('PointBatch: a little-endian machine is assumed');

export type { FullPointColumns } from '../core/point.ts';

/** The flags of a pipeline point (archive is not kept on a Point). */
const flagsOfPoint = (p: Point) => flagsOf({ valid: p.valid, lbs: p.lbs, ignition: p.ignition, alarm: p.event });

/** Columns (only the first `c.n` rows) to the wire format: a header and one copy per column. */
export function encodeColumns(c: FullPointColumns): Uint8Array {
  const n = c.n;
  const header = (bytes: number) => 1 + varintLength(bytes);
  const out = new Uint8Array(DOUBLE_FIELDS.length * (header(n * 8) + n * 8) + header(n * 4) + n * 4);
  let at = 0;
  DOUBLE_FIELDS.forEach((name, i) => {
    out[at++] = (fieldNumber(i) << 3) | 2;
    at = writeVarint(out, at, n * 8);
    out.set(new Uint8Array(c[name].buffer, c[name].byteOffset, n * 8), at);
    at += n * 8;
  });
  out[at++] = (FLAGS_FIELD << 3) | 2;
  at = writeVarint(out, at, n * 4);
  out.set(new Uint8Array(Uint32Array.from(c.flags.subarray(0, n)).buffer), at);
  return out;
}

export function encodePoints(points: Point[]): Uint8Array {
  const n = points.length;
  if (!n) return new Uint8Array(0);
  const header = (bytes: number) => 1 + varintLength(bytes);
  const size = DOUBLE_FIELDS.length * (header(n * 8) + n * 8) + header(n * 4) + n * 4;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let at = 0;
  const col = new Float64Array(n); // typed-array writes, then one copy per column (the system is little-endian, as protobuf)
  DOUBLE_FIELDS.forEach((name, i) => {
    out[at++] = (fieldNumber(i) << 3) | 2;
    at = writeVarint(out, at, n * 8);
    const get = GETTERS[name];
    for (let k = 0; k < n; k++) col[k] = get(points[k]);
    out.set(new Uint8Array(col.buffer), at);
    at += n * 8;
  });
  out[at++] = (FLAGS_FIELD << 3) | 2;
  at = writeVarint(out, at, n * 4);
  for (let k = 0; k < n; k++, at += 4) {
    const p = points[k];
    view.setUint32(at, flagsOfPoint(p), true);
  }
  return out;
}

/** The wire format back to columns (each column copied once into an aligned array). */
export function decodeColumns(bytes: Uint8Array): FullPointColumns {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const cols = new Map<number, { at: number; len: number }>();
  for (let at = 0; at < bytes.length; ) {
    const tag = bytes[at++];
    let len = 0;
    for (let shift = 0; ; shift += 7) {
      const b = bytes[at++];
      len |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    cols.set(tag >> 3, { at, len });
    at += len;
  }
  const n = (cols.get(1)?.len ?? 0) / 8;
  const at = DOUBLE_FIELDS.map((_, i) => cols.get(fieldNumber(i))?.at ?? -1);
  if (at.includes(-1) || !cols.has(FLAGS_FIELD)) throw new Error('PointBatch: a column is missing');
  const c = emptyFullColumns(0);
  c.n = n;
  // A copy even for a Node Buffer (whose slice is a view): columns sit at odd offsets in the message.
  DOUBLE_FIELDS.forEach((name, i) => (c[name] = new Float64Array(Uint8Array.prototype.slice.call(bytes, at[i], at[i] + n * 8).buffer)));
  const flagsAt = cols.get(FLAGS_FIELD)!.at;
  c.flags = new Uint8Array(n);
  for (let k = 0; k < n; k++) c.flags[k] = view.getUint32(flagsAt + k * 4, true);
  return c;
}

export function decodePoints(bytes: Uint8Array): Point[] {
  return pointsOf(decodeColumns(bytes));
}

/** The first `c.n` points of the columns as the pipeline's points (one object each: the stages keep them). */
export function pointsOf(c: FullPointColumns): Point[] {
  const n = c.n;
  const { time, lat, lng, alt, speed, course, satellites, precision, hdop, odometer, hours, fuelUsed, flags } = c;
  const out: Point[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const f = flags[k];
    const p: Point = {
      time: time[k],
      lat: lat[k],
      lng: lng[k],
      alt: alt[k],
      speed: speed[k],
      course: course[k],
      satellites: satellites[k],
      precision: precision[k],
      hdop: hdop[k],
      valid: (f & FLAG.valid) !== 0,
      lbs: (f & FLAG.lbs) !== 0,
    };
    const ignition = ignitionOf(f);
    if (ignition !== undefined) p.ignition = ignition;
    if (f & FLAG.alarm) p.event = true;
    const o = odometer[k];
    const h = hours[k];
    const fu = fuelUsed[k];
    if (!Number.isNaN(o)) p.odometer = o;
    if (!Number.isNaN(h)) p.hours = h;
    if (!Number.isNaN(fu)) p.fuelUsed = fu;
    out[k] = p;
  }
  return out;
}

/**
 * Several windows' PointBatch messages in one buffer (one transfer between threads): a header of
 * the count, then per window its point count and byte length (uint32 little-endian), then the
 * messages one after the other.
 */
export function joinBatches(parts: Array<{ n: number; bytes: Uint8Array }>): Uint8Array {
  const head = 4 + 8 * parts.length;
  const out = new Uint8Array(head + parts.reduce((s, p) => s + p.bytes.length, 0));
  const view = new DataView(out.buffer);
  view.setUint32(0, parts.length, true);
  let at = head;
  parts.forEach((p, i) => {
    view.setUint32(4 + 8 * i, p.n, true);
    view.setUint32(8 + 8 * i, p.bytes.length, true);
    out.set(p.bytes, at);
    at += p.bytes.length;
  });
  return out;
}

/** The windows of `joinBatches`, as views into the same buffer. */
export function splitBatches(buf: Uint8Array): Array<{ n: number; bytes: Uint8Array }> {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const count = view.getUint32(0, true);
  let at = 4 + 8 * count;
  return Array.from({ length: count }, (_, i) => {
    const n = view.getUint32(4 + 8 * i, true);
    const len = view.getUint32(8 + 8 * i, true);
    const bytes = buf.subarray(at, at + len);
    at += len;
    return { n, bytes };
  });
}
