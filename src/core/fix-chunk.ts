/**
 * Compact storage of a tracker's processed fixes: one chunk holds a run of one tracker's rows of the
 * `fixes` table, oldest first, and gives them back exactly (issue 15).
 *
 * The contract every user of chunks relies on (src/store compaction and reads):
 * - `encodeFixChunk(rows)` takes rows with strictly increasing `time`, at least one;
 * - `decodeFixChunk(data)` gives back the same rows, every member identical: numbers bit for bit
 *   (NaN never occurs; null stays null), `attrs` the identical JSON text (or null);
 * - `decodeFixChunk(data, want)` fills only the members named in `want` (and `time`, always); the
 *   others are null. Reads that need a few members (a track: time, lat, lng, flags) decode only
 *   those columns.
 *
 * Format 1 (columnar), written by `encodeFixChunk`; format 0 (the first placeholder: JSON of
 * the rows, brotli) is still read. All integers are unsigned LEB128 varints unless said otherwise.
 *
 *   u8 format (1) | u8 layout | varint n (rows) | varint blocks
 *   layout 0 (blocks compressed one by one): per block a stream header
 *   layout 1 (chunks under 4 KiB of blocks): one stream header; the stream holds per block a
 *            varint length, then the blocks
 *   stream header: u8 method (0 stored, 1 brotli), varint stored length, varint raw length
 *            (method 1 only)
 *   the streams' stored bytes, one after the other
 *   u32 LE CRC-32 of all bytes before it
 *
 * Blocks (each compressed on its own in layout 0, so a read decompresses only the columns it needs):
 *   0        time: a number column (src/core/chunk-numbers.ts: nulls as runs; integers of a
 *            decimal scale as zigzag varints of the values, their deltas or deltas of deltas,
 *            with raw float64 exceptions; or raw float64 byte planes)
 *   1..14    the members in FIX_COLUMNS order: number columns, except
 *            received: u8 base (0 itself, 1 stored as received - time, exact) + a number column
 *            attrs: the attributes' index block (src/core/chunk-attrs.ts)
 *   15..     one block per attribute key, in the order of the index block's keys
 *
 * A tracker-day of the simulator's Teltonika fixes at 10 s (13 numbers and 12 attributes a fix, about
 * 270 bytes a row as text) takes about 6 bytes per fix (bench/fix-chunk.ts).
 * Corrupt or truncated chunks throw a `ChunkError`: the CRC catches changed bytes, every count
 * and length is checked against the data before anything is allocated for it.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import { ByteReader, ByteWriter, ChunkError, crc32 } from './chunk-bytes.ts';
import { readNumbers, writeNumbers } from './chunk-numbers.ts';
import { buildAttrs, encodeAttrs, readAttrsIndex, readKeyValues } from './chunk-attrs.ts';

export { ChunkError } from './chunk-bytes.ts';

/** One row of the `fixes` table, without its source (a chunk belongs to one source). */
export interface StoredFix {
  time: number;
  lat: number | null;
  lng: number | null;
  alt: number | null;
  speed: number | null;
  course: number | null;
  satellites: number | null;
  hdop: number | null;
  precision: number | null;
  flags: number;
  received: number;
  attrs: string | null;
  odometer: number | null;
  hours: number | null;
  fuel_used: number | null;
}

export type FixColumn = Exclude<keyof StoredFix, 'time'>;

export const FIX_COLUMNS: readonly FixColumn[] = ['lat', 'lng', 'alt', 'speed', 'course', 'satellites', 'hdop', 'precision', 'flags', 'received', 'attrs', 'odometer', 'hours', 'fuel_used'];

const FORMAT_JSON = 0;
const FORMAT_COLUMNS = 1;

/** Blocks compressed one by one, or (small chunks) all in one stream. */
const SEPARATE = 0;
const ONE_STREAM = 1;
/** Below this many raw bytes in all, one stream: per-block compression would not pay for itself. */
const ONE_STREAM_BELOW = 4096;
const STORED = 0;
const BROTLI = 1;
/** Below this a block is stored as it is. */
const MIN_COMPRESS = 32;
const BROTLI_QUALITY = 5;
/** Bounds a chunk can never exceed (one tracker's rows; far above any day). */
const MAX_ROWS = 1 << 22;
const MAX_BLOCK = 1 << 28;

