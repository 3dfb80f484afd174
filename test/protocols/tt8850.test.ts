import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/tt8850.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());
const FRI = '\x00\x04,007F,0,GTFRI,020102,867844000667538,4142726856,0,0,1,3,1.6,0,997.3,-66.830786,10.483394,20171212171418,0734,0004,041A,4220,69,20171212171657,FF61';

describe('tt8850 replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode(FRI).reply).toBeUndefined();
  });
});

describe('tt8850 decoding', () => {
  it('finds the position by its shape and reads the cell', () => {
    const r = decode(FRI);
    expect(r.deviceId).toBe('867844000667538');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2017, 11, 12, 17, 14, 18), valid: true, lat: 10.483394, lng: -66.830786, hdop: 3, speed: 1.6, course: 0, altitude: 997.3,
      cells: [{ mcc: 734, mnc: 4, lac: 0x041a, cid: 0x4220 }], attributes: { type: 'FRI' },
    });
  });
  it('yields nothing for a report without a position', () => {
    expect(decode('\x00\x04,0017,0,GTPNA,,867844000400914,,0,0,1,0,,,,0,0,,,,,,99,20150404190153,0601')).toEqual({ deviceId: '867844000400914' });
  });
});
