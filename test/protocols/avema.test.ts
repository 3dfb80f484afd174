import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/avema.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('avema replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('8,20180927150956,19.154864,49.124862,7,56,0,12,3,0.0,0,0.02,14.01,0,0,26,0,219-2,65534,10255884,0.01').reply).toBeUndefined();
  });
});

describe('avema decoding', () => {
  it('reads a report with the cell, battery and RFID', () => {
    const r = decode('1000000000,20190527072358,121.646024,25.062135,0,0,0,0,10,0.0,1,0.02,12.32,0,0,15,2,466-5,10275,0,0.01,65EB812A000104E0,8000001234,NormanChang');
    expect(r.deviceId).toBe('1000000000');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2019, 4, 27, 7, 23, 58), valid: true, lat: 25.062135, lng: 121.646024, speed: 0, course: 0, altitude: 0, satellites: 0,
      cells: [{ mcc: 466, mnc: 5, lac: 0x10275, cid: 0, rssi: 15 }],
      attributes: { event: 10, odometer: 0, input: 1, adc1: 0.02, adc2: 12.32, output: 0, roaming: false, battery: 0.01, driverUniqueId: '65EB812A000104E0' },
    });
  });
});
