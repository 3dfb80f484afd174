import { describe, it, expect } from 'vitest';
import { protocol, parseLayouts } from '../../protocols/xt2400.ts';
import type { DecodeContext } from '../../protocols/types.ts';

const NOW = Date.UTC(2026, 0, 1);
const ctx = (config: string): DecodeContext => ({ now: NOW, transport: 'udp', config: { config }, session: {} });
const CONFIG = '\n:wycfg pcr[0] 001001030406070809570a13121714100565\n';
const REPORT = '000a344f1f0259766ae002074289f8f1c4b200e80000026712068000130000029300883559464255524845364650323433343235';

describe('xt2400', () => {
  it('reads the report layouts of a :wycfg configuration', () => {
    expect([...parseLayouts(CONFIG)].map(([id, tags]) => [id, tags.toString('hex')])).toEqual([[0, '01030406070809570a13121714100565']]);
  });

  it('decodes a report by the configured layout and sends no answer', () => {
    const r = protocol.decode!(Buffer.from(REPORT, 'hex'), ctx(CONFIG));
    expect(r.deviceId).toBe('171200287');
    expect(r.reply).toBeUndefined();
    expect(r.records).toEqual([
      {
        time: Date.UTC(2017, 6, 24, 21, 47, 12),
        valid: true,
        lat: 34.030217,
        lng: -118.373198,
        altitude: 23.2,
        course: 61.5,
        satellites: 18,
        hdop: 0.6,
        attributes: { event: 2, obdSpeed: 0, power: 12.8, rssi: 19, tripOdometer: 659, index: 136, vin: '5YFBURHE6FP243425' },
      },
    ]);
  });

  it('yields nothing without a configured layout', () => {
    expect(protocol.decode!(Buffer.from(REPORT, 'hex'), ctx(''))).toEqual({});
  });
});
