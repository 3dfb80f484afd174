/**
 * The one KML document of a KMZ (a zip), inflated with a bound (issue 10, item 7). Only the entry
 * the upload needs is inflated (`doc.kml`, else the first `.kml` by name), found through the zip's
 * central directory; the sizes the zip declares are never trusted: node's zlib inflates chunk by
 * chunk and stops as soon as the output passes `maxBytes` (maxOutputLength), also when a header
 * claims less. (Native zlib: ~10x faster than fflate's streaming Inflate on a 1 GiB bomb.)
 */
import { inflateRawSync } from 'node:zlib';
import { DomainError } from '../core/errors.ts';

const broken = (why: string) => new DomainError(234, {}, `Invalid data format: a broken KMZ (zip) file: ${why}`);

export function isZip(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x50 && data[1] === 0x4b && data[2] === 0x03 && data[3] === 0x04;
}

interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  localOffset: number;
}

/** Entries of the zip's central directory (names and where their data starts), no data read. */
function entries(zip: Uint8Array): Entry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // End of central directory: 22 bytes plus a comment of at most 65535.
  let eocd = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 65535); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw broken('no end of central directory');
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const out: Entry[] = [];
  const names = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== 0x02014b50) throw broken('bad central directory');
    const nameLength = view.getUint16(at + 28, true);
    const skip = nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (at + 46 + skip > zip.length) throw broken('bad central directory');
    out.push({
      name: names.decode(zip.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      localOffset: view.getUint32(at + 42, true),
    });
    at += 46 + skip;
  }
  return out;
}

/** The entry's compressed bytes (after its local header). */
function rawData(zip: Uint8Array, e: Entry): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const at = e.localOffset;
  if (at + 30 > zip.length || view.getUint32(at, true) !== 0x04034b50) throw broken(`bad local header of ${e.name}`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (e.compressedSize === 0xffffffff || start + e.compressedSize > zip.length) throw broken(`${e.name} is cut short or uses ZIP64`);
  return zip.subarray(start, start + e.compressedSize);
}

/**
 * The KML bytes of a KMZ: 234 for a broken zip or a KML that inflates past `maxBytes`;
 * undefined when the zip holds no .kml.
 */
export function kmlEntry(zip: Uint8Array, maxBytes: number): Uint8Array | undefined {
  const kmls = entries(zip).filter((e) => /\.kml$/i.test(e.name));
  const entry = kmls.find((e) => e.name.toLowerCase() === 'doc.kml') ?? kmls.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];
  if (!entry) return undefined;
  const raw = rawData(zip, entry);
  const tooBig = () => new DomainError(234, { max_bytes: maxBytes }, `Invalid data format: the KML inside the KMZ inflates to more than ${maxBytes} bytes`);
  if (entry.method === 0) {
    if (raw.length > maxBytes) throw tooBig();
    return raw;
  }
  if (entry.method !== 8) throw broken(`${entry.name} uses compression method ${entry.method} (only deflate and stored are read)`);
  try {
    return inflateRawSync(raw, { maxOutputLength: maxBytes });
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooBig();
    throw broken(`${entry.name}: ${(e as Error).message}`);
  }
}