const ATTRS_BLOCK = 1 + FIX_COLUMNS.indexOf('attrs');
const RECEIVED_BLOCK = 1 + FIX_COLUMNS.indexOf('received');
const KEY_BLOCKS = 1 + FIX_COLUMNS.length;
/** The number members, in FIX_COLUMNS order (attrs aside). */
const NUMBER_COLUMNS = FIX_COLUMNS.filter((c) => c !== 'attrs') as Array<Exclude<FixColumn, 'attrs'>>;

export function encodeFixChunk(rows: readonly StoredFix[]): Uint8Array {
  const n = rows.length;
  if (n === 0) throw new RangeError('a chunk holds at least one fix');
  if (n > MAX_ROWS) throw new RangeError(`a chunk holds at most ${MAX_ROWS} fixes`);
  if (typeof rows[0].time !== 'number' || Number.isNaN(rows[0].time)) throw new RangeError('a fix time is a number');
  for (let i = 1; i < n; i++) if (!(rows[i].time > rows[i - 1].time)) throw new RangeError('chunk rows must have strictly increasing times');
  // the columns, NaN for null, in one pass of plain property reads
  const time = new Float64Array(n);
  const cols: Record<string, Float64Array> = {};
  for (const c of NUMBER_COLUMNS) cols[c] = new Float64Array(n);
  const { lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, odometer, hours, fuel_used } = cols;
  const texts = new Array<string | null>(n);
  const nan = (v: number | null) => (v === null ? NaN : v);
  let relative = true;
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    time[i] = r.time;
    lat[i] = nan(r.lat);
    lng[i] = nan(r.lng);
    alt[i] = nan(r.alt);
    speed[i] = nan(r.speed);
    course[i] = nan(r.course);
    satellites[i] = nan(r.satellites);
    hdop[i] = nan(r.hdop);
    precision[i] = nan(r.precision);
    flags[i] = nan(r.flags);
    received[i] = nan(r.received);
    odometer[i] = nan(r.odometer);
    hours[i] = nan(r.hours);
    fuel_used[i] = nan(r.fuel_used);
    texts[i] = r.attrs;
    // received is mostly a few hundred ms after the fix time: kept as that difference when it gives the value back exactly
    if (relative && (r.received === null || !Object.is(r.time + (r.received - r.time), r.received))) relative = false;
  }
  const blocks: Uint8Array[] = [];
  const numbers = (values: Float64Array, prefix?: number) => {
    const w = new ByteWriter(64 + n * 2);
    if (prefix !== undefined) w.u8(prefix);
    writeNumbers(w, values);
    return w.finish();
  };
  blocks.push(numbers(time));
  let attrKeys: Uint8Array[] = [];
  for (const c of FIX_COLUMNS) {
    if (c === 'attrs') {
      const a = encodeAttrs(texts);
      blocks.push(a.index);
      attrKeys = a.keys;
    } else if (c === 'received') {
      if (relative) for (let i = 0; i < n; i++) received[i] -= time[i];
      blocks.push(numbers(received, relative ? 1 : 0));
    } else blocks.push(numbers(cols[c]));
  }
  blocks.push(...attrKeys);
  return assemble(n, blocks);
}

const compress = (raw: Uint8Array): Uint8Array | null => {
  if (raw.length < MIN_COMPRESS) return null;
  const packed = brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
  return packed.length < raw.length ? packed : null;
};

function assemble(n: number, blocks: Uint8Array[]): Uint8Array {
  const total = blocks.reduce((s, b) => s + b.length, 0);
  const layout = total < ONE_STREAM_BELOW ? ONE_STREAM : SEPARATE;
  const head = new ByteWriter(16 + blocks.length * 12);
  head.u8(FORMAT_COLUMNS);
  head.u8(layout);
  head.uvar(n);
  head.uvar(blocks.length);
  const body: Uint8Array[] = [];
  const stream = (raw: Uint8Array) => {
    const packed = compress(raw);
    head.u8(packed ? BROTLI : STORED);
    head.uvar((packed ?? raw).length);
    if (packed) head.uvar(raw.length);
    body.push(packed ?? raw);
  };
  if (layout === ONE_STREAM) {
    const w = new ByteWriter(total + blocks.length * 2);
    for (const b of blocks) w.uvar(b.length);
    for (const b of blocks) w.bytes(b);
    stream(w.finish());
  } else for (const b of blocks) stream(b);
  const size = head.len + body.reduce((s, b) => s + b.length, 0);
  const out = new Uint8Array(size + 4);
  out.set(head.finish());
  let at = head.len;
  for (const b of body) {
    out.set(b, at);
    at += b.length;
  }
  const crc = crc32(out, 0, size);
  out[size] = crc & 0xff;
  out[size + 1] = (crc >>> 8) & 0xff;
  out[size + 2] = (crc >>> 16) & 0xff;
  out[size + 3] = crc >>> 24;
  return out;
}

