import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/easytrack.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('easytrack decoding', () => {
  it('decodes a position: hex date, coordinates in minutes, 0.01 km/h, status flags; no answer is sent', () => {
    const r = decode('*ET,135790246811221,DW,A,180709,16081C,80D74F8D,81ACFAD6,04B0,1C20,00800000,23,0,0348,004491,725,0000000000,00181A8C,0DAC,13.41,15#');
    expect(r.deviceId).toBe('135790246811221');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2024-07-09T22:08:28.000Z');
    expect(p.lat).toBeCloseTo(-0x00d74f8d / 600000, 9);
    expect(p.lng).toBeCloseTo(-0x01acfad6 / 600000, 9);
    expect(p).toMatchObject({ valid: true, speed: 12, course: 72, altitude: 725 });
    expect(p.attributes).toMatchObject({ ignition: true, rssi: 0x23, odometer: 0x4491 * 100, hours: 0x181a8c * 60000, command: 'DW' });
    expect(p.attributes.driverUniqueId).toBeUndefined();
  });
  it('reads status alarms', () => {
    const [p] = decode('*ET,135790246811221,HB,A,0A090D,101C0D,00CF27C6,0413FA4E,0000,0000,00010000,20,4,0000,00F123,100').records!;
    expect(p.attributes.alarm).toBe('sos');
    expect(new Date(p.time!).toISOString()).toBe('2010-09-13T16:28:13.000Z');
  });
  it('decodes OBD values and cell reports', () => {
    const [o] = decode('*ET,358162092884226,OB,BD$V13.6;R01510;S023;P034.9;O035.2;C085;L000.0;XM035.170;#').records!;
    expect(o.attributes).toMatchObject({ power: 13.6, rpm: 1510, obdSpeed: 23, throttle: 34.9, engineLoad: 35.2, coolantTemp: 85, fuelLevel: 0, obdXM: 35.17 });
    const [c] = decode('*ET,354522180593498,JZ,0,20222,262,724,4#').records!;
    expect(c.cells).toEqual([{ mcc: 724, mnc: 4, lac: 262, cid: 20222 }]);
  });
  it('keeps nothing from heartbeats and other messages', () => {
    expect(decode('*ET,358155100054249,MQ')).toEqual({ deviceId: '358155100054249', records: [] });
  });
});

describe('easytrack framer and commands', () => {
  it('cuts at #', () => {
    expect(protocol.createFramer!().next(Buffer.from('x*ET,1,MQ#*ET'))).toEqual({ frame: Buffer.from('*ET,1,MQ#'), consumed: 10 });
    expect(() => protocol.createFramer!().next(Buffer.alloc(2000, 0x41))).toThrow(FrameError);
  });
  it('encodes engine stop/resume and custom commands', () => {
    const encode = (type: string, attributes = {}) => protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString();
    expect(encode('engineStop')).toBe('*ET,123456789012345,FD,Y1#');
    expect(encode('engineResume')).toBe('*ET,123456789012345,FD,Y2#');
    expect(encode('custom', { data: 'SPEED120' })).toBe('*ET,123456789012345,KS,SPEED120#');
  });
});
