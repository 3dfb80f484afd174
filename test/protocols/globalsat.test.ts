import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/globalsat.ts';
import { DecodeError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config: Record<string, unknown> = {}): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config, session: {} });
const decode = (s: string, config: Record<string, unknown> = {}) => protocol.decode!(Buffer.from(s, 'latin1'), ctx(config));
const encode = (type: string, attributes: Record<string, string | number> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString('latin1');

// the documentation's own example of format 0 with the default O3 setting SORPZAB27GHKLMN*U!
const REPORT = 'GSr,135785412249986,4,6,00,,3,230410,153318,E12129.2839,N2459.8570,0,1.17,212,8,1.0,53*57!';
const CELLS = 'GSd,131826789036289,4,5,00,260110,103255,"466,92,0A8D,08C6,13,14","466,92,0A8D,2FD6,15,14"*3C!';

describe('globalsat replies', () => {
  // A device set to wait for the server's confirmation (A1=1) takes "ACK\r" (documented confirmation message).
  it('confirms a format 0 report with ACK\\r', () => {
    expect(decode(REPORT).reply?.toString('latin1')).toBe('ACK\r');
  });
  it('confirms a format 1 (heartbeat) report with ACK\\r, without a record', () => {
    const r = decode('GSh,131826789036289,3,M,ea04*3d!');
    expect(r).toEqual({ deviceId: '131826789036289', reply: Buffer.from('ACK\r') });
  });
  it('confirms a format 2 (cell id) report with ACK\\r', () => {
    expect(decode(CELLS).reply?.toString('latin1')).toBe('ACK\r');
  });
  it('sends nothing back for the older TR-151 report', () => {
    expect(decode('$355632004245866,1,1,040202,093633,E12129.2252,N2459.8891,00161,0.0100,147,07,2.4!').reply).toBeUndefined();
  });
});

describe('globalsat decoding', () => {
  it('follows the default format: fix, time, NMEA coordinates, altitude, knots, heading, satellites, hdop, battery', () => {
    const { deviceId, records } = decode(REPORT);
    expect(deviceId).toBe('135785412249986');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2010-04-23T15:33:18.000Z');
    expect(r).toMatchObject({ valid: true, altitude: 0, course: 212, satellites: 8, hdop: 1 });
    expect(r.lat).toBeCloseTo(24 + 59.857 / 60, 6);
    expect(r.lng).toBeCloseTo(121 + 29.2839 / 60, 6);
    expect(r.speed).toBeCloseTo(1.17 * 1.852, 6);
    expect(r.attributes).toMatchObject({ mode: '4', event: '6', batteryLevel: 53 });
  });
  it('follows the configured format (format0), with voltages and cells', () => {
    const [r] = decode(
      'GSb,GTR-388,358173053992353,0000,5,8080,3,270419,113326,E01020.6223,N6323.1937,129,0.01,154,10,0.8,12380mV,3128mV,0,0,11,242,02,10EB,120FC1B*5a!',
      { format0: 'TSPRXAB27GHKLMmnaictuvw*U!' },
    ).records!;
    expect(r.attributes).toMatchObject({ power: 12.38, battery: 3.128, rssi: 11, archive: true, deviceName: 'GTR-388' });
    expect(r.cells).toEqual([{ mcc: 242, mnc: 2, lac: 0x10eb, cid: 0x120fc1b }]);
  });
  it('reads the IO status (Y) and coordinates in degrees (1, 6) or millionths (3, 8)', () => {
    const [r] = decode('GSr,135785412249986,2002,230410,153318,E121.488065,-24997617*00!', { format0: 'SYB16*U!' }).records ?? [];
    expect(r).toBeUndefined(); // `6` wants a hemisphere letter: no latitude, no fix
    const [d] = decode('GSr,135785412249986,A082,230410,153318,E121.488065,S24.997617*00!', { format0: 'SYB16*U!' }).records!;
    expect(d).toMatchObject({ lng: 121.488065, lat: -24.997617 });
    expect(d.attributes).toMatchObject({ in1: true, motion: true, out1: false, ignition: true, charge: true });
    const [m] = decode('GSr,135785412249986,230410,153318,121488065,-24997617*00!', { format0: 'SB38*U!' }).records!;
    expect(m).toMatchObject({ lng: 121.488065, lat: -24.997617 });
  });
  it('reads the alarm status bits (bit 0: SOS)', () => {
    const [r] = decode(REPORT.replace(',00,,3,', ',01,,3,')).records!;
    expect(r.attributes.alarm).toBe('sos');
  });
  it('keeps the cells of a format 2 report', () => {
    const [r] = decode(CELLS).records!;
    expect(r.cells).toEqual([
      { mcc: 466, mnc: 92, lac: 0x0a8d, cid: 0x08c6, rssi: 14 },
      { mcc: 466, mnc: 92, lac: 0x0a8d, cid: 0x2fd6, rssi: 14 },
    ]);
  });
  it('rejects what is not a report', () => {
    expect(() => decode('hello')).toThrow(DecodeError);
  });
});

describe('globalsat framer', () => {
  it('cuts at ! or a line break', () => {
    const f = protocol.createFramer!().next(Buffer.from(`${REPORT}\r\nGSh`, 'latin1'));
    expect(f?.frame.toString('latin1')).toBe(REPORT.slice(0, -1));
  });
});

describe('globalsat commands', () => {
  it('wraps a command as GSC,IMEI,...*checksum!', () => {
    expect(encode('alarmDismiss')).toBe('GSC,123456789012345,Na*48!');
    expect(encode('outputControl', { index: 1, data: '1' })).toBe('GSC,123456789012345,Lo(1,1)*69!');
    expect(encode('custom', { data: 'M2(P3=500)' })).toMatch(/^GSC,123456789012345,M2\(P3=500\)\*[0-9A-F]{2}!$/);
    expect(() => encode('custom', { data: 'a*b' })).toThrow();
  });
});
