import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/arknavx8.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (deviceId?: string): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {}, deviceId });
const decode = (s: string, id?: string) => protocol.decode!(Buffer.from(s), ctx(id));

describe('arknavx8 replies', () => {
  it('sends nothing back to the login or to reports (the devices expect no answer)', () => {
    expect(decode('351856045213782,241111')).toEqual({ deviceId: '351856045213782' });
    expect(decode('1G,181213092101,A,0347.0756N,09842.7435E,0.0,183,1.1,11008000', '351856045213782').reply).toBeUndefined();
  });
});

describe('arknavx8 decoding', () => {
  it('reads a 1G position', () => {
    const [f] = decode('1G,110509053245,A,2457.9141N,12126.3192E,3.1,35,2.0,00000001', '1').records!;
    expect(f).toMatchObject({ time: Date.UTC(2011, 4, 9, 5, 32, 45), valid: true, course: 35, hdop: 2, attributes: { type: '1G', status: '00000001' } });
    expect(f.speed).toBeCloseTo(3.1 * 1.852, 9);
    expect(f.lat).toBeCloseTo(24 + 57.9141 / 60, 9);
  });
  it('reads a 2G status: satellites, altitude, power, battery, odometer from knot-seconds', () => {
    const [f] = decode('2G,181213092101,08,4084.0,00.04,04.01,000396255.0', '1').records!;
    expect(f).toMatchObject({ satellites: 8, altitude: 4084, attributes: { power: 0.04, battery: 4.01 } });
    expect(f.attributes.odometer).toBeCloseTo((396255 * 1852) / 3600, 6);
    expect(f.lat).toBeUndefined();
  });
});
