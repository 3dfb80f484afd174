import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/enfora.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const REPORT = '007100040200202020202020202020382020202020202031323334353637383930313233343520313320244750524d432c3232333135322e30302c412c333530392e3836303539342c4e2c30333332322e3734333838372c452c302e302c302e302c3032303631322c2c2c412a35320d0a';

describe('enfora', () => {
  it('finds the IMEI and the RMC fix; no answer', () => {
    const r = protocol.decode!(Buffer.from(REPORT, 'hex'), ctx());
    expect(r.deviceId).toBe('123456789012345');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2012-06-02T22:31:52.000Z');
    expect(p.lat).toBeCloseTo(35.16434, 5);
    expect(p.lng).toBeCloseTo(33.37906, 5);
  });
  it('frames by the leading length', () => {
    const bytes = Buffer.from(REPORT + '0071', 'hex');
    expect(protocol.createFramer!().next(bytes)?.consumed).toBe(0x71);
    expect(protocol.createFramer!().next(bytes.subarray(0, 0x70))).toBeNull();
  });
});
