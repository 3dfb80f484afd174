import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/futureway.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const LOGIN = '41000000622000020,IMEI:354828100002140,battery level:32,network type:7,CSQ:18,Version:FWS03.APP.SVN144.202010231442';
const REPORT = '4100000092A00004\r\nIMEI:354828100002140\r\nGPS:A,201102090140,2233.246582N,11356.300781E,0.000,0.000\r\nWIFI:\r\nLBS:460,0,9763,219992654\r\nbattery level:32\r\nSteps:0\r\n4F42';
const WIFI = '410000009BA00004GPS:V,200902093333,0.000000N,0.000000E,0.000,0.000\r\nWIFI:3,1|90-67-1C-F7-21-6C|52&2|80-89-17-C6-79-A0|54&3|40-F4-20-EF-DD-2A|58\r\nLBS:460,0,46475066,69\r\n6A42';

describe('futureway replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(protocol.decode!(Buffer.from(LOGIN), ctx()).reply).toBeUndefined();
    expect(protocol.decode!(Buffer.from(REPORT), ctx()).reply).toBeUndefined();
  });
});

describe('futureway decoding', () => {
  it('takes the IMEI of a login', () => {
    expect(protocol.decode!(Buffer.from(LOGIN), ctx())).toEqual({ deviceId: '354828100002140' });
  });
  it('reads a report with a fix, a cell, battery level and steps', () => {
    const r = protocol.decode!(Buffer.from(REPORT), ctx());
    expect(r.deviceId).toBe('354828100002140');
    expect(r.records).toHaveLength(1);
    const [f] = r.records!;
    expect(f).toMatchObject({ valid: true, time: Date.UTC(2020, 10, 2, 9, 1, 40), speed: 0, course: 0, cells: [{ mcc: 460, mnc: 0, lac: 9763, cid: 219992654 }], attributes: { batteryLevel: 32, steps: 0 } });
    expect(f.lat).toBeCloseTo(22 + 33.246582 / 60, 9);
    expect(f.lng).toBeCloseTo(113 + 56.300781 / 60, 9);
  });
  it('reads Wi-Fi points and a cell whose id comes first', () => {
    const [f] = protocol.decode!(Buffer.from(WIFI), ctx()).records!;
    expect(f.attributes.wifi).toBe('90:67:1c:f7:21:6c,52;80:89:17:c6:79:a0,54;40:f4:20:ef:dd:2a,58');
    expect(f.cells).toEqual([{ mcc: 460, mnc: 0, lac: 69, cid: 46475066 }]);
  });
  it('frames on the hex length after the start', () => {
    const bytes = Buffer.from(WIFI + LOGIN.slice(0, 12));
    const framer = protocol.createFramer!();
    expect(framer.next(bytes)).toEqual({ frame: Buffer.from(WIFI), consumed: WIFI.length });
    expect(framer.next(bytes.subarray(WIFI.length))).toBeNull();
    expect(() => framer.next(Buffer.from('41zzzzzzzzA0'))).toThrow();
  });
});
