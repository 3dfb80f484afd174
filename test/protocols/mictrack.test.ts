import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/mictrack.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('mictrack decoding', () => {
  it('decodes an R0 fix (km/h, event, battery mV); no answer is sent', () => {
    const r = decode('MT;6;866425031361423;R0;10+190109091803+22.63827+114.02922+2.14+69+5+3744+113');
    expect(r.deviceId).toBe('866425031361423');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2019-01-09T09:18:03.000Z');
    expect(p).toMatchObject({ valid: true, lat: 22.63827, lng: 114.02922, speed: 2.14, course: 69, satellites: 10, attributes: { event: 5, alarm: 'sos', battery: 3.744 } });
  });
  it('decodes Wi-Fi and cell reports at the last fix', () => {
    const c = ctx();
    decode('MT;6;866425031377981;R0;10+190109091803+22.63827+114.02922+2.14+69+2+3744+113', c);
    const [p] = decode('MT;6;866425031377981;R12;190108024848+6a:db:54:5a:79:6d,-91,00:9a:cd:a2:e6:21,-94+0,21681,20616,460+3+3831+0', c).records!;
    expect(p).toMatchObject({ valid: false, lat: 22.63827, attributes: { wifi: '6a:db:54:5a:79:6d@-91 00:9a:cd:a2:e6:21@-94', event: 3, battery: 3.831 } });
    expect(p.cells).toEqual([{ mcc: 460, mnc: 0, lac: 20616, cid: 21681 }]);
    expect(new Date(p.time!).toISOString()).toBe('2019-01-08T02:48:48.000Z');
  });
  it('decodes the low-altitude format with several fixes', () => {
    const { records } = decode('861108032038761$062232.00,A,2238.2832,N,11401.7381,E,0.01,309.62,95.0,131117$062332.00,A,2238.2836,N,11401.7386,E,0.06,209.62,95.0,131117');
    expect(records).toHaveLength(2);
    expect(records![0]).toMatchObject({ valid: true, course: 309.62, altitude: 95 });
    expect(records![0].lat).toBeCloseTo(22.63805, 5);
  });
  it('keeps command answers as results', () => {
    expect(decode('867035041390699 netlock=Success!')).toMatchObject({ deviceId: '867035041390699', records: [{ attributes: { result: 'netlock=Success' } }] });
  });
});

describe('mictrack framer', () => {
  it('cuts lines', () => {
    expect(protocol.createFramer!().next(Buffer.from('MT;1\r\nMT'))).toEqual({ frame: Buffer.from('MT;1'), consumed: 5 });
    expect(() => protocol.createFramer!().next(Buffer.alloc(3000, 0x41))).toThrow(FrameError);
  });
});
