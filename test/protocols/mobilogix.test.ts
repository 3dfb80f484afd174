import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/mobilogix.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('mobilogix replies', () => {
  it('answers the login with the server time, S1 and 1', () => {
    const r = decode('[2020-12-01 14:00:22,T1,1,V1.1.1,201951132031,,,12345678,724108005415815,359366080211420]');
    expect(r.deviceId).toBe('201951132031');
    expect(r.reply?.toString()).toBe('[2025-02-22 01:02:03,S1,1]');
  });
  it('sends nothing back for reports', () => {
    expect(decode('[2020-10-25 20:45:09,T9,1,V1.2.3,201951132044,59,10.50,701,-25.236860,-45.708530,0,314]').reply).toBeUndefined();
  });
});

describe('mobilogix decoding', () => {
  it('reads a position report with supply voltage, battery and cell', () => {
    const [f] = decode('[2021-09-30 20:06:35,T21,1,V1.3.5,201950130047,37,14.97,092,-23.494715,-46.851341,0,240,4.08,0,19516,4431,0.78,724,10,09111,00771,31,4680]').records!;
    expect(f).toMatchObject({ time: Date.UTC(2021, 8, 30, 20, 6, 35), valid: true, lat: -23.494715, lng: -46.851341, speed: 0, course: 240 });
    expect(f.attributes).toMatchObject({ type: 'T21', status: 0x37, power: 14.97, battery: 4.08 });
    expect(f.cells).toEqual([{ mcc: 724, mnc: 10, lac: 9111, cid: 771 }]);
  });
  it('reads a status report without position and keeps nothing of T8/T16', () => {
    const [s] = decode('[2021-10-25 20:48:14,T14,1,V1.2.3,201951132044,51,0.50]').records!;
    expect(s.lat).toBeUndefined();
    expect(s.attributes).toMatchObject({ type: 'T14', power: 0.5 });
    expect(decode('[2021-10-25 20:50:16,T16,1,V1.2.3,201951132044,1]').records).toBeUndefined();
  });
  it('refuses malformed messages', () => {
    expect(() => decode('[2021-10-25,T9,1,V,1,59,1,701,-25.2,-45.7,0,314]')).toThrow(DecodeError);
    expect(() => decode('[2021-10-25 20:45:09,T9,1,V,1,59,1,701,-95.2,-45.7,0,314]')).toThrow(DecodeError);
  });
});

describe('mobilogix framer', () => {
  it('cuts [ .. ] and skips line breaks', () => {
    const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
    expect(next('\r\n[a,T8]\r\n[b')).toEqual({ frame: Buffer.from('[a,T8]'), consumed: 8 });
    expect(next('[a,T8')).toBeNull();
    expect(() => next(`[${'1'.repeat(2000)}`)).toThrow(FrameError);
  });
});

describe('mobilogix commands', () => {
  it('switches the relay with the server time', () => {
    const e = (type: string) => protocol.encode!({ type, attributes: {} }, { deviceId: '1', now: NOW, config: {} }).toString();
    expect(e('engineStop')).toBe('[2025-02-22 01:02:03,S6,RELAY=1]');
    expect(e('engineResume')).toBe('[2025-02-22 01:02:03,S6,RELAY=0]');
  });
});