interface Stream {
  method: number;
  from: number;
  to: number;
  rawLength: number;
}

export function decodeFixChunk(data: Uint8Array, want?: readonly FixColumn[]): StoredFix[] {
  if (data.length === 0) throw new ChunkError('empty');
  if (data[0] === FORMAT_JSON) return decodeJson(data, want);
  const { n, time, cols, attrs } = decodeColumns(data, want);
  const { lat, lng, alt, speed, course, satellites, hdop, precision, flags, received, odometer, hours, fuel_used } = cols;
  const out = new Array<StoredFix>(n);
  for (let i = 0; i < n; i++) {
    out[i] = {
      time: time[i],
      lat: orNull(lat[i]),
      lng: orNull(lng[i]),
      alt: orNull(alt[i]),
      speed: orNull(speed[i]),
      course: orNull(course[i]),
      satellites: orNull(satellites[i]),
      hdop: orNull(hdop[i]),
      precision: orNull(precision[i]),
      flags: orNull(flags[i]) as number,
      received: orNull(received[i]) as number,
      attrs: attrs ? attrs[i] : null,
      odometer: orNull(odometer[i]),
      hours: orNull(hours[i]),
      fuel_used: orNull(fuel_used[i]),
    };
  }
  return out;
}

/** A chunk's numeric columns (null: NaN; the columns not asked for all NaN), without a row object each. */
export interface FixChunkColumns {
  n: number;
  time: Float64Array;
  cols: Record<Exclude<FixColumn, 'attrs'>, Float64Array>;
  attrs: Array<string | null> | null;
}

/** `decodeFixChunk` as columns: a month of fixes read by a report makes no object per fix. */
export function decodeFixChunkColumns(data: Uint8Array, want?: readonly FixColumn[]): FixChunkColumns {
  if (data.length === 0) throw new ChunkError('empty');
  if (data[0] !== FORMAT_JSON) return decodeColumns(data, want);
  const rows = decodeJson(data, want);
  const col = (f: (r: StoredFix) => number | null) => Float64Array.from(rows, (r) => f(r) ?? NaN);
  const cols = Object.fromEntries(NUMBER_COLUMNS.map((c) => [c, col((r) => r[c])])) as FixChunkColumns['cols'];
  return { n: rows.length, time: col((r) => r.time), cols, attrs: want && !want.includes('attrs') ? null : rows.map((r) => r.attrs) };
}

