import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/manpower.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = 'simei:352581250259539,,,tracker,51,24,1.73,130426023608,A,3201.5462,N,03452.2975,E,0.01,28B9,1DED,425,01,1x0x0*0x1*60x+2,en-us,';

describe('manpower replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG), ctx()).reply).toBeUndefined();
  });
});

describe('manpower decoding', () => {
  it('reads the status word and the fix', () => {
    const r = protocol.decode!(Buffer.from(MSG), ctx());
    expect(r.deviceId).toBe('352581250259539');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2013, 3, 26, 2, 36, 8), valid: true, attributes: { status: 'tracker' } });
    expect(r.records![0].lat).toBeCloseTo(32.02577, 5);
  });
});
