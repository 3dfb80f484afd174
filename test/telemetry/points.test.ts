/** The pipeline's points from the core's columns: every measured value and flag as the stages read them. */
import { describe, expect, it } from 'vitest';
import { emptyFullColumns, flagsOf } from '../../src/core/point.ts';
import { pointsOf } from '../../src/telemetry/points.ts';

describe('pointsOf', () => {
  it('reads the first n rows; NaN counters stay absent; flags become valid, lbs, ignition and event', () => {
    const c = emptyFullColumns(4);
    const rows = [
      { time: 1000, lat: 54.6, lng: 25.2, alt: 100, speed: 40, course: 90, satellites: 9, precision: 5, hdop: 0.9, odometer: 1200, hours: 3_600_000, fuelUsed: 1.5, flags: flagsOf({ valid: true, ignition: true, alarm: true }) },
      { time: 2000, lat: 54.7, lng: 25.3, alt: NaN, speed: 0, course: NaN, satellites: NaN, precision: NaN, hdop: NaN, odometer: NaN, hours: NaN, fuelUsed: NaN, flags: flagsOf({ valid: false, lbs: true, ignition: false }) },
      { time: 3000, lat: 1, lng: 1, alt: 1, speed: 1, course: 1, satellites: 1, precision: 1, hdop: 1, odometer: 1, hours: 1, fuelUsed: 1, flags: flagsOf({ valid: true }) },
    ];
    rows.forEach((r, i) => {
      for (const [k, v] of Object.entries(r)) (c as unknown as Record<string, Float64Array | Uint8Array>)[k][i] = v;
    });
    c.n = 2; // the third row is beyond n
    expect(pointsOf(c)).toEqual([
      { time: 1000, lat: 54.6, lng: 25.2, alt: 100, speed: 40, course: 90, satellites: 9, precision: 5, hdop: 0.9, valid: true, lbs: false, ignition: true, event: true, odometer: 1200, hours: 3_600_000, fuelUsed: 1.5 },
      { time: 2000, lat: 54.7, lng: 25.3, alt: NaN, speed: 0, course: NaN, satellites: NaN, precision: NaN, hdop: NaN, valid: false, lbs: true, ignition: false },
    ]);
  });
});
