import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tk102.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (b: Buffer) => protocol.decode!(b, ctx());
const hex = (h: string) => Buffer.from(h, 'hex');

describe('tk102 replies', () => {
  it('answers a login with type 00, the sequence and 0x30 before the echoed id', () => {
    const r = decode(hex('5b80303030303030303030300832313331353435325d'));
    expect(r.deviceId).toBe('21315452');
    expect(r.reply?.toString('hex')).toBe('5b0030303030303030303030093032313331353435325d');
  });
  it('answers the text login the same way', () => {
    const login = Buffer.from('[!0000000081\x13(353327023367238,x)]', 'latin1');
    const r = decode(login);
    expect(r.deviceId).toBe('353327023367238');
    expect(r.reply?.toString('latin1')).toBe('[\x000000000081\x140(353327023367238,x)]');
  });
  it('echoes a heartbeat with type FF', () => {
    expect(decode(hex('5bf0303030303030303030300832313331353435325d')).reply?.toString('hex')).toBe('5bff303030303030303030300832313331353435325d');
  });
});

describe('tk102 decoding', () => {
  it('decodes a report: NMEA coordinates, knots, date', () => {
    const [r] = decode(Buffer.from('[=00000000836(ITV013939A4913.8317N02824.9241E000.90018031310010000)]', 'latin1')).records!;
    expect(new Date(r.time!).toISOString()).toBe('2013-03-18T01:39:39.000Z');
    expect(r.lat).toBeCloseTo(49.230528, 5);
    expect(r.lng).toBeCloseTo(28.415402, 5);
    expect(r.speed).toBeCloseTo(0.9 * 1.852, 6);
    expect(r.valid).toBe(true);
  });
});

describe('tk102 framer', () => {
  const next = (b: Buffer) => protocol.createFramer!().next(b);
  it('cuts at the length byte', () => {
    const f = hex('5bf0303030303030303030300832313331353435325d');
    expect(next(Buffer.concat([f, f]))).toEqual({ frame: f, consumed: f.length });
    expect(next(f.subarray(0, 10))).toBeNull();
    expect(() => next(Buffer.from('hello'))).toThrow(FrameError);
  });
});
