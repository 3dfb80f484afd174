import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/vtfms.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const REPORT = '(865733028143493,00I76,10,000,,,,,A,133755,210617,10.57354,077.24912,SW,000,00598,00000,K,0017368,1,12.7,,,0.000,,,1,0,0,0,1,1,0,,)074';

describe('vtfms', () => {
  it('decodes a report (compass course, alarm packet); no answer', () => {
    const r = protocol.decode!(Buffer.from(REPORT), ctx());
    expect(r.deviceId).toBe('865733028143493');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2017-06-21T13:37:55.000Z');
    expect(p).toMatchObject({ valid: true, lat: 10.57354, lng: 77.24912, course: 225, speed: 0 });
    expect(p.attributes).toMatchObject({ alarm: 'overspeed', hours: 598 * 3_600_000, odometer: 1736800, charge: true, power: 12.7, adc1: 0, in1: true, in2: false, out1: true, out3: false });
  });
  it('reads ddmm.mmmm coordinates of older firmware', () => {
    const [p] = protocol.decode!(Buffer.from('(861359037432331,0EF87,00,0,21,2,01,,A,154559,230119,1101.4046,07656.3859,241,000,00078,00000,K,0000812,1,12.7,,,,,,1,0,0,0,1,1,1,+919566531111*+919994462226,)054'), ctx()).records!;
    expect(p.lat).toBeCloseTo(11.02341, 5);
    expect(p.lng).toBeCloseTo(76.93977, 5);
  });
  it('frames (...) with its three checksum digits', () => {
    const f = protocol.createFramer!();
    expect(f.next(Buffer.from(REPORT.slice(0, -2)))).toBeNull();
    expect(f.next(Buffer.from(`${REPORT}(8`))?.frame.toString()).toBe(REPORT);
  });
});
