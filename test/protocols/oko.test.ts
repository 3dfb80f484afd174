import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/oko.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (s: string, id?: string) => protocol.decode!(Buffer.from(s), ctx(id));

describe('oko replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('{861001001012919,090745,A,4944.302,N,02353.366,E,0.0,225,251120,7,0.27,F9,11.3,1}').reply).toBeUndefined();
  });
});

describe('oko decoding', () => {
  it('reads the first report with its imei: decimal volts', () => {
    const r = decode('{861001001012919,090745,A,4944.302,N,02353.366,E,0.0,225,251120,7,0.27,F9,11.3,1}');
    expect(r.deviceId).toBe('861001001012919');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2020, 10, 25, 9, 7, 45), valid: true, course: 225, satellites: 7, attributes: { adc1: 0.27, event: 'F9', power: 11.3 } });
  });
  it('reads later reports without imei: hex 0.1 V and the inputs byte', () => {
    const [f] = decode('{123456789098765,132810.000,A,4926.4243,N,03203.6831,E,0.08,83.52,131010,07,5C,FB,7A,1,27,,,}').records!;
    expect(f.attributes).toEqual({ adc1: 9.2, event: 'FB', power: 12.2, input: 0x27 });
    expect(decode('{045411.00,A,4924.14243,N,03207.43754,E,0.172,,151117,07,0.00,F9,28.1,2,C2,5n4}', '1').records![0].time).toBe(Date.UTC(2017, 10, 15, 4, 54, 11));
    expect(decode('{045411.00,A,4924.14243,N,03207.43754,E,0.172,,151117,07,0.00,F9,28.1,2,C2,5n4}').records).toBeUndefined();
  });
});
