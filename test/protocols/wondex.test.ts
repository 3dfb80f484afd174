import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/wondex.ts';
import { type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);

describe('wondex replies', () => {
  it('echoes the keep-alive packet and takes the id from it', () => {
    const r = protocol.decode!(Buffer.from('d0d70b0001ca9a3b', 'hex'), ctx());
    expect(r.deviceId).toBe('1000000001');
    expect(r.reply?.toString('hex')).toBe('d0d70b0001ca9a3b');
  });
  it('does not answer reports', () => {
    expect(decode('2000000108,20151030145404,76.948633,43.354700,0,140,15,100,1,1325,125.4,10.5,0.0').reply).toBeUndefined();
  });
});

describe('wondex decoding', () => {
  it('decodes a report: longitude first, km/h, odometer, inputs, ADC', () => {
    const { deviceId, records } = decode('2000000108,20151030145404,76.948633,43.354700,12,140,15,10,1,1325,125.4,10.5,0.0');
    expect(deviceId).toBe('2000000108');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-10-30T14:54:04.000Z');
    expect(r).toMatchObject({ valid: true, lat: 43.3547, lng: 76.948633, speed: 12, course: 140, altitude: 15, satellites: 10 });
    expect(r.attributes).toMatchObject({ event: 1, odometer: 1325000, adc1: 10.5, adc2: 0 });
    expect(r.attributes.input).toBeUndefined();
  });
  it('reads the battery variant and corrects a GPS week rollover', () => {
    expect(decode('3997324533,20140326074908,28.797603,47.041635,0,48,0,6,2,3.90V,0').records![0].attributes.battery).toBe(3.9);
    const [r] = decode('2005010051,19990925063830,26.106181,44.440225,0,0,0,7,2,0.0,0,,,0').records!;
    expect(new Date(r.time!).toISOString()).toBe('2019-05-11T06:38:30.000Z');
  });
  it('keeps command answers as results at the last fix', () => {
    const c = ctx();
    decode('2000000108,20151030145404,76.948633,43.354700,0,140,15,100,1,1325,125.4,10.5,0.0', c);
    const [r] = decode('$OK:REBOOT', c).records!;
    expect(r).toMatchObject({ lat: 43.3547, valid: false, attributes: { result: '$OK:REBOOT' } });
  });
});

describe('wondex framer and commands', () => {
  it('cuts keep-alives by size and reports at CRLF', () => {
    const next = (b: Buffer) => protocol.createFramer!().next(b);
    expect(next(Buffer.from('d0d70b0001ca9a3b31', 'hex'))?.consumed).toBe(8);
    expect(next(Buffer.from('1,20151030145404\r\n2'))).toEqual({ frame: Buffer.from('1,20151030145404'), consumed: 18 });
    expect(next(Buffer.from('1,2015103014'))).toBeNull();
  });
  it('encodes $WP+ commands with the device password', () => {
    const encode = (type: string, attributes = {}) => protocol.encode!({ type, attributes }, { deviceId: '1', now: NOW, config: {} }).toString();
    expect(encode('positionSingle', { devicePassword: '0000' })).toBe('$WP+GETLOCATION=0000');
    expect(encode('rebootDevice')).toBe('$WP+REBOOT=0000');
    expect(() => encode('engineStop')).toThrow();
  });
});
