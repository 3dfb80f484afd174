import { DecodeError } from './types.ts';

// Unchecked integer reads, for a caller that has checked the bounds (a hot loop over a frame).
// Buffer's own readUInt16BE & co validate their offset argument through a wrapper on every call,
// which costs more than the read itself.
export const u16be = (b: Uint8Array, o: number): number => (b[o] << 8) | b[o + 1];
export const i16be = (b: Uint8Array, o: number): number => ((b[o] << 24) >> 16) | b[o + 1];
export const u24be = (b: Uint8Array, o: number): number => (b[o] << 16) | (b[o + 1] << 8) | b[o + 2];
export const u32be = (b: Uint8Array, o: number): number => b[o] * 0x1000000 + ((b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]);
export const i32be = (b: Uint8Array, o: number): number => (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3];
const u16le = (b: Uint8Array, o: number): number => b[o] | (b[o + 1] << 8);
const u32le = (b: Uint8Array, o: number): number => b[o + 3] * 0x1000000 + ((b[o + 2] << 16) | (b[o + 1] << 8) | b[o]);

/**
 * A bounds-checked cursor over a frame. Every read past the end throws `DecodeError`, so a
 * truncated or mutated frame becomes a counted bad frame instead of an unexpected RangeError.
 */
export class Reader {
  pos: number;
  readonly end: number;
  constructor(readonly buf: Buffer, start = 0, end = buf.length) {
    this.pos = start;
    this.end = Math.min(end, buf.length);
  }
  get remaining(): number {
    return this.end - this.pos;
  }
  private need(n: number): number {
    if (n < 0 || this.pos + n > this.end) throw new DecodeError(`truncated: need ${n} bytes at ${this.pos}, have ${this.end - this.pos}`);
    const at = this.pos;
    this.pos += n;
    return at;
  }
  skip(n: number): this {
    this.need(n);
    return this;
  }
  u8(): number { return this.buf[this.need(1)]; }
  i8(): number { return (this.buf[this.need(1)] << 24) >> 24; }
  u16(): number { return u16be(this.buf, this.need(2)); }
  i16(): number { return i16be(this.buf, this.need(2)); }
  u24(): number { return u24be(this.buf, this.need(3)); }
  u32(): number { return u32be(this.buf, this.need(4)); }
  i32(): number { return i32be(this.buf, this.need(4)); }
  /** 64-bit unsigned as a number (exact up to 2^53, which covers times and counters). */
  u64(): number { return Number(this.buf.readBigUInt64BE(this.need(8))); }
  i64(): number { return Number(this.buf.readBigInt64BE(this.need(8))); }
  u16le(): number { return u16le(this.buf, this.need(2)); }
  i16le(): number { return (u16le(this.buf, this.need(2)) << 16) >> 16; }
  u24le(): number { return this.buf.readUIntLE(this.need(3), 3); }
  u32le(): number { return u32le(this.buf, this.need(4)); }
  i32le(): number { return u32le(this.buf, this.need(4)) | 0; }
  u64le(): number { return Number(this.buf.readBigUInt64LE(this.need(8))); }
  i64le(): number { return Number(this.buf.readBigInt64LE(this.need(8))); }
  f32(): number { return this.buf.readFloatBE(this.need(4)); }
  f32le(): number { return this.buf.readFloatLE(this.need(4)); }
  f64(): number { return this.buf.readDoubleBE(this.need(8)); }
  f64le(): number { return this.buf.readDoubleLE(this.need(8)); }
  /** Unsigned big-endian integer of `n` bytes (1..6). */
  uint(n: number): number { return this.buf.readUIntBE(this.need(n), n); }
  uintle(n: number): number { return this.buf.readUIntLE(this.need(n), n); }
  bytes(n: number): Buffer {
    const at = this.need(n);
    return this.buf.subarray(at, at + n);
  }
  // straight from the frame: a subarray would make a Buffer object just to read it once
  ascii(n: number): string {
    const at = this.need(n);
    return this.buf.toString('latin1', at, at + n);
  }
  hex(n: number): string {
    const at = this.need(n);
    return this.buf.toString('hex', at, at + n);
  }
  /** Packed BCD digits of `n` bytes, e.g. IMEIs and dates in many Chinese protocols. */
  bcd(n: number): string { return this.hex(n); }
  peekU8(offset = 0): number {
    if (this.pos + offset >= this.end) throw new DecodeError('truncated');
    return this.buf[this.pos + offset];
  }
}

