import { describe, expect, it } from 'vitest';
import { EMPTY_COUNTERS, countStep, countersOf, deviceDelta, type CounterState } from '../../../src/telemetry/stages/counters.ts';
import { DEFAULT_SETTINGS, type Point } from '../../../src/telemetry/types.ts';
import { pt } from './points.ts';

/** Feeds points with the trip km and moving flag the segmentation would give. */
function count(rows: Array<[Point, number, number?]>, fuelPer100Km?: number) {
  let s: CounterState = EMPTY_COUNTERS;
  for (const [p, tripKm, movingMs] of rows) s = countStep(s, p, { tripKm, movingMs: movingMs ?? 0, fuelPer100Km }, DEFAULT_SETTINGS);
  return countersOf(s);
}

describe('counters: odometer', () => {
  it('without a device odometer: the increase of the trip kilometres', () => {
    expect(count([[pt(0, 52, 13), 0], [pt(10, 52, 13), 1.5], [pt(20, 52, 13), 4]]).odometerKm).toBeCloseTo(4, 9);
  });

  it('from the device odometer (metres) by deltas, once reported; computed km before it stay', () => {
    const c = count([[pt(0, 52, 13), 0], [pt(10, 52, 13), 2], [pt(20, 52, 13, { odometer: 100_000 }), 2.5], [pt(30, 52, 13, { odometer: 100_400 }), 9], [pt(40, 52, 13), 20]]);
    expect(c.odometerKm).toBeCloseTo(2.9, 9); // 2.5 km computed up to the first reading, then the device's 400 m; computed km ignored after
  });

  it('a reset (the counter goes back) adds nothing and re-baselines; an impossible rise is a glitch', () => {
    const rows: Array<[Point, number]> = [
      [pt(0, 52, 13, { odometer: 5000 }), 0],
      [pt(60, 52, 13, { odometer: 6000 }), 0], // +1 km
      [pt(120, 52, 13, { odometer: 0 }), 0], // reset
      [pt(180, 52, 13, { odometer: 500 }), 0], // +0.5 km
      [pt(240, 52, 13, { odometer: 90_000_000 }), 0], // glitch: 90,000 km in a minute
      [pt(300, 52, 13, { odometer: 800 }), 0], // back: a reset again
      [pt(360, 52, 13, { odometer: 1800 }), 0], // +1 km
    ];
    expect(count(rows).odometerKm).toBeCloseTo(2.5, 9);
  });

  it('deviceDelta', () => {
    expect(deviceDelta(null, 10, 100)).toBe(0);
    expect(deviceDelta(10, 15, 100)).toBe(5);
    expect(deviceDelta(10, 5, 100)).toBe(0);
    expect(deviceDelta(10, 500, 100)).toBe(0);
  });
});

describe('counters: engine hours', () => {
  it('time with ignition on (held until the next report)', () => {
    const c = count([[pt(0, 52, 13, { ignition: true }), 0], [pt(600, 52, 13), 0], [pt(1200, 52, 13, { ignition: false }), 0], [pt(1800, 52, 13, { ignition: true }), 0], [pt(2100, 52, 13), 0]]);
    expect(c.engineHours).toBeCloseTo(1500 / 3600, 9);
  });

  it('time moving (as the segmentation counts it) when the tracker never reported ignition', () => {
    const c = count([[pt(0, 52, 13), 0], [pt(600, 52, 13), 0, 600_000], [pt(900, 52, 13), 0, 0], [pt(5000, 52, 13), 0, 0], [pt(5600, 52, 13), 0, 600_000]]);
    expect(c.engineHours).toBeCloseTo(1200 / 3600, 9);
  });

  it('ignition: silences over the interval-mode gap do not count', () => {
    const c = count([[pt(0, 52, 13, { ignition: true }), 0], [pt(600, 52, 13), 0], [pt(5000, 52, 13), 0]]);
    expect(c.engineHours).toBeCloseTo(600 / 3600, 9);
  });

  it('from the device hours (ms) by deltas once reported', () => {
    const c = count([[pt(0, 52, 13, { ignition: true }), 0], [pt(600, 52, 13, { hours: 3_600_000 }), 0], [pt(1200, 52, 13, { hours: 3_600_000 + 540_000 }), 0], [pt(1800, 52, 13), 0]]);
    expect(c.engineHours).toBeCloseTo((600 + 540) / 3600, 9);
  });
});

describe('counters: fuel', () => {
  it('norm: litres per 100 km times the odometer increase', () => {
    expect(count([[pt(0, 52, 13), 0], [pt(10, 52, 13), 50]], 8).fuelConsumedL).toBeCloseTo(4, 9);
  });

  it('no norm and no device counter: 0', () => {
    expect(count([[pt(0, 52, 13), 0], [pt(10, 52, 13), 50]]).fuelConsumedL).toBe(0);
  });

  it('from the device fuelUsed counter (litres) once reported, resets handled', () => {
    const c = count([[pt(0, 52, 13), 0], [pt(10, 52, 13), 10], [pt(20, 52, 13, { fuelUsed: 100 }), 10], [pt(30, 52, 13, { fuelUsed: 103 }), 20], [pt(40, 52, 13, { fuelUsed: 1 }), 30], [pt(50, 52, 13, { fuelUsed: 2 }), 40]], 10);
    expect(c.fuelConsumedL).toBeCloseTo(1 + 3 + 1, 9); // 10 km by the norm up to the first reading, then the device
  });
});

describe('counters: order', () => {
  it('ignores a point older than the last one', () => {
    const c = count([[pt(0, 52, 13, { ignition: true }), 0], [pt(600, 52, 13), 0], [pt(300, 52, 13), 0]]);
    expect(c.engineHours).toBeCloseTo(600 / 3600, 9);
  });
});
