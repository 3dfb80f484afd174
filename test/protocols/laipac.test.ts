import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/laipac.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);
const encode = (type: string, attributes: Record<string, string> = {}, config = {}) => protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config }).toString('latin1');
const report = (status: string, event: string) => `$AVRMC,99999999,164339,${status},4351.0542,N,07923.5445,W,0.29,78.66,180703,${event},3.727,17,1,0,0*17`;

describe('laipac replies', () => {
  it('acknowledges a report with a lower-case status: $EAVACK,<event>,<checksum>', () => {
    expect(decode(report('a', '0')).reply?.toString()).toBe('$EAVACK,0,17*2D\r\n');
    expect(decode(report('A', '0')).reply).toBeUndefined();
  });
  it('confirms events with $AVCFG,<password>,<letter> (default password 00000000, or the configured one)', () => {
    expect(decode(report('A', '3')).reply?.toString()).toBe('$AVCFG,00000000,d*31\r\n');
    expect(decode(report('A', 'X'), ctx({ devicePassword: '1234' })).reply?.toString()).toBe('$AVCFG,1234,x*29\r\n');
    // Both when both apply: the acknowledgement first.
    expect(decode(report('r', '3').replace('*17', '*34')).reply?.toString()).toBe('$EAVACK,3,34*2F\r\n$AVCFG,00000000,d*31\r\n');
  });
  it('echoes a link check', () => {
    const r = decode('$ECHK,MSG00002,0*5E');
    expect(r.reply?.toString()).toBe('$ECHK,MSG00002,0*5E\r\n');
    expect(r.deviceId).toBe('MSG00002');
    expect(r.records).toBeUndefined();
  });
});

describe('laipac decoding', () => {
  it('decodes a report: knots to km/h, battery volts, odometer in metres, cell', () => {
    const [r] = decode('$AVRMC,MSG00002,124058,A,5053.0447,N,00557.8549,E,0.45,65.06,240614,0,4037,167,1,0,0,0D7AB913,020408*26').records!;
    expect(new Date(r.time!).toISOString()).toBe('2014-06-24T12:40:58.000Z');
    expect(r.lat).toBeCloseTo(50 + 53.0447 / 60, 6);
    expect(r.lng).toBeCloseTo(5 + 57.8549 / 60, 6);
    expect(r).toMatchObject({ valid: true, course: 65.06, cells: [{ mcc: 20, mnc: 408, lac: 0x0d7a, cid: 0xb913 }] });
    expect(r.speed).toBeCloseTo(0.45 * 1.852, 9);
    expect(r.attributes).toEqual({ status: 'A', battery: 4.037, odometer: 167000, gps: 1, adc1: 0, event: '0' });
  });
  it('maps alarm events and input events', () => {
    expect(decode(report('A', 'H')).records![0].attributes).toMatchObject({ alarm: 'powerOff', event: 'H' });
    expect(decode(report('v', '0')).records![0].valid).toBe(false);
    const inputs = decode(report('A', 'C')).records![0].attributes;
    expect(inputs).toMatchObject({ in1: false, in2: true });
    expect(inputs.event).toBeUndefined();
  });
  it('EAVSYS: SIM and firmware on the last known location', () => {
    const c = ctx();
    decode(report('A', '0'), c);
    const [r] = decode('$EAVSYS,MSG00002,8931086013104404999,,Owner,0x52014406*76', c).records!;
    expect(r.attributes).toEqual({ iccid: '8931086013104404999', versionFw: '0x52014406' });
    expect(r).toMatchObject({ valid: false, lat: expect.any(Number) });
  });
});

describe('laipac framer and commands', () => {
  it('cuts at line ends', () => {
    const f = protocol.createFramer!();
    const buf = Buffer.from('$ECHK,1,0*00\r\n$ECH');
    expect(f.next(buf)).toEqual({ frame: Buffer.from('$ECHK,1,0*00'), consumed: 14 });
    expect(f.next(buf.subarray(14))).toBeNull();
    expect(() => f.next(Buffer.alloc(2000, 0x41))).toThrow(FrameError);
  });
  it('encodes sentences with their checksum', () => {
    expect(encode('positionSingle')).toBe('$AVREQ,00000000,1*60\r\n');
    expect(encode('rebootDevice')).toBe('$AVRESET,123456789012345,00000000*72\r\n');
    expect(encode('custom', { data: 'AVCFG,1234,x' })).toBe('$AVCFG,1234,x*29\r\n');
  });
});
