import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/m2c.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const L1 = '#M2C,2020,P1.B1.H1.F1.R1,101,862462038980016,7,L,0,31,170704,075905,28.647615,77.192970,300,260,0.0,6,7,3,255,11967,0,12,0,0,0,0,0,0,19500,5051,0,27,1*8234';
const L2 = '#M2C,2020,P1.B1.H1.F1.R1,101,862462038980016,8,H,0,33,170704,075906,28.647615,77.192970,300,260,12.5,6,7,0,255,11942,3900,12,0,27.5,0,0,0,0,20300,5051,0,27,1*8217';

describe('m2c replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(`[${L1}\r\n`), ctx()).reply).toBeUndefined();
  });
});

describe('m2c decoding', () => {
  it('reads every line of a batch', () => {
    expect(protocol.decode!(Buffer.from(`[${L1}\r\n${L2}\r\n`), ctx())).toEqual({
      deviceId: '862462038980016',
      records: [
        {
          time: Date.UTC(2017, 6, 4, 7, 59, 5), valid: true, lat: 28.647615, lng: 77.19297, altitude: 300, course: 260, speed: 0, satellites: 6,
          attributes: { index: 7, event: 31, odometer: 7, input: 3, output: 255, power: 11.967, battery: 0, adc1: 12, adc2: 0, temp1: 0 },
        },
        {
          time: Date.UTC(2017, 6, 4, 7, 59, 6), valid: true, lat: 28.647615, lng: 77.19297, altitude: 300, course: 260, speed: 12.5, satellites: 6,
          attributes: { index: 8, event: 33, odometer: 7, input: 0, output: 255, power: 11.942, battery: 3.9, adc1: 12, adc2: 0, temp1: 27.5, archive: true },
        },
      ],
    });
  });
  it('frames a batch at ]', () => {
    const framer = protocol.createFramer!();
    const bytes = Buffer.from(`[${L1}\r\n]\r\n[${L2}`);
    const f = framer.next(bytes)!;
    expect(f.frame.toString()).toBe(`[${L1}\r\n`);
    expect(framer.next(bytes.subarray(f.consumed))).toBeNull();
  });
});
