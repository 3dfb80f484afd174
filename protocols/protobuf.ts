/**
 * The protocol-buffers wire format, enough for trackers that send protobuf messages (dolphin, maxpb):
 * a cursor walks a message field by field without copying (`next()`), the caller knows the schema and
 * reads each value as its type; `protoEncode` writes the small answers servers send back.
 */
import { DecodeError } from './types.ts';

export class ProtoReader {
  private at: number;
  /** Field number and wire type of the current field. */
  field = 0;
  wire = 0;
  /** The current field's value when it is a varint (exact up to 2^53). */
  value = 0;
  /** The low and high 32 bits of the last varint read. */
  private low = 0;
  private high = 0;
  /** Where the bytes of a fixed64, length-delimited or fixed32 value lie in `buf`. */
  start = 0;
  end = 0;

  constructor(readonly buf: Buffer, from = 0, private readonly limit = buf.length) {
    this.at = from;
  }

  private varint(): number {
    const buf = this.buf;
    let at = this.at;
    // up to four bytes (28 bits) with integer operations: keys, lengths and most values
    let lo = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (at >= this.limit) throw new DecodeError('protobuf: truncated varint');
      const b = buf[at++];
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.at = at;
        this.low = lo;
        this.high = 0;
        return lo;
      }
    }
    // longer: the low and high 32 bits apart, so that a negative int64 keeps its exact value
    if (at >= this.limit) throw new DecodeError('protobuf: truncated varint');
    let b = buf[at++];
    lo = (lo | ((b & 0x0f) << 28)) >>> 0;
    let hi = (b & 0x7f) >> 4;
    for (let shift = 3; b >= 0x80; shift += 7) {
      if (shift > 31) throw new DecodeError('protobuf: varint too long');
      if (at >= this.limit) throw new DecodeError('protobuf: truncated varint');
      b = buf[at++];
      hi = (hi | ((b & 0x7f) << shift)) >>> 0;
    }
    this.at = at;
    this.low = lo;
    this.high = hi;
    return hi * 0x100000000 + lo;
  }

  /** Step to the next field; false at the end of the message. Throws `DecodeError` for bytes that are not a message. */
  next(): boolean {
    if (this.at >= this.limit) return false;
    const key = this.varint();
    this.field = Math.floor(key / 8);
    this.wire = key % 8;
    if (this.field === 0) throw new DecodeError('protobuf: field 0');
    let size: number;
    switch (this.wire) {
      case 0:
        this.value = this.varint();
        return true;
      case 1:
        size = 8;
        break;
      case 2:
        size = this.varint();
        break;
      case 5:
        size = 4;
        break;
      default:
        throw new DecodeError(`protobuf: wire type ${this.wire}`);
    }
    if (this.at + size > this.limit) throw new DecodeError('protobuf: truncated field');
    this.start = this.at;
    this.end = this.at += size;
    return true;
  }

  private need(wire: number): void {
    if (this.wire !== wire) throw new DecodeError(`protobuf: field ${this.field} has wire type ${this.wire}`);
  }
  /** An int32/int64 varint, negative values (sent as 64-bit two's complement) restored. */
  int(): number {
    this.need(0);
    if (this.high < 0x80000000) return this.value;
    // two's complement of 64 bits: minus (2^64 - value), computed from the halves
    return -((~this.high >>> 0) * 0x100000000 + (~this.low >>> 0) + 1);
  }
  uint(): number {
    this.need(0);
    return this.value;
  }
  /** A sint32/sint64 (zigzag) varint. */
  sint(): number {
    this.need(0);
    return this.value % 2 ? -(this.value + 1) / 2 : this.value / 2;
  }
  sfixed32(): number {
    this.need(5);
    return this.buf.readInt32LE(this.start);
  }
  float(): number {
    this.need(5);
    return this.buf.readFloatLE(this.start);
  }
  fixed32(): number {
    this.need(5);
    return this.buf.readUInt32LE(this.start);
  }
  double(): number {
    this.need(1);
    return this.buf.readDoubleLE(this.start);
  }
  string(): string {
    this.need(2);
    return this.buf.toString('utf8', this.start, this.end);
  }
  /** The embedded message of the current field. */
  message(): ProtoReader {
    this.need(2);
    return new ProtoReader(this.buf, this.start, this.end);
  }
  /** The current field as repeated varints: packed (several) or one. */
  uints(out: number[] = []): number[] {
    if (this.wire === 0) out.push(this.value);
    else {
      const packed = this.message();
      while (packed.at < packed.limit) out.push(packed.varint());
    }
    return out;
  }
}

/** Bytes of a message: `[field, value]` pairs, a number as a varint, a Buffer length-delimited. */
export function protoEncode(fields: Array<[number, number | Buffer]>): Buffer {
  const out: number[] = [];
  const put = (n: number) => {
    do {
      let b = n % 128;
      n = Math.floor(n / 128);
      if (n > 0) b |= 0x80;
      out.push(b);
    } while (n > 0);
  };
  for (const [field, value] of fields) {
    if (typeof value === 'number') {
      put(field * 8);
      put(value);
    } else {
      put(field * 8 + 2);
      put(value.length);
      out.push(...value);
    }
  }
  return Buffer.from(out);
}
