import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/riti.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const MSG = '3b28a2a2056315316d4000008100000000000000005f710000244750524d432c3138303535332e3030302c412c353532342e383437312c4e2c30313133342e313837382c452c302e30302c2c3032313231332c2c2c412a37340d0a00000000000000000000000000000000040404';

describe('riti replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(MSG, 'hex'), ctx()).reply).toBeUndefined();
  });
});

describe('riti decoding', () => {
  it('reads the binary head and the RMC sentence', () => {
    expect(protocol.decode!(Buffer.from(MSG, 'hex'), ctx())).toEqual({
      deviceId: '41634',
      records: [{ time: Date.UTC(2013, 11, 2, 18, 5, 53), valid: true, lat: 55.414118333333334, lng: 11.569796666666665, speed: 0, course: 0, attributes: { mode: 5, command: 99, power: 12.565, distance: 0, tripOdometer: 29023 } }],
    });
  });
});
