import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/hoopo.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('hoopo', () => {
  it('decodes an event; no answer', () => {
    const msg = { deviceId: 'BCCD2559', eventData: { latitude: 32.04746, longitude: 34.75843, eventType: 'InMotion', batteryLevel: 100 }, movement: { Speed: 12 }, eventTime: '2022-01-20T05:55:27Z' };
    const r = protocol.decode!(Buffer.from(JSON.stringify(msg)), ctx());
    expect(r.deviceId).toBe('BCCD2559');
    expect(r.reply).toBeUndefined();
    expect(r.records).toEqual([{ time: Date.UTC(2022, 0, 20, 5, 55, 27), valid: true, lat: 32.04746, lng: 34.75843, speed: 12, attributes: { event: 'InMotion', batteryLevel: 100 } }]);
  });
});
