import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/cradlepoint.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22, 17, 0, 0), transport: 'tcp', config: {}, session: {} });

describe('cradlepoint', () => {
  it('decodes a report on the day nearest to now; no answer', () => {
    const r = protocol.decode!(Buffer.from('+14063964266,162658,4333.62404,N,11636.23469,W,1.5,90.5,Verizon Wireless,LTE,-107,-74,-16,,100.68.169.178'), ctx());
    expect(r.deviceId).toBe('+14063964266');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2025-02-22T16:26:58.000Z');
    expect(p.lat).toBeCloseTo(43.560401, 6);
    expect(p.lng).toBeCloseTo(-116.603912, 6);
    expect(p.speed).toBeCloseTo(1.5 * 1.852, 6);
    expect(p.attributes).toEqual({ carrier: 'Verizon Wireless', service: 'LTE', ip: '100.68.169.178', rsrp: -107, rssi: -74, rsrq: -16 });
  });
});
