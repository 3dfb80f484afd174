import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/cguard.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

describe('cguard replies', () => {
  it('answers the login with OK and nothing else', () => {
    const r = decode('IDRO:354868050655283');
    expect(r.deviceId).toBe('354868050655283');
    expect(r.reply?.toString()).toBe('OK\r\n');
    expect(decode('NV:161007 122043:55.812730:37.733689:3.62:NAN:244.05:143.4').reply).toBeUndefined();
    expect(decode('PING')).toEqual({});
  });
});

describe('cguard decoding', () => {
  it('reads a position: km/h, accuracy, course, altitude', () => {
    const [f] = decode('NV:161007 122043:55.812730:37.733689:3.62:12:244.05:143.4').records!;
    expect(f).toEqual({ time: Date.UTC(2016, 9, 7, 12, 20, 43), valid: true, lat: 55.81273, lng: 37.733689, speed: 3.62, course: 244.05, precision: 12, altitude: 143.4, attributes: {} });
  });
  it('reads status values: battery as percent or volts, supply, signal', () => {
    expect(decode('BC:160711 044023:CSQ1:48:NSQ1:7:NSQ2:1:BAT1:98:PWR1:11.7:CLG1:NAN').records![0].attributes).toEqual({ rssi: 48, satellitesGps: 7, satellitesGlonass: 1, batteryLevel: 98, power: 11.7 });
    expect(decode('BC:190225 142653:CSQ1:80:NSQ1:0:NSQ2:1:BAT1:3.53').records![0].attributes.battery).toBe(3.53);
  });
  it('refuses bad times and coordinates', () => {
    expect(() => decode('NV:1610 122043:55.8:37.7:0:NAN:0')).toThrow(DecodeError);
    expect(() => decode('NV:161007 122043:95.8:37.7:0:NAN:0')).toThrow(DecodeError);
  });
});

describe('cguard framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts lines at LF, dropping CR', () => {
    expect(next('\r\nPING\r\nNV:')).toEqual({ frame: Buffer.from('PING'), consumed: 8 });
    expect(next('PING')).toBeNull();
    expect(() => next('x'.repeat(2000))).toThrow(FrameError);
  });
});
