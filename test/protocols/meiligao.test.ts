import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/meiligao.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2025, 1, 22, 1, 2, 3);
const ctx = (session = {}): DecodeContext => ({ now: NOW, transport: 'tcp', config: {}, session });
const decodeHex = (h: string, c = ctx()) => protocol.decode!(Buffer.from(h, 'hex'), c);
const encode = (type: string, attributes: Record<string, string | number> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: NOW, config: {} }).toString('hex');

const LOGIN = '2424001167144025885540500' + '0b24d0d0a';
const POSITION =
  '2424008f142180340967ff99553033333233302e3030302c412c313531362e383039392c4e2c31303435322e383835352c452c302e30302c33332c3038313232302c2c2a33367c302e387c3132337c323130307c303030302c303030302c303230452c303241417c30323038303030353038394530304531434638347c31437c31373243353832437c3042a8060d0a';
const OBD = '4040005066104020094432990131302e312c302c3135362c302e30302c31392e36312c2d33342c33342e32362c32312e38332c372e39312c313033332c322e36392c362e35352c302c302c309dbf0d0a';

describe('meiligao replies', () => {
  it('confirms a login with 0x4000 01 (CRC-16/CCITT-FALSE, CRLF)', () => {
    const r = decodeHex(LOGIN);
    expect(r.deviceId).toBe('67144025885540');
    expect(r.records ?? []).toEqual([]);
    expect(r.reply?.toString('hex')).toBe('4040001267144025885540400001d8e10d0a');
  });
  it('answers a heartbeat with 0x0001 01', () => {
    const hb = Buffer.from('4040001167144025885540000100000d0a', 'hex');
    hb.write('$$', 0, 'latin1');
    expect(protocol.decode!(hb, ctx()).reply?.toString('hex')).toBe('4040001267144025885540000101f67d0d0a');
  });
  it('accepts a photo upload (0x8801 with the image index) and confirms its end (0x6688)', () => {
    const start = decodeHex('24240012254748594772ff080002ffff0d0a');
    expect(start.reply?.toString('hex')).toBe('40400012254748594772ff88010220aa0d0a');
    const end = decodeHex('24240012254748594772ff0f8002ffff0d0a');
    expect(end.reply?.toString('hex')).toBe('40400014254748594772ff668802000047c60d0a');
  });
  it('sends nothing back for positions', () => {
    expect(decodeHex(POSITION).reply).toBeUndefined();
  });
});

describe('meiligao decoding', () => {
  it('decodes GPRMC and the extras: hdop, altitude, IO state, ADC, cell, rssi, journey, satellites', () => {
    const { deviceId, records } = decodeHex(POSITION);
    expect(deviceId).toBe('142180340967');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2020-12-08T03:32:30.000Z');
    expect(r).toMatchObject({ valid: true, hdop: 0.8, altitude: 123, course: 33, speed: 0, satellites: 11 });
    expect(r.lat).toBeCloseTo(15 + 16.8099 / 60, 6);
    expect(r.lng).toBeCloseTo(104 + 52.8855 / 60, 6);
    expect(r.cells).toEqual([{ mcc: 520, mnc: 5, lac: 0x089e, cid: 0x00e1cf84 }]);
    expect(r.attributes).toMatchObject({ in1: true, in2: false, out1: false, adc3: 0x20e, adc4: 0x2aa, rssi: 0x1c, odometer: 0x172c582c, sat: 11 });
  });
  it('reads the alarm code of 0x9999', () => {
    const [r] = decodeHex(
      '242400008621700142458f9999503139323935382e3030302c412c333632372e313639392c4e2c30313034332e353632372c452c302e30302c3233392c3039313231322c2c2a30467c312e307c377c303030307c303141392c303139377c303235443030303230303541383639467c31327c3030303333424233e2480d0a',
    ).records!;
    expect(r.attributes).toMatchObject({ alarm: 'powerCut', event: 0x50 });
    expect(r.cells).toEqual([{ mcc: 605, mnc: 2, lac: 0x5a, cid: 0x869f }]);
  });
  it('places OBD values at the last fix of the connection', () => {
    const c = ctx();
    decodeHex(POSITION, c);
    const [r] = decodeHex(OBD, c).records!;
    expect(r).toMatchObject({ valid: false, lat: expect.closeTo(15.28016, 4) });
    expect(r.attributes).toMatchObject({ battery: 10.1, rpm: 0, obdSpeed: 156, coolantTemp: -34, obdOdometer: 1033000, fuelUsed: 6.55, faultCount: 0 });
  });
  it('assembles a photo and hands it over as media of the position that names it', () => {
    const c = ctx();
    decodeHex('24240012254748594772ff080002ffff0d0a', c);
    decodeHex('24240018254748594772ff99880200050101ffd8ffff0d0a', c);
    const sentence = Buffer.from('035644.000,A,2232.6083,N,11404.8137,E,0.00,,010809,,*1C|11.5|194|0000|0000,0000').toString('hex');
    const body = `254748594772ff99770201${sentence}ffff0d0a`;
    const r = decodeHex(`2424${(body.length / 2 + 4).toString(16).padStart(4, '0')}${body}`, c);
    expect(r.records![0].attributes.image).toBe('');
    expect(r.media).toEqual([{ record: 0, attribute: 'image', data: Buffer.from('ffd8', 'hex'), extension: 'jpg' }]);
  });
});

describe('meiligao framer', () => {
  const next = (hex: string) => protocol.createFramer!().next(Buffer.from(hex, 'hex'));
  it('cuts by the length field, skipping noise before the header', () => {
    expect(next(`00${POSITION}${LOGIN}`)).toEqual({ frame: Buffer.from(POSITION, 'hex'), consumed: 1 + POSITION.length / 2 });
    expect(next(POSITION.slice(0, 100))).toBeNull();
  });
  it('falls back to CRLF when the length is zero', () => {
    const zero = '24240000123456ffffffff50008b9b0d0a';
    expect(next(zero + LOGIN)?.frame.toString('hex')).toBe(zero);
  });
  it('rejects endless garbage', () => {
    expect(() => next('00'.repeat(5000))).toThrow(FrameError);
  });
});

describe('meiligao commands', () => {
  it('packs the id into 7 BCD bytes and checksums the packet', () => {
    expect(encode('positionSingle')).toBe('404000111234567890123441016cf70d0a');
    expect(encode('engineStop')).toBe('4040001212345678901234411501fd460d0a');
    expect(encode('setTimezone', { timezone: 'GMT+8' })).toBe('4040001412345678901234413234383030ad0d0a');
  });
  it('sends custom hex commands and refuses unknown ones', () => {
    expect(encode('custom', { data: '4101' })).toBe('404000111234567890123441016cf70d0a');
    expect(() => encode('message', { message: 'hi' })).toThrow();
    expect(() => encode('custom', { data: 'xyz' })).toThrow();
  });
});
