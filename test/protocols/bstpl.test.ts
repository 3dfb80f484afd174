import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/bstpl.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('bstpl replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('BSTPL$1,AP12AP3456,A,130720,160552,27.244183,N,83.673973,E,20,156,183,17,0,11,1,0,0,0,00.00,00,04.16,15_V1_0_0,89917380578146790443,12.16').reply).toBeUndefined();
  });
});

describe('bstpl decoding', () => {
  it('reads the first layout', () => {
    const [f] = decode('BSTPL$8,AP12AP3456,A,130720,160552,27.244183,N,83.673973,E,20,156,183,17,1,11,1,0,0,0,00.00,00,04.16,15_V1_0_0,89917380578146790443,12.16').records!;
    expect(f).toEqual({
      time: Date.UTC(2020, 6, 13, 16, 5, 52), valid: true, lat: 27.244183, lng: 83.673973, speed: 20, course: 183, satellites: 17,
      attributes: { odometer: 156000, alarm: 'tampering', boxOpen: true, rssi: 11, charge: true, ignition: false, engine: false, blocked: false, adc1: 0, battery: 4.16, versionFw: '15_V1_0_0', iccid: '89917380578146790443', power: 12.16 },
    });
  });
  it('reads the CAN layout', () => {
    const [f] = decode('BSTPL$1,861409078693513,A,090525,124513,17.348024,N,78.515709,E,0,0,000,00,20,0,04.16,1,1,11.84,0000,0,17L_LDM_V1_0,8991000921993669778F,{1500,12,40,3,90.00,85.50}').records!;
    expect(f.attributes).toMatchObject({ rssi: 20, power: 11.84, rpm: 1500, obdOdometer: 12, fuel: 40, gear: 3, engineTemp: 90, coolantTemp: 85.5 });
  });
});
