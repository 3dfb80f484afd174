import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/retranslator.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const hex = (h: string) => Buffer.from(h, 'hex');

// The example packet of the protocol description (Wialon Retranslator 1.0, Gurtam).
const PACKET =
  '74000000333533393736303133343435343835004b0bfb70000000030bbb000000270102706f73696e666f00a027afdf5d9848403ac7253383dd4b400000000000805a40003601460b0bbb0000001200047077725f657874002b8716d9ce973b400bbb00000011010361766c5f696e707574730000000001';

describe('retranslator replies', () => {
  it('confirms every packet with the byte 0x11 (as the protocol description says)', () => {
    expect(protocol.decode!(hex(PACKET), ctx()).reply?.toString('hex')).toBe('11');
  });
});

describe('retranslator decoding', () => {
  it('decodes the unit, time, position and named values of the example packet', () => {
    const r = protocol.decode!(hex(PACKET), ctx());
    expect(r.deviceId).toBe('353976013445485');
    const [rec] = r.records!;
    expect(new Date(rec.time!).toISOString()).toBe('2009-11-24T15:27:44.000Z');
    expect(rec.lat).toBeCloseTo(55.7305664, 6);
    expect(rec.lng).toBeCloseTo(49.1903648, 6);
    expect(rec).toMatchObject({ valid: true, altitude: 106, speed: 54, course: 326, satellites: 11, attributes: { power: 27.593, input: 1 } });
  });
  it('gives a packet without a position the unit\'s last fix, not valid', () => {
    const c = ctx();
    protocol.decode!(hex(PACKET), c);
    // the same packet with the posinfo block's name changed to an unknown binary block
    const noFix = hex(PACKET.replace('706f73696e666f', '706f73696e666e'));
    const [rec] = protocol.decode!(noFix, c).records!;
    expect(rec).toMatchObject({ valid: false });
    expect(rec.lat).toBeCloseTo(55.7305664, 6);
  });
});

describe('retranslator framer', () => {
  it('cuts packets by their size', () => {
    const f = protocol.createFramer!();
    expect(f.next(hex(PACKET + PACKET))?.consumed).toBe(PACKET.length / 2);
    expect(f.next(hex(PACKET.slice(0, 40)))).toBeNull();
    expect(() => f.next(hex('ffffffff00'))).toThrow(FrameError);
  });
});
