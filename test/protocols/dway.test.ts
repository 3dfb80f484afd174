import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/dway.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('dway replies', () => {
  // Not confirmed by a public document: the heartbeat answer, as the widely used open-source server sends it.
  it('answers the heartbeat with 55AA,HB,OK and reports with nothing', () => {
    expect(decode('AA55,HB').reply!.toString()).toBe('55AA,HB,OK\r\n');
    expect(decode('AA55,36,10024,1,171025,161055,36.0294,-79.7881,201, 2.5,111,1000,0000,00000,3578,0,0,0,D').reply).toBeUndefined();
  });
});

describe('dway decoding', () => {
  it('reads a report: bit strings, mV, driver id', () => {
    const r = decode('AA55,1,123456,1,140101,101132,22.5500,113.6770,75,70.5,320,1100,0011,1110,3950,33000,24000,12345678');
    expect(r.deviceId).toBe('123456');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2014, 0, 1, 10, 11, 32), valid: true, lat: 22.55, lng: 113.677, altitude: 75, speed: 70.5, course: 320,
      attributes: { input: 12, output: 3, battery: 3.95, adc1: 33, adc2: 24, driverUniqueId: '12345678' },
    });
  });
});
