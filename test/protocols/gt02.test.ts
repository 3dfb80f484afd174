import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/gt02.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const hex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const DATA = '68682500000123456789012345000110010101010101026b3f3e026b3f3e000000000000000000010d0a';
const HEARTBEAT = '68680f0504035889905831401700df1a00000d0a';

describe('gt02 replies', () => {
  it('answers a heartbeat with 54 68 1A 0D 0A', () => {
    expect(hex(HEARTBEAT).reply?.toString('hex')).toBe('54681a0d0a');
  });
  it('answers nothing to data and command answers', () => {
    expect(hex(DATA).reply).toBeUndefined();
    expect(hex('6868150000035889905895258400831c07415045584f4b210d0a').reply).toBeUndefined();
  });
});

describe('gt02 decoding', () => {
  it('data: date, coordinates in 1/30000 minute, hemisphere flags, speed, course', () => {
    const r = hex(DATA);
    expect(r.deviceId).toBe('123456789012345');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2001, 0, 1, 1, 1, 1), valid: true, speed: 0, course: 0, attributes: { index: 1 } });
    expect(r.records![0].lat).toBeCloseTo(-22.5461, 4);
    expect(r.records![0].lng).toBeCloseTo(-22.5461, 4);
  });
  it('heartbeat: power level and signal; command answer text', () => {
    const c = ctx();
    expect(hex(HEARTBEAT, c).records![0].attributes).toEqual({ index: 0xdf, power: 5, rssi: 4 });
    expect(hex('6868150000035889905895258400831c07415045584f4b210d0a', c).records![0].attributes.result).toBe('APEXOK!');
  });
});

describe('gt02 framer', () => {
  it('cuts frames by the length byte', () => {
    const hb = Buffer.from(HEARTBEAT, 'hex');
    expect(protocol.createFramer!().next(Buffer.concat([hb, hb]))).toEqual({ frame: hb, consumed: hb.length });
    expect(protocol.createFramer!().next(hb.subarray(0, 10))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.from('787805', 'hex'))).toThrow(FrameError);
  });
});
