import { describe, it, expect } from 'vitest';
import { protocol, checksum } from '../../protocols/xexun2.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const hex = (h: string) => Buffer.from(h, 'hex');

const GNSS = 'faaf0014000c8622050512345670002df3a001002a0062d9047400005e0280001e47001b400d4ba732df505e40b4153aaf78fef00109000000000042b36666faaf';
const WIFI = 'faaf0014000486188105421927500035e6d2010032fc60ec264d00002003000000020205444e6dd72699d674427f7712cbc3bcf2afd910bac1c6fbe474cfc7a9b4fbe474cfc7a6faaf';

describe('xexun2 replies', () => {
  // Not confirmed against a public document (none found): the message's own header (type, index, IMEI)
  // with a one-byte payload 01, its checksum FFFE (one's complement of 1).
  it('answers a position message with its type, index and IMEI and the payload 01', () => {
    expect(protocol.decode!(hex(GNSS), ctx()).reply?.toString('hex')).toBe('faaf0014000c86220505123456700001fffe01faaf');
    expect(protocol.decode!(hex(WIFI), ctx()).reply?.toString('hex')).toBe('faaf0014000486188105421927500001fffe01faaf');
  });
  it('escapes the flag inside an answer', () => {
    // index FA AF must go out as FB BF 01
    const frame = hex(GNSS);
    frame.writeUInt16BE(0xfaaf, 4);
    expect(protocol.decode!(frame, ctx()).reply?.toString('hex')).toBe('faaf0014fbbf0186220505123456700001fffe01faaf');
  });
});

describe('xexun2 decoding', () => {
  it('decodes the typed GNSS block', () => {
    const r = protocol.decode!(hex(GNSS), ctx());
    expect(r.deviceId).toBe('862205051234567');
    const [rec] = r.records!;
    expect(new Date(rec.time!).toISOString()).toBe('2022-07-21T07:47:00.000Z');
    expect(rec.lat).toBeCloseTo(51.68715, 5);
    expect(rec).toMatchObject({ valid: true, satellites: 9, attributes: { batteryLevel: 94, charge: false } });
  });
  it('keeps Wi-Fi access points and alarms of a record without a fix, placed at the last known location', () => {
    const c = ctx();
    protocol.decode!(hex(GNSS), c);
    const [rec] = protocol.decode!(hex(WIFI), c).records!;
    expect(rec.attributes.alarm).toBe('removing');
    expect(String(rec.attributes.wifi).split(';')[0]).toBe('44:4e:6d:d7:26:99,-42');
    expect(rec).toMatchObject({ valid: false });
    expect(rec.lat).toBeCloseTo(51.68715, 5);
  });
  it('rejects a bad checksum', () => {
    expect(() => protocol.decode!(hex(GNSS.replace('f3a0', 'f3a1')), ctx())).toThrow(/checksum/);
    expect(checksum(Buffer.from('of=1'))).toBe(0xfebc);
  });
});

describe('xexun2 framer and encoder', () => {
  it('un-escapes a frame', () => {
    const f = protocol.createFramer!();
    expect(f.next(hex('faaf123456fbbf01123456fbbf02123456faaf' + 'faaf'))).toEqual({ frame: hex('faaf123456faaf123456fbbf123456faaf'), consumed: 19 });
    expect(f.next(hex('faaf1234'))).toBeNull();
    expect(() => f.next(hex('0102030405'))).toThrow(FrameError);
  });
  it('encodes text commands', () => {
    const enc = (type: string, attributes = {}) => protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString('hex');
    expect(enc('powerOff')).toBe('faaf0007000112345678901234500004febc6f663d31faaf');
    expect(enc('custom', { data: 'reset' })).toBe(enc('rebootDevice'));
  });
});
