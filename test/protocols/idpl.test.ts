import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/idpl.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });

describe('idpl', () => {
  it('decodes a report; no answer', () => {
    const r = protocol.decode!(Buffer.from('*ID1,863071011086474,210314,153218,A,1831.4577,N,07351.1433,E,0.79,240.64,9,20,A,1,4.20,1,0,01,1,0,0,A01,R,935D#'), ctx());
    expect(r.deviceId).toBe('863071011086474');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2014-03-21T15:32:18.000Z');
    expect(p.lat).toBeCloseTo(18.524295, 6);
    expect(p).toMatchObject({ valid: true, course: 240.64, satellites: 9 });
    expect(p.attributes).toMatchObject({ rssi: 20, charge: true, battery: 4.2, alarm: 'sos', ignition: true, output: 1, versionFw: 'A01', archive: true });
  });
});
