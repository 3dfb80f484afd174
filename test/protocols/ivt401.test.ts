import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/ivt401.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());
const TLN = '(TLN,356917050269732,061117,220046,+21.134126,+74.798561,51,28,204,14,1,5,100,00,0.0,13.92,7.82,23.74,0.0,1,1.33,-9,0,429,4848,67)';

describe('ivt401 replies', () => {
  it('sends nothing back (the devices expect no acknowledgement)', () => {
    expect(decode(TLN).reply).toBeUndefined();
  });
});

describe('ivt401 decoding', () => {
  it('reads a report: time, position, km/h, altitude, satellites, supply, battery, ignition', () => {
    const r = decode(TLN);
    expect(r.deviceId).toBe('356917050269732');
    expect(r.records![0]).toEqual({
      time: Date.UTC(2017, 10, 6, 22, 0, 46),
      valid: true,
      lat: 21.134126,
      lng: 74.798561,
      speed: 51,
      course: 28,
      altitude: 204,
      satellites: 14,
      hdop: 1.33,
      attributes: { type: 'TLN', rssi: 5, input: 1, output: 0, adc1: 0, power: 13.92, battery: 7.82, deviceTemp: 23.74, ignition: true },
    });
  });
  it('records nothing for a report without a date, and refuses garbage', () => {
    expect(decode('(TLB,356917050440515,0,0,+0.0,+0.0,0,0,0,0,0,0,000,00,0.00,12.21,7.95,26.57,0.0,1,1.12,0,0,0,1,90)')).toEqual({ deviceId: '356917050440515' });
    expect(() => decode('(XYZ,1,2)')).toThrow(DecodeError);
  });
});

describe('ivt401 framer', () => {
  it('cuts ( .. )', () => {
    const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
    expect(next('\r\n(TLN,1)(TL')).toEqual({ frame: Buffer.from('(TLN,1)'), consumed: 9 });
    expect(next('(TLN,1')).toBeNull();
    expect(() => next(`(${'1'.repeat(2000)}`)).toThrow(FrameError);
  });
});
