import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/aquila.ts';
import { DecodeError, FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s, 'latin1'), ctx());

const BASIC = '$$CLIENT_1WP,141216511,3,12.963123,77.534012,150908163534,A,31,0,0,0,7,0,0,0,0,0,0,0,1,0,1,0,0,1,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,1,1,1,0,*28';
const HDOP = '$$CLIENT_1ZF,170222318,1,22.836912,75.942215,170321110736,A,11,12,247196,103,10,0.810000,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,1,0,0,13325,306,*36';
const OBD = '$$CLIENT_1ZF,130329214,1,12.962985,77.576484,140127165433,A,22,0,0,140,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,1253,420,1,0,1,0,0,1,P(01:410104000102|05:410521|0C:410C0000|0D:410D65|21:4121161C),D(P0121|B2105),-895,745,-145,300,*26';

describe('aquila replies', () => {
  // No server answer is documented for these reports (none could be found in public aQuila
  // material), so the decoder returns no reply bytes.
  it('sends nothing back for a report', () => {
    expect(decode(BASIC).reply).toBeUndefined();
    expect(decode(HDOP).reply).toBeUndefined();
  });
});

describe('aquila decoding', () => {
  it('decodes the basic report: time, decimal degrees, validity, speed, GSM signal, named flags', () => {
    const { deviceId, records } = decode(BASIC);
    expect(deviceId).toBe('141216511');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2015-09-08T16:35:34.000Z');
    expect(r).toMatchObject({ valid: true, lat: 12.963123, lng: 77.534012, speed: 0 });
    expect(r.attributes).toMatchObject({ event: 3, rssi: 31, fuelSensor: 7, in1: false, in2: false, charge: true, ignition: false });
  });
  it('reads the direction sector bits of the basic report (0100: sector 4, south-east)', () => {
    const [r] = decode('$$CLIENT_1ZF,130329214,1,12.962985,77.576484,140127165433,A,22,0,0,1,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,*26').records!;
    expect(r.course).toBe(135);
    expect(r.attributes).toMatchObject({ driverUniqueId: '1', ignition: true });
  });
  it('reads the alarm flags (overspeed start)', () => {
    const [r] = decode(BASIC.replace('A,31,0,0,0,7,0,0,0,', 'A,31,0,0,0,7,0,0,1,')).records!;
    expect(r.attributes.alarm).toBe('overspeed');
  });
  it('reads satellites, hdop, odometer and the voltages of the newer layout', () => {
    const [r] = decode(HDOP).records!;
    expect(r).toMatchObject({ satellites: 10, hdop: 0.81, speed: 12, course: 103 });
    expect(r.attributes).toMatchObject({ odometer: 247196, power: 13.325, battery: 3.06, ignition: true, charge: false });
  });
  it('reads OBD answers and fault codes', () => {
    const [r] = decode(OBD).records!;
    expect(r.attributes).toMatchObject({ power: 12.53, battery: 4.2, coolantTemp: -7, rpm: 0, obdSpeed: 101, dtcs: 'P0121 B2105' });
  });
  it('yields nothing for a settings report, and rejects what is not a report', () => {
    const r = decode('$$CLIENT_1ZF,170222318,15,2_00AP,70.35.195.185,5089,internet,GPS:YES,Ignition:ON,*75');
    expect(r).toEqual({ deviceId: '170222318' });
    expect(() => decode('hello')).toThrow(DecodeError);
  });
});

describe('aquila framer', () => {
  const next = (s: string) => protocol.createFramer!().next(Buffer.from(s, 'latin1'));
  it('cuts from $$ to the checksum, skipping line breaks', () => {
    expect(next(`\r\n${BASIC}\r\n${HDOP}`)?.frame.toString('latin1')).toBe(BASIC);
    expect(next(BASIC.slice(0, -1))).toBeNull();
  });
  it('rejects endless garbage', () => {
    expect(() => next('x'.repeat(2000))).toThrow(FrameError);
  });
});
