import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/freedom.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('freedom', () => {
  it('decodes a report; no answer', () => {
    const r = protocol.decode!(Buffer.from('IMEI,353358011714362,2014/05/22, 20:49:32, N, Lat:4725.9624, E, Lon:01912.5483, Spd:5.05'), ctx());
    expect(r.deviceId).toBe('353358011714362');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2014-05-22T20:49:32.000Z');
    expect(p.lat).toBeCloseTo(47.43271, 5);
    expect(p.lng).toBeCloseTo(19.20914, 5);
    expect(p.speed).toBeCloseTo(5.05 * 1.852, 6);
  });
});
