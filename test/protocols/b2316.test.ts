import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/b2316.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (o: unknown, c = ctx()) => protocol.decode!(Buffer.from(JSON.stringify(o)), c);

describe('b2316 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode({ imei: '1', data: [{ tm: 1, st: 1 }] }).reply).toBeUndefined();
  });
});

describe('b2316 decoding', () => {
  it('reads items: fix, cell, Wi-Fi, alarm, temperatures, battery step', () => {
    const c = ctx();
    const records = decode({ imei: '866349041783600', data: [{ tm: 1631162952, gp: '115.8,-31.9' }, { tm: 1631162960, wn: 2, te: '312,363', ba: 3, sn: 80, ci: '505,1,8218,133179149,-108', wi: '101331c17f4f,-74' }] }, c).records!;
    expect(records[0]).toEqual({ time: 1631162952000, valid: true, lat: -31.9, lng: 115.8, attributes: {} });
    expect(records[1]).toMatchObject({
      time: 1631162960000, valid: false, lat: -31.9,
      cells: [{ mcc: 505, mnc: 1, lac: 8218, cid: 133179149, rssi: -108 }],
      attributes: { alarm: 'sos', temp1: 31.2, temp2: 36.3, batteryLevel: 80, rssi: 80, wifi: '10:13:31:c1:7f:4f,-74' },
    });
  });
  it('puts an item at 0,0, not valid, before any fix is known', () => {
    expect(decode({ imei: '1', data: [{ tm: 1766471553, st: 638 }] }).records![0]).toMatchObject({ valid: false, lat: 0, lng: 0, attributes: { steps: 638 } });
  });
});
