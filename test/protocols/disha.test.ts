import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/disha.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('disha', () => {
  it('decodes a report and answers as the devices expect', () => {
    const r = protocol.decode!(Buffer.from('$A#A#864161028848856#A#182134#090116#2232.0191#N#08821.3278#E#001.74#231.4#04#01.5#1300#2#055#0000#9999#54.4#6407.7#0001*'), ctx());
    expect(r.deviceId).toBe('864161028848856');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2016-01-09T18:21:34.000Z');
    expect(p.lat).toBeCloseTo(22.533652, 5);
    expect(p.attributes).toMatchObject({ rssi: 1300, charge: true, batteryLevel: 55, adc1: 0, adc2: 9999, odometer: 6407700, in1: false, in4: true });
  });
});
