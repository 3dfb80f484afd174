import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/raveon.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 1, 22, 20, 0, 0), transport: 'tcp', config: {}, session: {} });

describe('raveon', () => {
  it('decodes a $PRAVE sentence on the day nearest to now; no answer', () => {
    const r = protocol.decode!(Buffer.from('$PRAVE,0001,0001,3308.9051,-11713.1164,195348,1,10,168,31,13.3,3,-83,0,0,,1003.4*66'), ctx());
    expect(r.deviceId).toBe('0001');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2025-02-22T19:53:48.000Z');
    expect(p.lat).toBeCloseTo(33.148418, 6);
    expect(p.lng).toBeCloseTo(-117.218607, 6);
    expect(p).toMatchObject({ valid: true, satellites: 10, altitude: 168, attributes: { temp1: 31, power: 13.3, input: 3, rssi: -83 } });
  });
});
