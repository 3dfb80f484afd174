import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/pt502.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

const POS = '$POS,0000001,112742.000,A,0900.9050,N,03845.0609,E,13.12,212.34,290421,,,A/00010,00000/0,0,0,0/250161300//fd7//';

describe('pt502 replies', () => {
  it('sends nothing back: the devices expect no acknowledgement', () => {
    expect(decode(POS).reply).toBeUndefined();
  });
});

describe('pt502 decoding', () => {
  it('reads a report: NMEA coordinates, knots, inputs and outputs as bits, odometer', () => {
    const r = decode(POS);
    expect(r.deviceId).toBe('0000001');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2021-04-29T11:27:42.000Z');
    expect(f.lat).toBeCloseTo(9 + 0.905 / 60, 9);
    expect(f.lng).toBeCloseTo(38 + 45.0609 / 60, 9);
    expect(f.speed).toBeCloseTo(13.12 * 1.852, 9);
    expect(f).toMatchObject({ valid: true, course: 212.34, attributes: { input: 2, output: 0, odometer: 250161300, batteryRaw: 0xfd7 } });
  });
  it('reads southern/western hemispheres, missing speed and course, and alarm types', () => {
    const [s] = decode('$POS,216769295715,163237.000,A,3258.1738,S,02755.4350,E,0.00,215.88,100915,,,A/0000,0//232300//5b3/').records!;
    expect(s.lat).toBeCloseTo(-32.96956, 5);
    const [v] = decode('$POS,6095,233344.000,V,0933.0451,N,06912.3360,W,,,151112,,,N/00000,00000/0/1677600/').records!;
    expect(v).toMatchObject({ valid: false, speed: 0, course: 0 });
    expect(v.lng).toBeLessThan(0);
    expect(decode('$CPA,40456789,083125.000,A,2232.0971,N,11400.9504,E,7.62,265.24,291117,,,A/00000,00000/0/1200//#').records![0].attributes.alarm).toBe('powerCut');
    expect(decode('$HDB,20007,134708.000,A,0626.1759,N,00330.3192,E,26.55,80.37,041016,,,A/00010,00000/23b,0,0,0/19949100//fa4//').records![0].attributes).toMatchObject({ alarm: 'hardBraking', adcRaw1: 0x23b });
  });
  it('keeps nothing of firmware announcements and photo data', () => {
    expect(decode('$FUS865328026243864,510-V1.12,A11-V3.0')).toEqual({});
    expect(protocol.decode!(Buffer.concat([Buffer.from('$PHD0,4,'), Buffer.from([0xff, 0xd8, 0x0d, 0x0a])]), ctx())).toEqual({});
  });
});

describe('pt502 framer', () => {
  const next = (b: Buffer) => protocol.createFramer!().next(b);
  it('skips the binary chunk header and cuts lines at CR/LF', () => {
    const r = next(Buffer.concat([Buffer.from([0xbf, 0xfb, 0x1b, 0x6a, 0x00]), Buffer.from(`${POS}\r\n$POS`)]));
    expect(r?.frame.toString()).toBe(POS);
    expect(r?.consumed).toBe(5 + POS.length + 2);
  });
  it('cuts photo chunks by their length even when the JPEG holds line breaks', () => {
    const photo = Buffer.concat([Buffer.from('$PHD0,4,'), Buffer.from([0xff, 0x0d, 0x0a, 0xd9]), Buffer.from('\r\n')]);
    expect(next(photo)?.frame.length).toBe(12);
    expect(next(photo.subarray(0, 6))).toBeNull();
  });
  it('rejects a bad chunk header and endless lines', () => {
    expect(() => next(Buffer.from([0xbf, 0x00, 0, 0, 0]))).toThrow(FrameError);
    expect(() => next(Buffer.from(`$POS${'1'.repeat(9000)}`))).toThrow(FrameError);
  });
});

describe('pt502 commands', () => {
  const e = (type: string, attributes: Record<string, string | number>) => protocol.encode!({ type, attributes }, { deviceId: '1', now: 0, config: {} }).toString();
  it('writes # commands ending with CR LF', () => {
    expect(e('outputControl', { index: 2, data: '1' })).toBe('#OPC2,1\r\n');
    expect(e('setTimezone', { timezone: 'GMT-5' })).toBe('#TMZ-5\r\n');
    expect(e('alarmSpeed', { data: 120 })).toBe('#SPD120\r\n');
    expect(e('custom', { data: '#PTI300' })).toBe('#PTI300\r\n');
    expect(() => e('engineStop', {})).toThrow();
  });
});
