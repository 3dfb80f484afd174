/**
 * Text written straight into bytes, for the text wire formats (Wialon IPS, the JSON webhook): an
 * encoder writes a batch's output into one large buffer (a slab) and takes finished pieces out of it
 * as views, instead of building a string per fix, joining them and converting the result. Converting
 * strings to bytes and the strings themselves cost about half of the encoders' time (docs/retranslators.md,
 * "Encoding step"). Numbers are written as the same text `String(n)` gives.
 *
 * Pieces taken out are never written again: the writer only moves forward, and when a slab is full it
 * starts a new one (the old one lives on while a socket still holds a piece of it), so what was
 * handed to a socket stays as it was.
 */

/** Bytes of a fresh slab at least (several batches' output of a caught-up retranslator), and at most unless a piece needs more. */
const SLAB = 256 * 1024;
const SLAB_MAX = 4 * 1024 * 1024;
/** Integers written digit by digit (beyond, `String`). */
const DIGITS_LIMIT = 2 ** 53;

export class TextBytes {
  buf: Buffer = Buffer.allocUnsafeSlow(SLAB);
  /** The next slab's size: twice the largest piece that moved (a piece seldom straddles two slabs). */
  private slab = SLAB;
  /** Where the piece being written starts, and where the next byte goes. */
  start = 0;
  pos = 0;

  /** Drops an unfinished piece (an encoding that threw). */
  begin(): void {
    this.pos = this.start;
  }

  /** Bytes written since the last `take`. */
  get length(): number {
    return this.pos - this.start;
  }

  /** The piece written since the last `take`, as a view of the slab. */
  take(): Buffer {
    const piece = this.buf.subarray(this.start, this.pos);
    this.start = this.pos;
    return piece;
  }

  /** Makes room for `n` more bytes: a piece that does not fit moves to a new slab (positions relative to `start` stay valid). */
  room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const used = this.pos - this.start;
    this.slab = Math.min(SLAB_MAX, Math.max(this.slab, 2 * (used + n)));
    const next = Buffer.allocUnsafeSlow(Math.max(this.slab, used + n));
    this.buf.copy(next, 0, this.start, this.pos);
    this.buf = next;
    this.start = 0;
    this.pos = used;
  }

  byte(c: number): void {
    if (this.pos >= this.buf.length) this.room(1);
    this.buf[this.pos++] = c;
  }

  /** Text known to be ASCII (names, separators, formatted numbers): a loop beats a native write for short text. */
  ascii(s: string): void {
    const n = s.length;
    if (this.pos + n > this.buf.length) this.room(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Bytes as they are (prepared fragments). */
  bytes(src: Uint8Array): void {
    const n = src.length;
    if (this.pos + n > this.buf.length) this.room(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = src[i];
    this.pos = p;
  }

  /** Any text as UTF-8 (what `Buffer.from(text)` gives); answers the bytes written beyond the text's length (0 for ASCII). */
  utf8(s: string): number {
    if (this.pos + s.length * 3 > this.buf.length) this.room(s.length * 3);
    const n = this.buf.write(s, this.pos, 'utf8');
    this.pos += n;
    return n - s.length;
  }

  /**
   * `String(v)` of a number, without the string (which costs ~150 ns for a fraction) where it is an
   * integer of up to 53 bits or a decimal of up to 7 places below 1e8 (sensor values, most trackers'
   * coordinates): such a decimal has at most 15 digits, so no other decimal as short reads back as
   * the same double, and its digits are the ones `String` writes (fixed notation from 1e-6 on).
   */
  num(v: number): void {
    if (Number.isInteger(v)) {
      if (v < DIGITS_LIMIT && v > -DIGITS_LIMIT) this.int(v);
      else this.ascii(String(v));
      return;
    }
    const a = v < 0 ? -v : v;
    if (a >= 1e-6 && a < 1e8) {
      const n = Math.round(a * 1e7);
      if (n / 1e7 === a) {
        if (v < 0) this.byte(0x2d);
        const whole = Math.floor(n / 1e7);
        let frac = n - whole * 1e7;
        let width = 7;
        while (frac % 10 === 0) {
          frac /= 10;
          width--;
        }
        this.digits(whole, 1);
        this.byte(0x2e);
        this.digits(frac, width);
        return;
      }
    }
    this.ascii(String(v));
  }

  /** The digits of an integer of up to 53 bits (-0 as `0`, as `String` writes it). */
  int(v: number): void {
    if (this.pos + 17 > this.buf.length) this.room(17);
    const b = this.buf;
    if (v < 0) {
      b[this.pos++] = 0x2d;
      v = -v;
    }
    this.digits(v, 1);
  }

  /** The digits of a non-negative integer of up to 53 bits, left-padded with zeros to `width`. */
  digits(v: number, width: number): void {
    if (this.pos + 16 + width > this.buf.length) this.room(16 + width);
    const b = this.buf;
    let n = 1;
    for (let t = v; t >= 10; t = Math.floor(t / 10)) n++;
    if (n < width) {
      for (let i = n; i < width; i++) b[this.pos++] = 0x30;
    }
    let p = this.pos + n;
    this.pos = p;
    if (v < 0x80000000) {
      do {
        const q = (v / 10) | 0;
        b[--p] = 0x30 + (v - q * 10);
        v = q;
      } while (v);
    } else {
      do {
        const q = Math.floor(v / 10);
        b[--p] = 0x30 + (v - q * 10);
        v = q;
      } while (v);
    }
  }

  /** Four upper-case hex digits (the Wialon IPS CRC). */
  hex4(v: number): void {
    if (this.pos + 4 > this.buf.length) this.room(4);
    const b = this.buf;
    for (let shift = 12; shift >= 0; shift -= 4) {
      const d = (v >>> shift) & 0xf;
      b[this.pos++] = d < 10 ? 0x30 + d : 0x37 + d;
    }
  }
}

/** ASCII text as bytes, for fragments written often. */
export const asciiBytes = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
