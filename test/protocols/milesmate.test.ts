import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/milesmate.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('milesmate', () => {
  it('decodes a report and answers as the devices expect', () => {
    const r = protocol.decode!(Buffer.from('ApiString={A:861359037496211,B:12.7,C:06.0,D:060218,E:2837.1003N,F:07723.3162E,G:016.80,H:310818,I:G,J:11010100,K:0100000A,L:1234,M:358.33}'), ctx());
    expect(r.deviceId).toBe('861359037496211');
    expect(r.reply?.toString()).toBe('+##Received OK\n'); // follows the open-source server; no public document confirms it
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2018-08-31T06:02:18.000Z');
    expect(p.lat).toBeCloseTo(28.61834, 5);
    expect(p.attributes).toMatchObject({ battery: 12.7, adc1: 6, ignition: true, charge: true, blocked: false, alarm: 'sos' });
  });
});