function decodeColumns(data: Uint8Array, want?: readonly FixColumn[]): FixChunkColumns {
  if (data[0] !== FORMAT_COLUMNS) throw new ChunkError(`unknown format ${data[0]}`);
  if (data.length < 8) throw new ChunkError('too short');
  const size = data.length - 4;
  const crc = (data[size] | (data[size + 1] << 8) | (data[size + 2] << 16) | (data[size + 3] << 24)) >>> 0;
  if (crc32(data, 0, size) !== crc) throw new ChunkError('checksum mismatch (changed or cut short)');
  const h = new ByteReader(data, 'header', 1, size);
  const layout = h.u8();
  if (layout !== SEPARATE && layout !== ONE_STREAM) h.fail(`unknown layout ${layout}`);
  const n = h.uvar();
  if (n === 0 || n > MAX_ROWS) h.fail(`bad row count ${n}`);
  const nb = h.count(1);
  if (nb < KEY_BLOCKS) h.fail(`too few blocks (${nb})`);
  const readStream = (): Stream => {
    const method = h.u8();
    if (method !== STORED && method !== BROTLI) h.fail(`unknown compression ${method}`);
    const len = h.uvar();
    const rawLength = method === STORED ? len : h.uvar();
    if (rawLength > MAX_BLOCK) h.fail('block too large');
    return { method, from: 0, to: len, rawLength };
  };
  const unpack = (s: Stream, what: string): Uint8Array => {
    const stored = data.subarray(s.from, s.to);
    if (s.method === STORED) return stored;
    let raw: Uint8Array;
    try {
      raw = brotliDecompressSync(stored, { maxOutputLength: Math.max(s.rawLength, 1) });
    } catch (e) {
      throw new ChunkError(`${what} does not decompress (${(e as Error).message})`);
    }
    if (raw.length !== s.rawLength) throw new ChunkError(`${what} has ${raw.length} bytes, not ${s.rawLength}`);
    return raw;
  };
  let block: (i: number) => ByteReader;
  if (layout === SEPARATE) {
    const streams: Stream[] = [];
    for (let i = 0; i < nb; i++) streams.push(readStream());
    let at = h.pos;
    for (const s of streams) {
      s.from += at;
      s.to += at;
      at = s.to;
    }
    if (at !== size) h.fail(`blocks end at ${at}, the chunk at ${size}`);
    block = (i) => new ByteReader(unpack(streams[i], `block ${i}`), `block ${i}`);
  } else {
    const s = readStream();
    s.from += h.pos;
    s.to += h.pos;
    if (s.to !== size) h.fail(`the stream ends at ${s.to}, the chunk at ${size}`);
    const all = unpack(s, 'stream');
    const lr = new ByteReader(all, 'block lengths');
    const starts = [0];
    for (let i = 0; i < nb; i++) starts.push(starts[i] + lr.count(1));
    const at = lr.pos;
    if (at + starts[nb] !== all.length) lr.fail('block lengths do not add up');
    block = (i) => new ByteReader(all, `block ${i}`, at + starts[i], at + starts[i + 1]);
  }
  const numbers = (i: number, r = block(i)): Float64Array => {
    const col = readNumbers(r, n);
    r.done();
    return col;
  };

  const wanted = want ? new Set<FixColumn>(want) : new Set(FIX_COLUMNS);
  const time = numbers(0);
  for (let i = 0; i < n; i++) if (time[i] !== time[i]) throw new ChunkError('a time is missing');
  const none = new Float64Array(n).fill(NaN);
  const cols: Record<string, Float64Array> = {};
  FIX_COLUMNS.forEach((c, j) => {
    if (c === 'attrs') return;
    if (!wanted.has(c)) cols[c] = none;
    else if (c !== 'received') cols[c] = numbers(1 + j);
    else {
      const r = block(RECEIVED_BLOCK);
      const relative = r.u8();
      if (relative > 1) r.fail(`bad received base ${relative}`);
      const col = numbers(RECEIVED_BLOCK, r);
      if (relative) for (let i = 0; i < n; i++) col[i] += time[i];
      cols[c] = col;
    }
  });
  let attrs: Array<string | null> | null = null;
  if (wanted.has('attrs')) {
    const r = block(ATTRS_BLOCK);
    const ix = readAttrsIndex(r, n);
    if (nb !== KEY_BLOCKS + ix.keys.length) r.fail(`${ix.keys.length} keys but ${nb - KEY_BLOCKS} key blocks`);
    const values = ix.keys.map((_, k) => readKeyValues(block(KEY_BLOCKS + k), ix.counts[k]));
    attrs = new Array<string | null>(n);
    buildAttrs(ix, values, attrs);
  }
  return { n, time, cols: cols as FixChunkColumns['cols'], attrs };
}

const orNull = (v: number): number | null => (v === v ? v : null);

/** Format 0: the rows as JSON, brotli. */
function decodeJson(data: Uint8Array, want?: readonly FixColumn[]): StoredFix[] {
  let rows: StoredFix[];
  try {
    rows = JSON.parse(brotliDecompressSync(data.subarray(1), { maxOutputLength: MAX_BLOCK }).toString()) as StoredFix[];
  } catch (e) {
    throw new ChunkError(`format 0 does not decode (${(e as Error).message})`);
  }
  if (!Array.isArray(rows)) throw new ChunkError('format 0 holds no rows');
  if (!want) return rows;
  const keep = new Set<string>(want);
  for (const r of rows) for (const c of FIX_COLUMNS) if (!keep.has(c)) (r as unknown as Record<string, null>)[c] = null;
  return rows;
}

/** Format 0, the first placeholder encoding: kept to measure against (bench/fix-chunk.ts) and to test its reading. */
export function encodeFixChunkJson(rows: readonly StoredFix[]): Uint8Array {
  const body = brotliCompressSync(Buffer.from(JSON.stringify(rows)), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  const out = new Uint8Array(body.length + 1);
  out[0] = FORMAT_JSON;
  out.set(body, 1);
  return out;
}
