import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/arknav.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('arknav', () => {
  it('decodes a report and answers as the devices expect', () => {
    const r = protocol.decode!(Buffer.from('358266016278447,05*827,311,PT33,A,4821.6584,N,01053.8650,E,010.0,090.0,00.9,08:46:04 17-03-16,9.5A,87,0,79,0,,,,'), ctx());
    expect(r.deviceId).toBe('358266016278447');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2016-03-17T08:46:04.000Z');
    expect(p.lat).toBeCloseTo(48.360973, 5);
    expect(p.attributes).toMatchObject({ status: 0x311, model: 'PT33', batteryLevel: 87, alarm: 'overspeed' });
  });
});
