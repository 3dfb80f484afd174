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
 * PLACEHOLDER encoding (JSON + brotli) until the columnar codec lands; the format byte lets a
 * database hold chunks of both.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

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

export function encodeFixChunk(rows: readonly StoredFix[]): Uint8Array {
  if (rows.length === 0) throw new RangeError('a chunk holds at least one fix');
  for (let i = 1; i < rows.length; i++) if (!(rows[i].time > rows[i - 1].time)) throw new RangeError('chunk rows must have strictly increasing times');
  const body = brotliCompressSync(Buffer.from(JSON.stringify(rows)), { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });
  const out = new Uint8Array(body.length + 1);
  out[0] = FORMAT_JSON;
  out.set(body, 1);
  return out;
}

export function decodeFixChunk(data: Uint8Array, want?: readonly FixColumn[]): StoredFix[] {
  if (data[0] !== FORMAT_JSON) throw new Error(`unknown fix chunk format ${data[0]}`);
  const rows = JSON.parse(brotliDecompressSync(data.subarray(1)).toString()) as StoredFix[];
  if (!want) return rows;
  const keep = new Set<string>(want);
  for (const r of rows) for (const c of FIX_COLUMNS) if (!keep.has(c)) (r as unknown as Record<string, null>)[c] = null;
  return rows;
}
