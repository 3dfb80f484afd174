import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/positrex.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });
const decode = (hex: string) => protocol.decode!(Buffer.from(hex, 'hex'), ctx());

describe('positrex', () => {
  it('decodes a ping (20-bit device number from 7 590 000) and sends no answer', () => {
    const r = decode('8280902e002b81c99fd607033905008b1c000003ae00003c9c000054ee00000079000000000d34d43f0fffffffda0000000000104fb80000204086464717807f8931082622128190980fffff862261047296590fffff');
    expect(r.deviceId).toBe('7753984');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2000-01-01T00:01:13.000Z');
    expect(p).toMatchObject({ valid: true, lat: 52.160175, lng: 5.280125, speed: 0, course: 278, attributes: { io0: 28, odometer: 942, power: 0, battery: 0 } });
  });

  it('reads the other device number widths; other services carry only the identity', () => {
    expect(decode('1234' + '01').deviceId).toBe(String(7_560_000 + 0x1234));
    expect(decode('c0000010' + '01').deviceId).toBe(String(73_000_000 + 0x10));
    expect(decode('b00010' + '01')).toEqual({ deviceId: String(70_000_000 + 0x10) });
  });
});
