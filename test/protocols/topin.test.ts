import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/topin.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session: {} });
const hex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const TIME = '7878073007e902160102030d0a'; // 2025-02-22 01:02:03

describe('topin replies', () => {
  it('answers a login with 01 and then the time (UTC)', () => {
    const r = hex('78780d0103593390754169634d0d0a');
    expect(r.deviceId).toBe('359339075416963');
    expect(r.reply?.toString('hex')).toBe(`78780d01010d0a${TIME}`);
  });
  it('refuses an unknown device with 44', () => {
    expect(protocol.refuse!(ctx())?.toString('hex')).toBe('78780101440d0a');
  });
  it('answers a time request with the time', () => {
    expect(hex('787801300d0a').reply?.toString('hex')).toBe(TIME);
  });
  it('confirms GPS (0x10) and Wi-Fi/LBS messages with their type and time bytes', () => {
    expect(hex('78781510120b05030d2498038077200be2078f0034000102030d0a').reply?.toString('hex')).toBe('78781510120b05030d240d0a');
    expect(hex('7878006921120412565802010601071e4a9764071e4a9864010d0a').reply?.toString('hex')).toBe('787800692112041256580d0a');
  });
  it('confirms a status message by echoing its content', () => {
    expect(hex('78780a13424008196400041f000d0a').reply?.toString('hex')).toBe('78780a13424008196400041f000d0a');
  });
  it('sends nothing for GPS 0x08, vibration and SOS', () => {
    expect(hex('7878200813081a0733211608c8d1710ded1d1608dffb710e06d51039050100286489000d0a').reply).toBeUndefined();
    expect(hex('787801940d0a').reply).toBeUndefined();
    expect(hex('787801990d0a').reply).toBeUndefined();
  });
});

describe('topin decoding', () => {
  it('GPS 0x10: date, satellites, coordinates, speed, course flags, altitude and alarm bits', () => {
    const [f] = hex('78781510120b05030d2498038077200be2078f0034000102030d0a').records!;
    expect(new Date(f.time!).toISOString()).toBe('2018-11-05T03:13:36.000Z');
    expect(f).toMatchObject({ valid: true, satellites: 8, speed: 0, course: 0, altitude: 0x0102 });
    expect(f.lat).toBeCloseTo(0x03807720 / 60 / 30000, 9);
    expect(f.lng).toBeCloseTo(0x0be2078f / 60 / 30000, 9);
    expect(f.attributes.alarm).toBe('vibration');
  });
  it('Wi-Fi/LBS: cells and the alarm byte on the last known location', () => {
    const c = ctx();
    hex('78781510120b05030d2498038077200be2078f0034000102030d0a', c);
    const [f] = hex('7878006921120412565802010601071e4a9764071e4a9864010d0a', c).records!;
    expect(f.cells).toEqual([{ mcc: 262, mnc: 1, lac: 0x071e, cid: 0x4a97, rssi: 100 }, { mcc: 262, mnc: 1, lac: 0x071e, cid: 0x4a98, rssi: 100 }]);
    expect(f).toMatchObject({ valid: false, time: Date.UTC(2021, 11, 4, 12, 56, 58), attributes: { alarm: 'vibration' } });
  });
  it('status: battery, firmware, signal, charge', () => {
    expect(hex('78780a13424008196400041f000d0a').records![0].attributes).toMatchObject({ batteryLevel: 0x42, versionFw: 0x40, rssi: 0x64 });
    expect(hex('787801990d0a').records![0].attributes.alarm).toBe('sos');
  });
});

describe('topin framer and commands', () => {
  it('cuts at CR LF before the next 78 78 or the end', () => {
    const f = protocol.createFramer!();
    const a = Buffer.from('787801300d0a', 'hex');
    const withCrLfInside = Buffer.from('78780a1342400d0a6400041f000d0a', 'hex');
    expect(f.next(Buffer.concat([a, a]))).toEqual({ frame: a, consumed: a.length });
    expect(f.next(Buffer.concat([withCrLfInside, a]))?.frame).toEqual(withCrLfInside);
    expect(f.next(Buffer.from('7878013000', 'hex'))).toBeNull();
    expect(() => f.next(Buffer.from('4142', 'hex'))).toThrow(FrameError);
  });
  it('sets an SOS number', () => {
    expect(protocol.encode!({ type: 'sosNumber', attributes: { index: 1, phone: '13533333333' } }, { deviceId: '1', now: 0, config: {} }).toString('hex')).toBe('78780c4131333533333333333333330d0a');
  });
});
