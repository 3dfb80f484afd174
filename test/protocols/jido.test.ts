import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/jido.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('jido replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('*12345678910101000,03,130517,160435,1820.5845,N,07833.2478,E,1,58').reply).toBeUndefined();
  });
});

describe('jido decoding', () => {
  it('reads a full report', () => {
    const [f] = decode('*12345678910101000,01,A,130517,160435,1820.5845,N,07833.2478,E,20,0,067,045,05,28,26,1,075,Y,1,0000,0000,0000,59').records!;
    expect(f).toMatchObject({ time: Date.UTC(2017, 4, 13, 16, 4, 35), valid: true, speed: 20, course: 67, altitude: 45, satellites: 5, attributes: { odometer: 0, charge: true, batteryLevel: 75, mode: 'Y', blocked: true } });
  });
  it('maps type 3 to a low-battery alarm on the short form', () => {
    expect(decode('*12345678910101000,03,130517,160435,1820.5845,N,07833.2478,E,1,58').records![0]).toMatchObject({ valid: true, attributes: { alarm: 'lowBattery' } });
  });
});
