import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/haicom.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('haicom', () => {
  it('decodes a report: hemisphere flags, 0.1 kn, battery; no answer', () => {
    const r = protocol.decode!(Buffer.from('$GPRS012497007097169,T100001,150618,230031,5402267400332464,0104,2014,000001,,,1,00#V040*'), ctx());
    expect(r.deviceId).toBe('012497007097169');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2015-06-18T23:00:31.000Z');
    expect(p.lat).toBeCloseTo(40.3779, 4);
    expect(p.lng).toBeCloseTo(-3.54107, 5);
    expect(p.speed).toBeCloseTo(10.4 * 1.852, 6);
    expect(p).toMatchObject({ valid: true, course: 201.4 });
    expect(p.attributes).toEqual({ versionFw: 'T100001', status: '000001', switches: '1', relays: '00', battery: 4 });
  });
});
