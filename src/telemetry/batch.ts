/**
 * Point batches cross to the telemetry workers as compact binary: a protobuf `PointBatch` message
 * of packed columns (one double array per field, flags as fixed32), whose buffer is transferred,
 * not copied. The packed columns are written and read directly as typed arrays — the same wire
 * format protobufjs produces for the schema below (a test checks both ways), at a fraction of the
 * cost of building an object graph per point.
 */
import protobuf from 'protobufjs';
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
        // bit 0 valid, 1 lbs, 2 ignition reported, 3 ignition on, 4 event
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

/** Points as packed columns, the form the store reads them in (no object per point). */
export interface PointColumns {
  n: number;
  doubles: Record<DoubleField, Float64Array>;
  /** bit 0 valid, 1 lbs, 2 ignition reported, 3 ignition on, 4 event */
  flags: Uint32Array;
}

export function emptyColumns(n: number): PointColumns {
  return { n, doubles: Object.fromEntries(DOUBLE_FIELDS.map((f) => [f, new Float64Array(n)])) as Record<DoubleField, Float64Array>, flags: new Uint32Array(n) };
}

/** Columns (only the first `c.n` rows) to the wire format: a header and one copy per column. */
export function encodeColumns(c: PointColumns): Uint8Array {
  const n = c.n;
  const header = (bytes: number) => 1 + varintLength(bytes);
  const out = new Uint8Array(DOUBLE_FIELDS.length * (header(n * 8) + n * 8) + header(n * 4) + n * 4);
  let at = 0;
  DOUBLE_FIELDS.forEach((name, i) => {
    out[at++] = (fieldNumber(i) << 3) | 2;
    at = writeVarint(out, at, n * 8);
    out.set(new Uint8Array(c.doubles[name].buffer, 0, n * 8), at);
    at += n * 8;
  });
  out[at++] = (FLAGS_FIELD << 3) | 2;
  at = writeVarint(out, at, n * 4);
  out.set(new Uint8Array(c.flags.buffer, 0, n * 4), at);
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
    view.setUint32(at, (p.valid ? 1 : 0) | (p.lbs ? 2 : 0) | (p.ignition !== undefined ? 4 : 0) | (p.ignition ? 8 : 0) | (p.event ? 16 : 0), true);
  }
  return out;
}

export function decodePoints(bytes: Uint8Array): Point[] {
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
  // Start of each double column, in DOUBLE_FIELDS order.
  const at = DOUBLE_FIELDS.map((_, i) => cols.get(fieldNumber(i))?.at ?? -1);
  if (at.includes(-1) || !cols.has(FLAGS_FIELD)) throw new Error('PointBatch: a column is missing');
  // Each column copied once into an aligned Float64Array (columns sit at odd offsets in the message).
  const [tA, latA, lngA, altA, spA, coA, saA, prA, hdA, odA, hoA, fuA] = at.map((a) => new Float64Array(Uint8Array.prototype.slice.call(bytes, a, a + n * 8).buffer)); // a copy even for a Node Buffer (whose slice is a view)
  const d = (col: Float64Array, k: number) => col[k];
  const out: Point[] = new Array(n);
  const flagsAt = cols.get(FLAGS_FIELD)!.at;
  for (let k = 0; k < n; k++) {
    const f = view.getUint32(flagsAt + k * 4, true);
    const p: Point = {
      time: d(tA, k),
      lat: d(latA, k),
      lng: d(lngA, k),
      alt: d(altA, k),
      speed: d(spA, k),
      course: d(coA, k),
      satellites: d(saA, k),
      precision: d(prA, k),
      hdop: d(hdA, k),
      valid: !!(f & 1),
      lbs: !!(f & 2),
    };
    if (f & 4) p.ignition = !!(f & 8);
    if (f & 16) p.event = true;
    const odometer = d(odA, k);
    const hours = d(hoA, k);
    const fuelUsed = d(fuA, k);
    if (!Number.isNaN(odometer)) p.odometer = odometer;
    if (!Number.isNaN(hours)) p.hours = hours;
    if (!Number.isNaN(fuelUsed)) p.fuelUsed = fuelUsed;
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
