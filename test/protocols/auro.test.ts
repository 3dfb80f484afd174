import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/auro.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = 'M0028T0000816398975I357325031465123E00001W*****110620150437000068DA#RD01DA240000000001+100408425+013756121100620152137231112240330004400';

describe('auro replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('auro decoding', () => {
  it('reads the fixed-width report', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx())).toEqual({
      deviceId: '357325031465123',
      records: [{ time: Date.UTC(2015, 5, 10, 21, 37, 23), valid: true, lat: 14.260201666666667, lng: 100.68070833333333, course: 111, speed: 0, attributes: { index: 28, batteryLevel: 40, charge: false } }],
    });
  });
});
