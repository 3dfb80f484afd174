import { describe, expect, it } from 'vitest';
import { protocol } from '../../protocols/trakmate.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const ctx = (): DecodeContext => ({ now: Date.UTC(2025, 0, 1), transport: 'tcp', config: {}, session: {} });
const decode = (s: string) => protocol.decode!(Buffer.from(s), ctx());

describe('trakmate replies', () => {
  it('sends nothing back (the devices expect no answer)', () => {
    expect(decode('^TMSRT|354678456723764|12.59675|77.56789|123456|030414|1.03|1.01|').reply).toBeUndefined();
  });
});

describe('trakmate decoding', () => {
  it('reads a periodic report with dops, analog and battery (no satellite count)', () => {
    const [f] = decode('^TMPER|354678456723764|1|12.59675|77.56789|123456|030414|2.3|34.0|1|0|0|0.015|3.9|12.0|23.4|23.4|1|1|0|').records!;
    expect(f).toEqual({
      time: Date.UTC(2014, 3, 3, 12, 34, 56), valid: true, lat: 12.59675, lng: 77.56789, speed: 2.3, course: 34,
      attributes: { ignition: true, dop1: 0, dop2: 0, adc1: 0.015, battery: 3.9, power: 12, odometer: 23.4, pulseOdometer: 23.4, status: 1, archive: false },
    });
  });
  it('reads a stop report with the accelerometer form and satellites', () => {
    const [f] = decode('^TMSTP|352984083995323|116|13.07809|77.55979|131508|131118|0.0|146.51|7|0|71 -2 248|0|13.1|0.0|10.5|1|0|0|0|').records!;
    expect(f).toMatchObject({ satellites: 7, valid: false, attributes: { ignition: false, motion: false, power: 13.1 } });
  });
  it('maps alert types', () => {
    expect(decode('^TMALT|354678456723764|3|1|1|12.59675|77.56789|123456|030414|1.2|34.0|').records![0].attributes).toEqual({ alarm: 'sos' });
  });
});
