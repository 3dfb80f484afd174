import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/t800x.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (config = {}): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config, session: {} });
const decodeHex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const ALARM_2727 = '272704004901380864112055585747c612230321220006000036435fc8acc2ee600f420000000000000000909019003900001356a18000012c0000a8c00000001e20d4800000';
const SEQ3 = '252513005909060867284062764958000a02581900640064480000050700000000000000000000ffffffffffff00d50004cf180026061510121100c03745a8c24d422ae00e420010011203911297ffffff0000280003ffffff';
const SEQ31 = '2525140059002d0869084069062093001902581e000000644fc0000500000080010000ffffffffffff000000001300000000160125081006080400000a4317cdf4c20fc73c420000000003630263ffff0000001cffffffffff';
const GPS_2626 = '262602005356f408696160608183510032012c140064001f51c000010100004004000000b187660025050814571700000000571b74c2b0fa0bc2000000bc1307015000000007';

describe('t800x replies', () => {
  it('answers login and heartbeat: header, type, length 15, serial (1 under 0x2323), IMEI', () => {
    expect(decodeHex('232301001500000880316890202968140197625020').reply?.toString('hex')).toBe('232301000f00010880316890202968');
    expect(decodeHex('232303000f00000880316890202968').reply?.toString('hex')).toBe('232303000f00010880316890202968');
    expect(decodeHex('252501001504050880061689888888111111250350').reply?.toString('hex')).toBe('252501000f04050880061689888888');
    expect(decodeHex('2727010017000108806168988888881016010207110111').reply?.toString('hex')).toBe('272701000f00010880616898888888');
  });
  it('answers an alarm with the alarm code appended (length 16)', () => {
    const r = decodeHex(ALARM_2727);
    expect(r.reply?.toString('hex')).toBe('27270400100138086411205558574712');
    expect(r.records![0].attributes).toMatchObject({ alarmCode: 0x12 });
  });
  it('answers a GPS report only when configured with ack (no alarm code: 15 bytes)', () => {
    expect(decodeHex(GPS_2626).reply).toBeUndefined();
    expect(decodeHex(GPS_2626, ctx({ ack: true })).reply?.toString('hex')).toBe('262602000f56f40869616060818351');
  });
  it('answers a command reply and decodes its UTF-16 text', () => {
    const r = decodeHex('2525810128000108664250328959160149004d00450049003a00');
    expect(r.reply?.toString('hex')).toBe('252581000f00010866425032895916');
    expect(r.records![0].attributes.result).toBe('IMEI:');
  });
});

describe('t800x decoding', () => {
  it('a 0x2626 GPS report: fix from little-endian floats, IO bits, odometer, power', () => {
    const r = decodeHex(GPS_2626);
    expect(r.deviceId).toBe('869616060818351');
    const [f] = r.records!;
    expect(new Date(f.time!).toISOString()).toBe('2025-05-08T14:57:17.000Z');
    expect(f.lat).toBeCloseTo(-34.994812, 5);
    expect(f.lng).toBeCloseTo(-61.026699, 5);
    expect(f).toMatchObject({ valid: true, satellites: 17, course: 188 });
    expect(f.attributes).toMatchObject({ index: 22260, rssi: 31, ignition: true, odometer: 11634534, batteryLevel: 100, power: 13.07 });
  });
  it('a 0x2727 asset alarm: battery, temperature, g-sensor, input word', () => {
    const [f] = decodeHex(ALARM_2727).records!;
    expect(f).toMatchObject({ valid: true, satellites: 6, speed: 0 });
    expect(f.attributes).toMatchObject({ batteryLevel: 90, deviceTemp: 25, battery: 3.9, gSensor: '[0,0,-0.9]', input: 0x8000, ignition: false });
  });
  it('0x13 reports: five analog inputs, battery and power in BCD 0.01 V; the TLW2-2BL model', () => {
    const [f] = decodeHex(SEQ3).records!;
    expect(f.attributes).toMatchObject({ output: 0, adc1: 0, adc2: 0, odometer: 315160, battery: 3.91, power: 12.97 });
    expect(decodeHex(SEQ31, ctx({ modelOverride: 'TLW2-2BL' })).records![0].attributes.power).toBe(2.63);
  });
  it('a report whose status says no fix carries its time and three GSM cells on the last known location', () => {
    const c = ctx();
    const fix = decodeHex(SEQ3, c).records![0];
    const noFix = SEQ3.slice(0, 48) + '08' + SEQ3.slice(50);
    const [f] = decodeHex(noFix, c).records!;
    expect(f).toMatchObject({ valid: false, lat: fix.lat, lng: fix.lng, time: fix.time });
    expect(f.cells).toEqual([
      { mcc: 0xc000, mnc: 0x4537, lac: 0xc2a8, cid: 0x424d },
      { mcc: 0xc000, mnc: 0x4537, lac: 0xe02a, cid: 0x420e },
      { mcc: 0xc000, mnc: 0x4537, lac: 0x1000, cid: 0x1201 },
    ]);
  });
});

describe('t800x framer and commands', () => {
  it('cuts frames by the length field; waits; refuses other headers and impossible lengths', () => {
    const login = Buffer.from('232301001500000880316890202968140197625020', 'hex');
    const f = protocol.createFramer!();
    expect(f.next(Buffer.concat([login, login]))).toEqual({ frame: login, consumed: 21 });
    expect(f.next(login.subarray(0, 10))).toBeNull();
    expect(() => f.next(Buffer.from('4142430000', 'hex'))).toThrow(FrameError);
    expect(() => f.next(Buffer.from('2323010003', 'hex'))).toThrow(FrameError);
  });
  it('sends text commands (mode 1) under the configured header', () => {
    const cmd = { type: 'custom', attributes: { data: 'RELAY,0000,On#' } };
    expect(protocol.encode!(cmd, { deviceId: '123456789012345', now: 0, config: {} }).toString('hex')).toBe('232381001e000101234567890123450152454c41592c303030302c4f6e23');
    expect(protocol.encode!(cmd, { deviceId: '123456789012345', now: 0, config: { header: 0x2727 } }).toString('hex').slice(0, 4)).toBe('2727');
  });
});
