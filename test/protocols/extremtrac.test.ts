import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/extremtrac.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('extremtrac replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('$GPRMC,862106020628733,050859.000,A,1404.8573,N,08710.9967,W,0.00,0,080117,0,,00C8,00218,99,,,,,,0.00').reply).toBeUndefined();
  });
});

describe('extremtrac decoding', () => {
  it('reads the id and the RMC fields', () => {
    const r = decode('$GPRMC,862106020628733,050859.000,A,1404.8573,N,08710.9967,W,0.00,0,080117,0,,00C8,00218,99,,,,,,0.00');
    expect(r.deviceId).toBe('862106020628733');
    expect(r.records![0]).toMatchObject({ time: Date.UTC(2017, 0, 8, 5, 8, 59), valid: true, speed: 0, course: 0 });
    expect(r.records![0].lng).toBeCloseTo(-(87 + 10.9967 / 60), 9);
  });
  it('yields nothing for a plain RMC without the id', () => {
    expect(decode('$GPRMC,092313.299,A,2238.8947,N,11355.2253,E,0.00,311.19,010307,0,,')).toEqual({});
  });
});
