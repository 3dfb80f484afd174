import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/tr900.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('tr900', () => {
  it('decodes a report and answers as the devices expect', () => {
    const r = protocol.decode!(Buffer.from('>00001001,4,1,150626,131252,W05830.2978,S3137.2783,,00,348,18,00,003-000,0,3,11111011*3b!'), ctx());
    expect(r.deviceId).toBe('00001001');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2015-06-26T13:12:52.000Z');
    expect(p.lat).toBeCloseTo(-31.621305, 5);
    expect(p.attributes).toMatchObject({ rssi: 18, event: 0, adc1: 3, battery: 0, input: 3, status: '11111011' });
  });
});
