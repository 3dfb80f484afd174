import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/swiftech.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('swiftech', () => {
  it('decodes a report with its status bits; no answer', () => {
    const r = protocol.decode!(Buffer.from('@@864502036102531,,,070739,1100.7798,N,07657.7126,E,0.43,210813,A,1010,1,0,02700,05800,'), ctx());
    expect(r.deviceId).toBe('864502036102531');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2013-08-21T07:07:39.000Z');
    expect(p.lat).toBeCloseTo(11.01299667, 6);
    expect(p.attributes).toEqual({ ignition: true, out1: true, out2: false, charge: true, adc1: 2.7, adc2: 5.8 });
  });
});
