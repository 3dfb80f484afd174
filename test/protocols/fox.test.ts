import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/fox.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());
const MSG = '<fox><gps id="10" data="51,A,010416,085317,4444.4158,N,02025.4466,E,1,182,,1110111111110111 141 0 0 0 0 0 10010000 10142,018C81851800009B"/></fox>';

describe('fox replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(MSG).reply).toBeUndefined();
  });
});

describe('fox decoding', () => {
  it('reads the data attribute: bit strings, power / 10, odometer', () => {
    const r = decode(MSG);
    expect(r.deviceId).toBe('10');
    expect(r.records![0]).toMatchObject({
      time: Date.UTC(2016, 3, 1, 8, 53, 17), valid: true, speed: 1, course: 182,
      attributes: { status: 51, input: 0b1110111111110111, power: 14.1, temp1: 0, rpm: 0, fuel: 0, adc1: 0, adc2: 0, output: 0b10010000, odometer: 10142, statusData: '018C81851800009B' },
    });
  });
  it('frames at </fox>', () => {
    const f = protocol.createFramer!().next(Buffer.from(MSG + '<fox>'));
    expect(f!.frame.toString()).toBe(MSG);
  });
});
