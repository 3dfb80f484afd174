import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/continental.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const STATUS = '5356003216001eb48505025b4001e90f7f18ce0f00522200400001015b4001e9000e820100000c24000100014e0400736a7a';

describe('continental', () => {
  it('decodes a status message with extended coordinates; no answer', () => {
    const r = protocol.decode!(Buffer.from(STATUS, 'hex'), ctx());
    expect(r.deviceId).toBe('2012293') // serial 0x001eb485;
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2018-07-06T23:57:29.000Z');
    expect(p.lat).toBeCloseTo(-23.46609, 5);
    expect(p.lng).toBeCloseTo(-46.54497, 5);
    expect(p).toMatchObject({ course: 64, speed: 1, valid: true });
    expect(p.attributes).toMatchObject({ event: 14, ignition: true, input: 33281, battery: 12, deviceTemp: 36, odometer: 85508 });
  });
  it('frames by the SV header length', () => {
    const bytes = Buffer.from(`00${STATUS}53`, 'hex');
    expect(protocol.createFramer!().next(bytes)?.frame.toString('hex')).toBe(STATUS);
  });
});
