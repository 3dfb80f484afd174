import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/sanav.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('sanav', () => {
  it('decodes the RMC fix and the battery; no answer', () => {
    const r = decode('imei=352024028982787&rmc=$GPRMC,103048.000,A,4735.0399,N,01905.2895,E,0.00,0.00,171013,,*05,AUTO-4095mv');
    expect(r.deviceId).toBe('352024028982787');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2013-10-17T10:30:48.000Z');
    expect(p.lat).toBeCloseTo(47.584, 5);
    expect(p.attributes).toEqual({ status: 'AUTO', battery: 4.095 });
  });
  it('reads the IO word: inputs, ignition, outputs, external power, low battery', () => {
    const [p] = decode('imei:1rmc:$GPRMC,015258.000,A,2457.8101,N,12125.5393,E,0.00,0.00,210111,,*18,AUTO,0021,2.1').records!;
    expect(p.attributes).toMatchObject({ in1: true, in2: false, ignition: true, charge: false, alarm: 'lowBattery' });
  });
  it('reads battery level in the V<volts>;<percent>% form', () => {
    const [p] = decode('imei=1234567890&rmc=$GPRMC,091950.00,V,5300.10000,N,00900.14000,E,0.160,,200513,,,A*68,STOP,V3.872;67%,S4').records!;
    expect(p.attributes).toMatchObject({ status: 'STOP', battery: 3.872, batteryLevel: 67 });
    expect(p.valid).toBe(false);
  });
});
