import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/r16h.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('r16h replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('@LINK,356823031235028')).toEqual({ deviceId: '356823031235028' });
  });
});

describe('r16h decoding', () => {
  it('reads a GPS report with strap and alarm', () => {
    const [f] = decode('@GPSD,356823031235028,S,20260520,000133,01.34587,N,103.71993,E,0,111,36,72,R,ULK').records!;
    expect(f).toEqual({
      time: Date.UTC(2026, 4, 20, 0, 1, 33), valid: true, lat: 1.34587, lng: 103.71993, speed: 0, course: 111, altitude: 36,
      attributes: { batteryLevel: 72, strapLocked: false, archive: true, alarm: 'removing' },
    });
  });
  it('reads a cell report as a record without position', () => {
    const [f] = decode('@LBSD,356823031235028,R,20260616,092110,302-490-75f8-61c3715:-111,,,21,L,').records!;
    expect(f).toEqual({ time: Date.UTC(2026, 5, 16, 9, 21, 10), cells: [{ mcc: 302, mnc: 490, lac: 0x75f8, cid: 0x61c3715, rssi: -111 }], attributes: { batteryLevel: 21, strapLocked: true } });
  });
});
