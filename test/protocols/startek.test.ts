import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/startek.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string, c = ctx()) => protocol.decode!(Buffer.from(s, 'latin1'), c);
const encode = (type: string, attributes: Record<string, string | number> = {}) => protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString('latin1');
const REPORT = '&&A147,021104023195429,000,0,,180106093046,A,22.646430,114.065730,8,0.9,54,86,76,326781,460|0|27B3|0EA7,27,0000000F,02,01,04E2|018C|01C8|0000,1,0104B0,01013D|02813546\r\n';

describe('startek replies', () => {
  it('answers nothing to reports and command answers (the trackers expect no acknowledgement)', () => {
    expect(decode(REPORT).reply).toBeUndefined();
    expect(decode('&&:23,860262050015424,129,OKA2\r\n').reply).toBeUndefined();
  });
});

describe('startek decoding', () => {
  it('a report: fix, cell, IO, power and battery, analog inputs, fuel and temperature sensors', () => {
    const r = decode(REPORT);
    expect(r.deviceId).toBe('021104023195429');
    const [f] = r.records!;
    expect(f).toMatchObject({ time: Date.UTC(2018, 0, 6, 9, 30, 46), valid: true, lat: 22.64643, lng: 114.06573, satellites: 8, hdop: 0.9, speed: 54, course: 86, altitude: 76 });
    expect(f.cells).toEqual([{ mcc: 460, mnc: 0, lac: 0x27b3, cid: 0x0ea7, rssi: 27 }]);
    expect(f.attributes).toMatchObject({ event: 0, odometer: 326781, status: 0x0f, input: 2, ignition: true, door: false, output: 1, power: 12.5, battery: 3.96, adc2: 4.56, adc3: 0, fuel1: 120, temp1: 31.7, temp2: -30.9 });
  });
  it('event 53 carries the driver id; alarms by event code; hours and OBD values', () => {
    expect(decode('&&a152,860262050010565,000,53,8F5300,210528015706,A,-38.229746,145.043446,6,1.5,0,285,84,2102994,505|1|306E|082D6101,31,0000003D,02,02,04C0|01A0|0000|0000,1,,DC\r\n').records![0].attributes.driverUniqueId).toBe('8F5300');
    expect(decode('&&s148,868703050178631,000,37,,230704040211,A,22.678565,114.046011,31,0.5,0,339,77,8,460|0|249F|0AC2620D,27,0000001D,02,00,04F2|01A1|0000|0000,129,,,,949037\r\n').records![0].attributes.hours).toBe(9490000);
    const obd = decode('&&x164,869926040743375,000,0,,220705205955,A,33.326001,44.445318,10,1.2,0,57,8,925,418|40|038C|000083CD,31,00000015,00,00,0016|016A|0000|0000,1,,,686|33||44|99|14|124|11|8D\r\n').records![0].attributes;
    expect(obd).toMatchObject({ rpm: 686, engineLoad: 33, airPressure: 44, airTemp: 59, throttle: 14, coolantTemp: 84, fuelConsumption: 1.1 });
    expect(obd.fuel).toBeUndefined();
  });
  it('a command answer keeps its type and text', () => {
    expect(decode('&&:23,860262050015424,129,OKA2\r\n').records![0].attributes).toMatchObject({ type: '129', result: 'OK' });
  });
});

describe('startek framer and commands', () => {
  it('cuts frames by the declared length', () => {
    const ok = Buffer.from('&&:23,860262050015424,129,OKA2\r\n');
    expect(protocol.createFramer!().next(Buffer.concat([ok, ok]))).toEqual({ frame: ok, consumed: ok.length });
    expect(protocol.createFramer!().next(ok.subarray(0, 20))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.from('$$:23,86026205001'))).toThrow(FrameError);
  });
  it('encodes commands with length and byte-sum checksum', () => {
    expect(encode('engineStop')).toBe('$$:24,123456789012345,900,1,19F\r\n');
    expect(encode('engineResume')).toBe('$$:24,123456789012345,900,1,09E\r\n');
    expect(encode('outputControl', { index: 2, data: 1 })).toBe('$$:24,123456789012345,900,2,1A0\r\n');
  });
});
