import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/visiontek.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('visiontek', () => {
  it('decodes the first layout with the IMEI as identity; no answer', () => {
    const r = decode('$1,AP09BU9397,861785006462448,20,06,14,15,03,28,17267339N,078279407E,060.0,073,0550,11,0,1,0,0,1,1,26,A,1234567890');
    expect(r.deviceId).toBe('861785006462448');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2014-06-20T15:03:28.000Z');
    expect(p).toMatchObject({ valid: true, speed: 60, course: 73, altitude: 550, satellites: 11 });
    expect(p.lat).toBeCloseTo(17.44556, 5);
    expect(p.attributes).toEqual({ odometer: 0, ignition: true, in1: false, in2: false, blocked: true, charge: true, rssi: 26, driverUniqueId: '1234567890' });
  });
  it('decodes the second layout: decimal degrees, inputs and outputs', () => {
    const [p] = decode('$1,VMC,358072044271838,26,10,15,10,43,20,17.066418N,080.395667E,000.0,285,00.8,0074,6390,1,0,0,0,0,1,0,0,01.50,00.00,00,00,0000,12.7,4.0,24,10,0000000000000,A,0').records!;
    expect(p).toMatchObject({ lat: 17.066418, lng: 80.395667, hdop: 0.8, altitude: 74, valid: true });
    expect(p.attributes).toMatchObject({ odometer: 6390000, in1: true, in2: false, out2: true, adc1: 1.5 });
  });
  it('yields nothing for a report without a fix', () => {
    expect(decode('$1,1234567890,02,06,11,17,07,45,00000000,000000000,00.0,0,0,V')).toEqual({});
  });
});
