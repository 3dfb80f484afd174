import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/adm.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const decode = (hex: string, c = ctx()) => protocol.decode!(Buffer.from(hex, 'hex'), c);
const encode = (type: string, attributes: Record<string, string> = {}) =>
  protocol.encode!({ type, attributes }, { deviceId: '123456789012345', now: 0, config: {} }).toString();

describe('adm replies', () => {
  it('answers nothing: identification and data expect no answer', () => {
    const id = decode('000042033836393135333034323532333738340000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000078');
    expect(id).toEqual({ deviceId: '869153042523784' });
    expect(decode('01002e40041c0744009dfe6742c6c860427402000000f4ff077752c8f55b000000000b4132010213430100041e').reply).toBeUndefined();
  });
});

describe('adm decoding', () => {
  it('decodes data: float coordinates, 0.1 units, time, power and battery in volts, CAN values', () => {
    const [r] = decode('01002e40041c0744009dfe6742c6c860427402000000f4ff077752c8f55b000000000b4132010213430100041e').records!;
    expect(r.lat).toBeCloseTo(57.9986458, 5);
    expect(r.lng).toBeCloseTo(56.1960678, 5);
    expect(r).toMatchObject({ valid: true, course: 62.8, speed: 0, altitude: -12, hdop: 0.7, satellites: 7 });
    expect(new Date(r.time!).toISOString()).toBe('2018-11-21T21:04:18.000Z');
    expect(r.attributes).toMatchObject({ versionFw: 4, index: 0x071c, power: 0, battery: 0, batteryLevel: 30 });
  });
  it('keeps a command answer as result', () => {
    const text = Buffer.from('ID=1 Soft=0x51\0', 'latin1').toString('hex');
    expect(decode(`010084${text}`).records![0].attributes.result).toBe('ID=1 Soft=0x51');
  });
});

describe('adm framer', () => {
  const next = (hex: string) => protocol.createFramer!().next(Buffer.from(hex, 'hex'));
  it('takes the size byte (after the IMEI when one leads)', () => {
    const f = '010022003300072020000000000000000044062a330000000000107f10565d4a8310';
    expect(next(f + f)?.frame.toString('hex')).toBe(f);
    expect(next(f.slice(0, 40))).toBeNull();
    expect(() => next('0100000000000000000000000000000000000000')).toThrow(FrameError);
  });
});

describe('adm commands', () => {
  it('encodes text lines', () => {
    expect(encode('getDeviceStatus')).toBe('STATUS\r\n');
    expect(encode('custom', { data: 'INPUT 0' })).toBe('INPUT 0\r\n');
  });
});
