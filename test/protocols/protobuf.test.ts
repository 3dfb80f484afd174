/** The shared protocol-buffers reader against hand-made messages. */
import { describe, expect, it } from 'vitest';
import { ProtoReader, protoEncode } from '../../protocols/protobuf.ts';
import { DecodeError } from '../../protocols/types.ts';

const fields = (hex: string) => {
  const out: Array<[number, number]> = [];
  for (const r = new ProtoReader(Buffer.from(hex, 'hex')); r.next(); ) out.push([r.field, r.wire === 0 ? r.value : r.end - r.start]);
  return out;
};

describe('ProtoReader', () => {
  it('reads varints of one to ten bytes', () => {
    expect(fields('0801' + '10ac02' + '18ffffffff0f' + '20ffffffffffffffff01' + '28ffffffffffffffffff01')).toEqual([[1, 1], [2, 300], [3, 2 ** 32 - 1], [4, 2 ** 57 - 1], [5, 2 ** 64 - 1]]);
  });
  it('reads int, sint, float, fixed32, sfixed32, strings, embedded and packed fields', () => {
    const r = new ProtoReader(Buffer.from('08feffffffffffffffff01' + '1003' + '1d0000c03f' + '25ffffffff' + '2a026869' + '32020801' + '3a03018001', 'hex'));
    r.next(); expect(r.int()).toBe(-2);
    r.next(); expect(r.sint()).toBe(-2);
    r.next(); expect(r.float()).toBe(1.5);
    r.next(); expect(r.sfixed32()).toBe(-1);
    r.next(); expect(r.string()).toBe('hi');
    r.next(); const m = r.message(); m.next(); expect([m.field, m.uint()]).toEqual([1, 1]);
    r.next(); expect(r.uints()).toEqual([1, 128]);
    expect(r.next()).toBe(false);
  });
  it('refuses truncated fields, unknown wire types and a value read as the wrong type', () => {
    expect(() => fields('0a05ab')).toThrow(DecodeError);
    expect(() => fields('0f')).toThrow(DecodeError);
    expect(() => fields('08ff')).toThrow(DecodeError);
    expect(() => fields('08ffffffffffffffffffff01')).toThrow('too long');
    const r = new ProtoReader(Buffer.from('0801', 'hex'));
    r.next();
    expect(() => r.float()).toThrow(DecodeError);
  });
  it('encodes varint and length-delimited fields', () => {
    expect(protoEncode([[1, 1], [2, 300], [3, Buffer.from('hi')]]).toString('hex')).toBe('080110ac021a026869');
  });
});
