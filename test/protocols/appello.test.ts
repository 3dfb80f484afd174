import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/appello.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('appello replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('FOLLOWIT,860719028336968,160211221959,-12.112660,-77.045258,1,0,6,116,F,716,17,4E85,050C,29,,4.22,,39,999/00/00,,,,,,46206,').reply).toBeUndefined();
  });
});

describe('appello decoding', () => {
  it('reads a GNSS report with its cell and battery', () => {
    const [f] = decode('FOLLOWIT,860719028336968,160211221959,-12.112660,-77.045258,1,0,6,116,F,716,17,4E85,050C,29,,4.22,,39,999/00/00,,,,,,46206,').records!;
    expect(f).toEqual({
      time: Date.UTC(2016, 1, 11, 22, 19, 59), satellites: 6, lat: -12.11266, lng: -77.045258, valid: true, speed: 1, course: 0, altitude: 116,
      cells: [{ mcc: 716, mnc: 17, lac: 0x4e85, cid: 0x050c, rssi: 29 }], attributes: { battery: 4.22 },
    });
  });
  it('takes a network position without time at its arrival, with the cell list and Wi-Fi', () => {
    const [f] = decode('FOLLOWIT,867273024233699,UTCTIME,0.000000,0.000000,0,0,0,0,L,262:3:c703:4bf8:64:255|262:3:c703:9a18:45|,02,44,,31,,4.20,0,0,86/44/24,,,,26,02264DFF6E16:69|,34925').records!;
    expect(f).toEqual({
      time: Date.UTC(2025, 0, 1), satellites: 0,
      cells: [{ mcc: 262, mnc: 3, lac: 0xc703, cid: 0x4bf8, rssi: 64 }, { mcc: 262, mnc: 3, lac: 0xc703, cid: 0x9a18, rssi: 45 }],
      attributes: { battery: 4.2, wifi: '02:26:4d:ff:6e:16,69' },
    });
  });
});
