/**
 * Helpers of the upload hardening tests and bench/upload.ts: hand-made zips (so a header can lie),
 * fast deflate of large runs, the largest KML an upload allows, and the worst wait of a cheap call
 * made over and over while something else runs.
 */
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** Raw deflate data (method 8). */
  deflated: Uint8Array;
  /** The uncompressed size the headers declare (true or not). */
  declaredSize: number;
}

/** A zip of deflated entries whose local and central headers declare `declaredSize` (CRC left 0). */
export function zip(entries: ZipEntry[]): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(e.deflated.length, 18);
    local.writeUInt32LE(e.declaredSize, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt32LE(e.deflated.length, 20);
    dir.writeUInt32LE(e.declaredSize, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    parts.push(local, name, Buffer.from(e.deflated));
    central.push(dir, name);
    offset += 30 + name.length + e.deflated.length;
  }
  const dirSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirSize, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, ...central, end]));
}

/** Raw deflate of `head`, `size` bytes of `fill` (one byte value), then `tail`, streamed (run-length strategy: fast). */
export async function deflatePadded(head: string, fill: number, size: number, tail: string): Promise<Uint8Array> {
  const d = zlib.createDeflateRaw({ level: 1, strategy: zlib.constants.Z_RLE, chunkSize: 1 << 20 });
  const out: Buffer[] = [];
  d.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((resolve) => d.on('end', resolve));
  const chunk = Buffer.alloc(1 << 20, fill);
  const write = async (b: Buffer) => {
    if (!d.write(b)) await new Promise((resolve) => d.once('drain', resolve));
  };
  await write(Buffer.from(head));
  for (let left = size; left > 0; left -= chunk.length) await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
  await write(Buffer.from(tail));
  d.end();
  await ended;
  return new Uint8Array(Buffer.concat(out));
}

/**
 * A KML of `zones` polygons of `points` points each (default: the largest upload allowed, 5000 x 100),
 * spread over a small area, with coordinates of 4 decimals.
 */
export function largeKml(zones = 5000, points = 100): string {
  const out: string[] = ['<kml><Document><name>Large</name>'];
  for (let z = 0; z < zones; z++) {
    const lat0 = 40 + (z % 100) * 0.05;
    const lng0 = 10 + Math.floor(z / 100) * 0.05;
    const ring: string[] = [];
    for (let i = 0; i < points; i++) {
      const a = (i / points) * 2 * Math.PI;
      ring.push(`${(lng0 + 0.01 * Math.cos(a)).toFixed(4)},${(lat0 + 0.01 * Math.sin(a)).toFixed(4)}`);
    }
    out.push(`<Placemark><name>Z${z}</name><Polygon><outerBoundaryIs><LinearRing><coordinates>${ring.join(' ')}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark>`);
  }
  out.push('</Document></kml>');
  return out.join('');
}

export interface Waits {
  calls: number;
  worst: number;
  p99: number;
}

/** Make `call` over and over, one at a time, until `work` settles; answers its result and the waits (ms). */
export async function waitsDuring<T>(work: Promise<T>, call: () => Promise<unknown>): Promise<{ result: T; waits: Waits }> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  const times: number[] = [];
  while (!done) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  const result = await settled;
  times.sort((a, b) => a - b);
  return { result, waits: { calls: times.length, worst: times.at(-1) ?? 0, p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0 } };
}
