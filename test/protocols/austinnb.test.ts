import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/austinnb.ts';
import { DecodeError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('austinnb replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('48666666666;2017-01-01 16:31:01;52,1133308410645;21,1000003814697;310;120;2292;1;ORANGE').reply).toBeUndefined();
  });
});

describe('austinnb decoding', () => {
  it('reads comma decimals, azimuth and the sector fields', () => {
    const r = decode('48666666666;2017-01-01 16:31:01;52,1133308410645;21,1000003814697;310;120;2292;1;ORANGE');
    expect(r.deviceId).toBe('48666666666');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2017, 0, 1, 16, 31, 1), valid: true, lat: 52.1133308410645, lng: 21.1000003814697, course: 310,
      attributes: { angle: 120, range: 2292, outOfRange: 1, operator: 'ORANGE' },
    });
  });
  it('refuses anything else', () => {
    expect(() => decode('hello')).toThrow(DecodeError);
  });
});
