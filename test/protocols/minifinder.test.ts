import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/minifinder.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);
const encode = (type: string, attributes: Record<string, string | number | boolean> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString();

describe('minifinder replies', () => {
  it('answers nothing: the identification and reports expect no answer', () => {
    const id = decode('!1,867273023933661,V07S.5701.1621,100');
    expect(id).toEqual({ deviceId: '867273023933661' });
    expect(decode('!D,02/05/17,19:56:17,47.083542,15.482373,0,0,100001,479.3,100,4,9,0').reply).toBeUndefined();
  });
});

describe('minifinder decoding', () => {
  it('decodes a live fix with the flag word, altitude, battery and satellites', () => {
    const [r] = decode('!D,15/04/17,13:58:53,51.483067,-0.452548,60,180,140001,28.7,47,4,13,0').records!;
    expect(new Date(r.time!).toISOString()).toBe('2017-04-15T13:58:53.000Z');
    expect(r).toMatchObject({ lat: 51.483067, lng: -0.452548, speed: 60, course: 180, altitude: 28.7, satellites: 4, hdop: 0, valid: true });
    expect(r.attributes).toMatchObject({ batteryLevel: 47, rssi: 20, charge: false, satVisible: 13 });
  });
  it('reads alarms from the flags', () => {
    const [r] = decode('!C,30/1/16,1:1:6,31.259157,30.020910,0,0,1040,25.32,100,0.03,0.01,0').records!;
    expect(r.valid).toBe(false);
    expect(r.attributes.alarm).toBe('sos,lowBattery');
  });
  it('keeps command answers, phone numbers and status at the last fix', () => {
    const c = ctx();
    decode('!A,01/12/10,13:25:35,22.641724,114.023666,000.1,281.6,0', c);
    const [res] = decode('!3,ok', c).records!;
    expect(res).toMatchObject({ lat: 22.641724, valid: false, attributes: { result: 'ok' } });
    expect(decode('!4,10,040123,,,1.0,110,0,0S,33', c).records![0].attributes).toEqual({ type: '4', phone1: '040123' });
    expect(decode('!5,17,V,50', c).records![0].attributes).toEqual({ type: '5', rssi: 17, batteryLevel: 50 });
  });
});

describe('minifinder framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts at ; and eats a NUL after it', () => {
    expect(next('!1,123;\0!3,ok;')).toEqual({ frame: Buffer.from('!1,123'), consumed: 8 });
    expect(next('!1,123')).toBeNull();
    expect(() => next('!'.repeat(2000))).toThrow(FrameError);
  });
});

describe('minifinder commands', () => {
  it('encodes password-prefixed text commands', () => {
    expect(encode('setTimezone', { timezone: 'GMT+1' })).toBe('123456L+01');
    expect(encode('setTimezone', { timezone: 'America/New_York' })).toBe('123456L-05');
    expect(encode('sosNumber', { index: 2, phone: '1111111111' })).toBe('123456C1,1111111111');
    expect(encode('modeDeepSleep', { enable: true, devicePassword: '000000' })).toBe('000000DS1');
    expect(() => encode('engineStop')).toThrow();
  });
});
