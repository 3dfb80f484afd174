import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/gpsmta.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'udp', config: {}, session: {} });

// The answer (the line's own time field) follows the open-source server's implementation; no public
// GPSMTA document confirms it.
describe('gpsmta', () => {
  it('answers with the time field and decodes the line', () => {
    const r = protocol.decode!(Buffer.from('864528021249771 1446116686 49.85073 24.004438 0 217 6 338 00 59 27 1 0'), ctx());
    expect(r.reply?.toString()).toBe('1446116686');
    expect(r.deviceId).toBe('864528021249771');
    expect(r.records).toEqual([{ time: 1446116686000, valid: true, lat: 49.85073, lng: 24.004438, speed: 0, course: 217, precision: 6, altitude: 338, attributes: { status: 0, batteryLevel: 59, temp1: 27, charge: true } }]);
  });
});
