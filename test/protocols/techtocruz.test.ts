import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/techtocruz.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const REPORT = '$$A120,8612345678910,211005105836,A,FLEX,KCB 947C,000.0,0,-1.38047,S,36.93951,E,1648.4,243.140,21,28,12.1,3.7,0,1,0,1,1,*F6';

describe('techtocruz', () => {
  it('decodes a report; no answer', () => {
    const r = protocol.decode!(Buffer.from(REPORT), ctx());
    expect(r.deviceId).toBe('8612345678910');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2021-10-05T10:58:36.000Z');
    expect(p).toMatchObject({ valid: true, lat: -1.38047, lng: 36.93951, altitude: 1648.4, course: 243.14, satellites: 21 });
    expect(p.attributes).toEqual({ registration: 'KCB 947C', odometer: 0, rssi: 28, power: 12.1, battery: 3.7, charge: false, ignition: true, alarm: 'overspeed' });
  });
  it('frames by the length after $$A', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from(`${REPORT}$$A3`))?.frame.toString()).toBe(REPORT);
    expect(f.next(Buffer.from(REPORT.slice(0, 50)))).toBeNull();
  });
});
