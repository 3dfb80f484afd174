import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/techtlt.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('techtlt replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('002422269,INFOGPRS,V Bat=13.8,TEMP=23,I TIM,15\r\n').reply).toBeUndefined();
  });
});

describe('techtlt decoding', () => {
  it('reads a position with its cell numbers', () => {
    expect(decode('002422269*POS=Y,16:21:20,25/11/09,3809.8063N,01444.7438E,4.17,117.23,0.4,09,40076,56341\r\n').records![0]).toMatchObject({
      time: Date.UTC(2009, 10, 25, 16, 21, 20), valid: true, speed: 4.17, course: 117.23, altitude: 0.4, satellites: 9, attributes: { lac: 40076, cid: 56341 },
    });
  });
  it('reads a status', () => {
    expect(decode('002422269,INFOGPRS,V Bat=13.8,TEMP=23,I TIM,15\r\n').records).toEqual([{ time: Date.UTC(2025, 0, 1), attributes: { battery: 13.8, deviceTemp: 23, rssi: 15 } }]);
  });
});