/** Lookup table of a reflected CRC-16 polynomial: eight times faster than bit by bit. */
function reflectedTable(poly: number): Uint16Array {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let b = 0; b < 8; b++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[i] = c;
  }
  return t;
}
const IBM_TABLE = reflectedTable(0xa001);
const X25_TABLE = reflectedTable(0x8408);

/** CRC-16/IBM (ARC, reflected 0xA001, init 0): Teltonika and others. */
export function crc16Ibm(buf: Uint8Array, start = 0, end = buf.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ IBM_TABLE[(crc ^ buf[i]) & 0xff];
  return crc;
}

/** CRC-16/KERMIT (reflected 0x8408, init 0, no final xor): Ruptela. */
export function crc16Kermit(buf: Uint8Array, start = 0, end = buf.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ X25_TABLE[(crc ^ buf[i]) & 0xff];
  return crc;
}

/** CRC-16/X-25 (reflected 0x8408, init and xorout 0xFFFF): GT06/Concox and others. */
export function crc16X25(buf: Buffer, start = 0, end = buf.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ X25_TABLE[(crc ^ buf[i]) & 0xff];
  return ~crc & 0xffff;
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF): EGTS headers use CRC-8 + CRC-16 of this family. */
export function crc16CcittFalse(buf: Buffer, start = 0, end = buf.length): number {
  return crc16Ccitt(buf, start, end, 0xffff);
}

/** CRC-16/XMODEM (poly 0x1021, init 0): Maxtrack and others. */
export function crc16Xmodem(buf: Buffer, start = 0, end = buf.length): number {
  return crc16Ccitt(buf, start, end, 0);
}

function crc16Ccitt(buf: Buffer, start: number, end: number, init: number): number {
  let crc = init;
  for (let i = start; i < end; i++) {
    crc ^= buf[i] << 8;
    for (let b = 0; b < 8; b++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** CRC-16/MODBUS (reflected 0xA001, init 0xFFFF): Galileosky and others. */
export function crc16Modbus(buf: Uint8Array, start = 0, end = buf.length): number {
  let crc = 0xffff;
  for (let i = start; i < end; i++) crc = (crc >>> 8) ^ IBM_TABLE[(crc ^ buf[i]) & 0xff];
  return crc;
}

const MAXIM_TABLE = (() => {
  const t = new Uint8Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let b = 0; b < 8; b++) c = c & 1 ? (c >>> 1) ^ 0x8c : c >>> 1;
    t[i] = c;
  }
  return t;
})();

/** CRC-8/MAXIM (Dallas 1-Wire: reflected 0x31, init 0): BWS and others. */
export function crc8Maxim(buf: Uint8Array, start = 0, end = buf.length): number {
  let crc = 0;
  for (let i = start; i < end; i++) crc = MAXIM_TABLE[crc ^ buf[i]];
  return crc;
}

/** XOR of all bytes in the range: JT808 and others. */
export function xorSum(buf: Buffer, start = 0, end = buf.length): number {
  let x = 0;
  for (let i = start; i < end; i++) x ^= buf[i];
  return x;
}

/** Convert knots to km/h (many protocols report knots). */
export const knotsToKmh = (knots: number): number => knots * 1.852;
/** Convert NMEA ddmm.mmmm to decimal degrees. */
export function nmeaDegrees(value: number): number {
  const deg = Math.trunc(value / 100);
  return deg + (value - deg * 100) / 60;
}

