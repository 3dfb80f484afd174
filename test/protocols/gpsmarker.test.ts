import { describe, it, expect } from 'vitest';
import { protocol } from '../../protocols/gpsmarker.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2026, 0, 1), transport: 'tcp', config: {}, session: {} });
const REPORT = '$GM23D863071014445404T260816142611N55441051E037325071033063C0530304#';

describe('gpsmarker', () => {
  it('decodes a report; no answer', () => {
    const r = protocol.decode!(Buffer.from(REPORT), ctx());
    expect(r.deviceId).toBe('863071014445404');
    expect(r.reply).toBeUndefined();
    const [p] = r.records!;
    expect(new Date(p.time!).toISOString()).toBe('2016-08-26T14:26:11.000Z');
    expect(p.lat).toBeCloseTo(55 + 44.1051 / 60, 6);
    expect(p.lng).toBeCloseTo(37 + 32.5071 / 60, 6);
    expect(p).toMatchObject({ speed: 33, course: 63, satellites: 12 });
    expect(p.attributes).toEqual({ batteryLevel: 5, input: 3, output: 0, temp1: 31 });
  });
  it('yields nothing for a report without a fix', () => {
    expect(protocol.decode!(Buffer.from('$GM300350123456789012T100511123300G25000001772F185200000000000000005230298#'), ctx())).toEqual({});
  });
  it('frames $..#', () => {
    expect(protocol.createFramer!().next(Buffer.from(`${REPORT}$GM`))?.frame.toString()).toBe(REPORT);
  });
});
