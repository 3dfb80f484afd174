/**
 * A zip archive of a few files held in memory (what an xlsx file is: ECMA-376 Part 2, the Open
 * Packaging Conventions over PKWARE's APPNOTE format): each file deflated with node:zlib, local
 * headers, then the central directory. No zip64: an xlsx of a report stays far below 4 GiB and
 * 65,535 files. Entry times are fixed (1980-01-01), so the same files give the same bytes.
 */
import { crc32, deflateRawSync } from 'node:zlib';

export interface ZipEntry {
  /** Path inside the archive, `/`-separated. */
  name: string;
  data: Buffer;
}

/** Bit 11: file names are UTF-8. */
const UTF8 = 0x0800;
const DEFLATE = 8;
/** MS-DOS date of 1980-01-01 (time 00:00:00 is 0). */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/**
 * The fields a local header (from byte 4) and a central directory entry (from byte 6) share: version
 * needed, flags, method, time, date, CRC-32, sizes, name length (the extra field's length stays 0).
 */
function common(b: Buffer, at: number, f: { crc: number; packed: number; size: number; name: number }): void {
  b.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
  b.writeUInt16LE(UTF8, at + 2);
  b.writeUInt16LE(DEFLATE, at + 4);
  b.writeUInt16LE(0, at + 6);
  b.writeUInt16LE(DOS_DATE, at + 8);
  b.writeUInt32LE(f.crc, at + 10);
  b.writeUInt32LE(f.packed, at + 14);
  b.writeUInt32LE(f.size, at + 18);
  b.writeUInt16LE(f.name, at + 22);
}

/** The archive of `entries`, deflated at `level` (zlib's 0..9). */
export function zip(entries: ZipEntry[], level = 6): Buffer {
  const out: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const packed = deflateRawSync(e.data, { level });
    const crc = crc32(e.data);
    const fields = { crc, packed: packed.length, size: e.data.length, name: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    common(local, 4, fields);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4); // made by: MS-DOS, 2.0
    common(dir, 6, fields);
    // extra, comment, disk, internal and external attributes: 0
    dir.writeUInt32LE(offset, 42);
    out.push(local, name, packed);
    central.push(dir, name);
    offset += local.length + name.length + packed.length;
  }
  const size = central.reduce((s, b) => s + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...out, ...central, end]);
}
