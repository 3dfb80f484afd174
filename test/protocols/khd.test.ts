import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/khd.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decodeHex = (h: string) => protocol.decode!(Buffer.from(h, 'hex'), ctx());
const encode = (type: string, attributes: Record<string, string | number> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString('hex');

const LOGIN = '2929b1000605162935b80d';
const ALARM = '29298200230aa2cc391205030505220285947903109550008002078400000002000000000000750d';
const POSITION = '2929800028258b8c10210731035840031534240542120200000337fb000000ffff5a00000a0000000005005d0d';
const REUPLOAD = '29298e00280f80815a121218203116022318461140227000720262fb00077c7fbf5600001e3c3200000000850d';

describe('khd replies', () => {
  // 0x21 confirmation (no terminal id): checksum of the received packet, its main command, its first byte after the id (00 when none), XOR, 0D
  it('confirms a login with 0x21', () => {
    const r = decodeHex(LOGIN);
    expect(r.deviceId).toBe('13005224153'); // 05 16 29 35 = 05, 22, 41, 53; no top bits: 130
    expect(r.records).toBeUndefined();
    expect(r.reply?.toString('hex')).toBe('2929210005b8b1002d0d');
  });
  it('confirms a login that carries a data byte (the checksum byte is the one before 0D)', () => {
    const r = decodeHex('2929b100070a9f95380c820d');
    expect(r.deviceId).toBe('13610312156'); // 0a 9f 95 38 = 10, 31, 21, 56; top bits 0110: 136
    expect(r.reply?.toString('hex')).toBe('292921000582b10c1b0d');
  });
  it('confirms an alarm with 0x21, so the device stops repeating it', () => {
    const r = decodeHex(ALARM);
    expect(r.records![0].attributes.alarm).toBe('overspeed'); // alarm status byte 1, bit 1
    expect(r.reply?.toString('hex')).toBe('2929210005758212c10d');
  });
  it('confirms a re-uploaded (stored) position with 0x21', () => {
    expect(decodeHex(REUPLOAD).reply?.toString('hex')).toBe('2929210005858e123d0d');
  });
  it('confirms a live position upload with 0x21 too', () => {
    expect(decodeHex(POSITION).reply?.toString('hex')).toBe('29292100055d8021d80d');
  });
});

describe('khd decoding', () => {
  it('decodes the BCD time, coordinates, speed and course, the fix flag and the status', () => {
    const { deviceId, records } = decodeHex(POSITION);
    expect(deviceId).toBe('13637111216');
    const [r] = records!;
    expect(new Date(r.time!).toISOString()).toBe('2021-07-31T03:58:40.000Z');
    expect(r).toMatchObject({ valid: true, speed: 0, course: 337 });
    expect(r.lat).toBeCloseTo(31 + 53.424 / 60, 6);
    expect(r.lng).toBeCloseTo(54 + 21.202 / 60, 6);
    expect(r.attributes.status).toBe(0xffff5a00);
  });
  it('reads the sign bit of the coordinates', () => {
    const [r] = decodeHex('2929a3003420b2ab46201115115601800115110350825100000133fb00df4bfdff0d000000000000000900000c180887d9ffffffffffff960d').records!;
    expect(r.lat).toBeCloseTo(-(11.511 / 60), 6);
    expect(r.attributes.odometer).toBe(0xdf4b);
  });
  it('reads peripheral items: RFID card, battery level, unknown tags kept raw', () => {
    const [card] = decodeHex('2929a300403099934c2004030943310000000000000000000000007b0000007fff0e0000e70014000000000018050b01303030314330334437312102007b2203140dda610d').records!;
    expect(card.attributes).toMatchObject({ driverUniqueId: '0001C03D71', io33: '007b', io34: '140dda' });
    const cells = decodeHex('2929a300353099934c2004030943310000000000000000000000007b0000007fff0e0000e7001400000000000d23090101cc01a2b3c4d51b4b0d');
    expect(cells.records![0].cells).toEqual([{ mcc: 460, mnc: 1, lac: 0xa2b3, cid: 0xc4d5, rssi: 27 }]);
    const [battery] = decodeHex('2929a3003e1680ba0a2304180759500000000000000000000000007b00000080001914000000000000000000162001641b0b0000249002bc58030001cc46020000e70d').records!;
    expect(battery.attributes.batteryLevel).toBe(100);
  });
});

describe('khd framer', () => {
  const next = (h: string) => protocol.createFramer!().next(Buffer.from(h, 'hex'));
  it('cuts by the length field, skipping noise', () => {
    expect(next(`00${LOGIN}${POSITION}`)?.frame.toString('hex')).toBe(LOGIN);
    expect(next(POSITION.slice(0, 40))).toBeNull();
  });
  it('rejects an impossible length', () => {
    expect(() => next('2929800000')).toThrow(FrameError);
  });
});

describe('khd commands', () => {
  it('packs a 13x phone number with its third digit in the top bits', () => {
    const id = protocol.encode!({ type: 'engineStop', attributes: {} }, { deviceId: '13121112620', now: 0, config: {} });
    expect(id.subarray(5, 9).toString('hex')).toBe('150b1a94');
    expect(protocol.decode!(Buffer.from('2929b10011150b1a940600080010013121112620280d', 'hex'), { now: 0, transport: 'tcp', config: {}, session: {} }).deviceId).toBe('13121112620');
  });
  it('packs the last eight digits of another id and checksums the packet', () => {
    expect(encode('engineStop')).toBe('29293900065981972d5d0d');
    expect(encode('engineResume')).toBe('29293800065981972d5c0d');
    expect(encode('custom', { data: '3f50' })).toBe('29293f00075981972d500a0d');
  });
});
