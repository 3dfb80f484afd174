import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/t57.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const F1 = '*T57#F1#0123456789#041117#152900#1258.9653#N#07738.4169#E#00000000000000000000#0.000#926.300#A2#4.0#';

describe('t57 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(F1), ctx()).reply).toBeUndefined();
  });
});

describe('t57 decoding', () => {
  it('reads a report', () => {
    const r = protocol.decode!(Buffer.from(F1), ctx());
    expect(r.deviceId).toBe('0123456789');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2017, 10, 4, 15, 29), valid: true, speed: 0, altitude: 926.3, attributes: { battery: 4 } });
  });
  it('frames by counting 14 # (12 for F3)', () => {
    const f3 = '*T57#F3#0123456789#041117#152900#1258.9653#N#07738.4169#E#I#9674432345#340#';
    expect(protocol.createFramer!().next(Buffer.from(F1 + f3))!.frame.toString()).toBe(F1);
    expect(protocol.createFramer!().next(Buffer.from(f3 + F1))!.frame.toString()).toBe(f3);
    expect(protocol.createFramer!().next(Buffer.from(F1.slice(0, 40)))).toBeNull();
  });
});
