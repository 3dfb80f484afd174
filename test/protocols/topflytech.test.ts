import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/topflytech.ts';
import { FrameError, type DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22), transport: 'tcp', config: {}, session: {} });
const MESSAGE = '(880316890094910BP00XG00b600000000L00074b54S00000000R0C0F0014000100f0130531152205A0706.1395S11024.0965E012.0251.25)';

describe('topflytech', () => {
  it('decodes a report; no answer is sent', () => {
    const r = protocol.decode!(Buffer.from(MESSAGE), ctx());
    expect(r.deviceId).toBe('880316890094910');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2013-05-31T15:22:05.000Z');
    expect(p.lat).toBeCloseTo(-(7 + 6.1395 / 60), 6);
    expect(p.lng).toBeCloseTo(110 + 24.0965 / 60, 6);
    expect(p).toMatchObject({ valid: true, course: 251.25 });
    expect(p.speed).toBeCloseTo(12 * 1.852, 6);
  });
  it('frames between parentheses', () => {
    expect(protocol.createFramer!().next(Buffer.from(`x${MESSAGE}(88`))).toEqual({ frame: Buffer.from(MESSAGE), consumed: MESSAGE.length + 1 });
    expect(protocol.createFramer!().next(Buffer.from('(8803'))).toBeNull();
    expect(() => protocol.createFramer!().next(Buffer.alloc(2000, 0x28))).toThrow(FrameError);
  });
});
