import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/smartsole.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('smartsole', () => {
  it('decodes a report; no answer', () => {
    const r = protocol.decode!(Buffer.from('#GTXRP=359366080000385,8,180514200051,34.041981,-118.255806,60,12,1,7,1.80,180514200055,4.16,11'), ctx());
    expect(r.deviceId).toBe('359366080000385');
    expect(r.reply).toBeUndefined();
    expect(r.records).toEqual([
      { time: Date.UTC(2018, 4, 14, 20, 0, 51), lat: 34.041981, lng: -118.255806, altitude: 60, speed: 12, valid: true, satellites: 7, hdop: 1.8, attributes: { deviceTime: Date.UTC(2018, 4, 14, 20, 0, 55), battery: 4.16, status: 11 } },
    ]);
  });
});
