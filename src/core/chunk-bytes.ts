/**
 * Byte-level helpers of the fix chunk codec (src/core/fix-chunk.ts): a growing writer and a
 * bounds-checked reader of unsigned LEB128 varints (up to 2^53), zigzag, float64 (little endian),
 * strings, and CRC-32. Every read past the end or malformed varint throws a `ChunkError`.
 */

export class ChunkError extends Error {
  constructor(message: string) {
    super(`corrupt fix chunk: ${message}`);
    this.name = 'ChunkError';
  }
}

const TWO_53 = 2 ** 53;

export const zigzag = (v: number): number => (v >= 0 ? v * 2 : -v * 2 - 1);
export const unzigzag = (z: number): number => (z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2);

const f64 = new Float64Array(1);
const f64Bytes = new Uint8Array(f64.buffer);
const LITTLE = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

export class ByteWriter {
  buf: Uint8Array;
  len = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
  }

  private grow(need: number): void {
    let cap = this.buf.length * 2;
    while (cap < this.len + need) cap *= 2;
    const b = new Uint8Array(cap);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }

  u8(v: number): void {
    if (this.len + 1 > this.buf.length) this.grow(1);
    this.buf[this.len++] = v;
  }

  /** Unsigned varint, 0 <= v <= 2^53. */
  uvar(v: number): void {
    if (this.len + 8 > this.buf.length) this.grow(8);
    const b = this.buf;
    if (v < 0x80) {
      b[this.len++] = v;
      return;
    }
    if (v < 0x10000000) {
      while (v >= 0x80) {
        b[this.len++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      b[this.len++] = v;
      return;
    }
    while (v >= 0x80) {
      b[this.len++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    b[this.len++] = v;
  }

  svar(v: number): void {
    this.uvar(zigzag(v));
  }

  f64(v: number): void {
    if (this.len + 8 > this.buf.length) this.grow(8);
    f64[0] = v;
    if (LITTLE) this.buf.set(f64Bytes, this.len);
    else for (let i = 0; i < 8; i++) this.buf[this.len + i] = f64Bytes[7 - i];
    this.len += 8;
  }

  u32(v: number): void {
    if (this.len + 4 > this.buf.length) this.grow(4);
    const b = this.buf;
    b[this.len++] = v & 0xff;
    b[this.len++] = (v >>> 8) & 0xff;
    b[this.len++] = (v >>> 16) & 0xff;
    b[this.len++] = v >>> 24;
  }

  bytes(src: Uint8Array): void {
    if (this.len + src.length > this.buf.length) this.grow(src.length);
    this.buf.set(src, this.len);
    this.len += src.length;
  }

  /**
   * A string: varint (byte length * 2 + form), then its bytes: UTF-8 (form 0), or UTF-16LE (form 1)
   * for a string with a lone surrogate, which UTF-8 cannot carry.
   */
  str(s: string): void {
    const wellFormed = (s as string & { isWellFormed?: () => boolean }).isWellFormed?.() ?? !/[\ud800-\udfff]/.test(s);
    if (wellFormed) {
      const max = s.length * 3;
      if (this.len + max + 8 > this.buf.length) this.grow(max + 8);
      // write the bytes after room for the longest varint, then move them if the varint is shorter
      const start = this.len + varintLength(max * 2);
      const n = textEncoder.encodeInto(s, this.buf.subarray(start)).written!;
      const head = varintLength(n * 2);
      if (head !== start - this.len) this.buf.copyWithin(this.len + head, start, start + n);
      this.uvar(n * 2);
      this.len += n;
    } else {
      const b = Buffer.from(s, 'utf16le');
      this.uvar(b.length * 2 + 1);
      this.bytes(b);
    }
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

const textEncoder = new TextEncoder();

export function varintLength(v: number): number {
  let n = 1;
  while (v >= 0x80) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

export class ByteReader {
  pos = 0;
  private buffer: Buffer;

  constructor(readonly buf: Uint8Array, private readonly what: string, pos = 0, readonly end = buf.length) {
    this.pos = pos;
    this.buffer = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  fail(message: string): never {
    throw new ChunkError(`${this.what}: ${message}`);
  }

  u8(): number {
    if (this.pos >= this.end) this.fail('ends early');
    return this.buf[this.pos++];
  }

  uvar(): number {
    const b = this.buf;
    let p = this.pos;
    if (p < this.end && b[p] < 0x80) {
      this.pos = p + 1;
      return b[p];
    }
    let v = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (p >= this.end) this.fail('ends early');
      if (i === 8) this.fail('varint too long');
      const x = b[p++];
      v += (x & 0x7f) * scale;
      scale *= 128;
      if (x < 0x80) break;
    }
    if (v > TWO_53) this.fail('varint out of range');
    this.pos = p;
    return v;
  }

  /** A count or length that must fit in what is left (each item taking at least `unit` bytes). */
  count(unit = 1, max = Number.MAX_SAFE_INTEGER): number {
    const n = this.uvar();
    if (n * unit > this.end - this.pos || n > max) this.fail(`count ${n} larger than the data`);
    return n;
  }

  svar(): number {
    return unzigzag(this.uvar());
  }

  f64(): number {
    if (this.pos + 8 > this.end) this.fail('ends early');
    if (LITTLE) f64Bytes.set(this.buf.subarray(this.pos, this.pos + 8));
    else for (let i = 0; i < 8; i++) f64Bytes[7 - i] = this.buf[this.pos + i];
    this.pos += 8;
    return f64[0];
  }

  u32(): number {
    if (this.pos + 4 > this.end) this.fail('ends early');
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
  }

  bytes(n: number): Uint8Array {
    if (n > this.end - this.pos) this.fail('ends early');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  str(): string {
    const h = this.uvar();
    const n = Math.floor(h / 2);
    if (n > this.end - this.pos) this.fail('string longer than the data');
    const p = this.pos;
    this.pos += n;
    if (h % 2 === 0) return this.buffer.toString('utf8', p, p + n);
    if (n % 2) this.fail('odd UTF-16 length');
    return this.buffer.toString('utf16le', p, p + n);
  }

  done(): void {
    if (this.pos !== this.end) this.fail(`${this.end - this.pos} bytes left over`);
  }
}

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** CRC-32 (the zlib polynomial). */
export function crc32(b: Uint8Array, from = 0, to = b.length): number {
  let c = -1;
  for (let i = from; i < to; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
