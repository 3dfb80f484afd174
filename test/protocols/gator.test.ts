import { describe, it, expect } from 'vitest';
import { protocol, pseudoIpNumber } from '../../protocols/gator.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const hex = (h: string) => Buffer.from(h, 'hex');

const POSITION = '24248000260009632d141121072702059226180104367500000000c04700079c0c34000ad80b00ff000a0d';
const HEARTBEAT = '242421000658e3d851150d';
const M588_ALARM = '24248000278632210440910210250107210008006368860032001400000057c047000000185c050da7f90000000001960d';

describe('gator replies', () => {
  // Not confirmed against a public document (none found): `24 24 21 | 00 05 | checksum of the message |
  // its type | subtype 0 | XOR from the type byte | 0D`.
  it('answers a position with a 0x21 message naming its checksum and type', () => {
    const r = protocol.decode!(hex(POSITION), ctx());
    // 21 ^ 00 ^ 05 ^ 0a ^ 80 ^ 00 = ae
    expect(r.reply?.toString('hex')).toBe('24242100050a8000ae0d');
  });
  it('answers a heartbeat the same way', () => {
    const r = protocol.decode!(hex(HEARTBEAT), ctx());
    expect(r.records).toBeUndefined();
    expect(r.reply?.toString('hex')).toBe('2424210005152100100d');
  });
});

describe('gator decoding', () => {
  it('reads the pseudo IP address as a 10-digit number', () => {
    expect(pseudoIpNumber(hex('2008958c'))).toBe('3332082112');
    expect(protocol.decode!(hex(POSITION), ctx()).deviceId).toBe('3000099945');
  });
  it('decodes BCD time, coordinates, speed and course', () => {
    const [r] = protocol.decode!(hex(POSITION), ctx()).records!;
    expect(new Date(r.time!).toISOString()).toBe('2014-11-21T07:27:02.000Z');
    expect(r.lat).toBeCloseTo(59.37697, 5);
    expect(r.lng).toBeCloseTo(10.72792, 5);
    expect(r).toMatchObject({ valid: true, speed: 0, course: 0, attributes: { adc1: 8.56, odometer: 710667 } });
  });
  it('takes the IMEI of M588 models and their driving alarms', () => {
    const r = protocol.decode!(hex(M588_ALARM), ctx());
    expect(r.deviceId).toBe('863221044091021');
    expect(r.records![0].attributes.alarm).toBe('hardAcceleration');
  });
});

describe('gator framer and encoder', () => {
  it('cuts frames by their length field', () => {
    const f = protocol.createFramer!();
    expect(f.next(hex(HEARTBEAT + POSITION))).toEqual({ frame: hex(HEARTBEAT), consumed: 11 });
    expect(f.next(hex(POSITION.slice(0, 30)))).toBeNull();
    expect(() => f.next(hex('2325'))).toThrow(FrameError);
  });
  it('encodes commands for the pseudo IP address', () => {
    const enc = (type: string, attributes = {}) => protocol.encode!({ type, attributes }, { deviceId: '13332082112', now: 0, config: {} }).toString('hex');
    expect(enc('positionSingle')).toBe('24243000062008958c070d');
    expect(enc('engineStop')).toBe('24243900062008958c0e0d');
    expect(enc('setSpeedLimit', { data: 80 })).toBe('24243f00072008958c50590d');
  });
});
