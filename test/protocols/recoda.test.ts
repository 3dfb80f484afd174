import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/recoda.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });

describe('recoda replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from('0110000008000000', 'hex'), ctx())).toEqual({});
  });
});

describe('recoda decoding', () => {
  it('takes the device id from a link registration', () => {
    const reg = Buffer.concat([Buffer.from('011000202000000001000100', 'hex'), Buffer.from('DEVICE000042'), Buffer.alloc(8)]);
    expect(protocol.decode!(reg, ctx()).deviceId).toBe('DEVICE000042');
  });
  it('reads GPS data: degrees, minutes and seconds, hemispheres from the status', () => {
    const b = Buffer.alloc(8 + 4 + 8 + 1 + 2 + 2 + 4 + 8 + 1);
    let o = b.writeInt32LE(0x20001011, 0);
    o = b.writeUInt32LE(b.length, o);
    o += 4;
    o = b.writeBigUInt64LE(1_700_000_000_000n, o);
    o = b.writeUInt8(1, o);
    o = b.writeUInt16LE(0, o);
    o = b.writeUInt16LE(36, o);
    o = b.writeUInt8(37, o) && b.writeUInt8(30, o + 1); // lon 37° 30'
    o = b.writeUInt8(55, o) && b.writeUInt8(45, o + 1); // lat 55° 45'
    o = b.writeUInt32LE(36, o);
    o = b.writeUInt32LE(0, o);
    b.writeUInt8(0b101, o); // valid, north, east
    const [f] = protocol.decode!(b, ctx('1')).records!;
    expect(f).toMatchObject({ time: 1_700_000_000_000, speed: 36, valid: true, lat: 55.75 });
    expect(f.lng).toBeCloseTo(37.51, 9);
  });
  it('frames by the little-endian total length', () => {
    expect(protocol.createFramer!().next(Buffer.from('0110000008000000ff', 'hex'))!.consumed).toBe(8);
  });
});
