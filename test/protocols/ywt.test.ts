import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/ywt.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('ywt replies', () => {
  // Not confirmed by a public document: the %AT+ answers, as the widely used open-source server sends them.
  it('answers a synchronisation with %AT+SN= and what follows the colon', () => {
    expect(decode('%SN,0417061042:0,0,140117041203,404').reply!.toString()).toBe('%AT+SN=:0,0,140117041203,404');
    expect(decode('%SN,0417061042:0,0,140117041203,404,9,9').reply!.toString()).toBe('%AT+SN=:0,0,140117041203,404');
  });
  it('acknowledges KP and EP reports with their report id, other reports not', () => {
    expect(decode('%KP,3000012345:0,090807183115,E114.602345,N22.069725,,30,160,5,0,00;').reply!.toString()).toBe('%AT+KP=0\r\n');
    expect(decode('%RP,3000012345:0,090807182815,E114.602345,N22.069725,,30,160,4,0,00').reply).toBeUndefined();
  });
});

describe('ywt decoding', () => {
  it('reads a report', () => {
    const r = decode('%RP,1222102985:1,170509033842,E102.146563,N14.582175,,0,320,10,0,00-00-00-00-00-00-00-00-00-00-00-00,,1db2-02b3-52004');
    expect(r.deviceId).toBe('1222102985');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2017, 4, 9, 3, 38, 42), valid: true, lat: 14.582175, lng: 102.146563, altitude: 0, speed: 0, course: 320, satellites: 10,
      attributes: { type: 'RP', status: '00-00-00-00-00-00-00-00-00-00-00-00' },
    });
  });
});
