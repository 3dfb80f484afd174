/**
 * The stretches of plugin 27 (docs/reports.md "27 — speed violations") from fixes given directly:
 * the ends (first fix at or under the limit, a silence, the end of the data), the speed implied by
 * the leg when a fix reports none, the time-weighted average, and the fixes that never count.
 */
import { describe, expect, it } from 'vitest';
import { destination } from '../../src/core/geo.ts';
import { FLAG } from '../../src/core/point.ts';
import { violations } from '../../src/reports/plugins/speed-violations.ts';

const T = Date.UTC(2026, 10, 20, 6);
type Step = { time: number; speed: number | null; flags: number; lat: number | null; lng: number | null };

/** Fixes north from one place at these speeds, `every` seconds apart, each moved by its own speed. */
function fixes(speeds: Array<number | null>, every = 10, from = T, flags = FLAG.valid): Step[] {
  let { lat, lng } = { lat: 54.6872, lng: 25.2797 };
  return speeds.map((s, i) => {
    if (i > 0) ({ lat, lng } = destination(lat, lng, 0, ((s ?? 72) * every) / 3600));
    return { time: from + i * every * 1000, speed: s, flags, lat, lng };
  });
}

describe('speed violation stretches', () => {
  it('start at the first fix over the limit, end at the first at or under it; average weighted by time', () => {
    const f = fixes([50, 90, 100, 80, 50]);
    f[2].time += 10_000; // the 90 km/h fix lasts 20 s before the next, the 100 km/h one 10 s
    f[3].time += 10_000;
    f[4].time += 10_000;
    expect(violations(f, 80)).toEqual([{ start: T + 10_000, end: T + 40_000, maxKmh: 100, avgKmh: (90 * 20 + 100 * 10) / 30, lat: f[1].lat, lng: f[1].lng }]);
  });

  it('a silence over the interval-mode gap ends it at its last fix; so does the end of the data', () => {
    const before = fixes([100, 100]);
    const after = fixes([100, 100, 100], 10, T + 16 * 60_000 + 10_000);
    const got = violations([...before, ...after], 80);
    expect(got.map((v) => [v.start - T, v.end - T, v.avgKmh])).toEqual([
      [0, 10_000, 100],
      [16 * 60_000 + 10_000, 16 * 60_000 + 30_000, 100],
    ]);
  });

  it('a fix without a speed takes the speed of its leg; invalid, unlocated and GSM LBS fixes never count', () => {
    const f = fixes([50, null, 50]); // the middle leg is 72 km/h
    expect(violations(f, 70).map((v) => [v.start - T, v.end - T, v.maxKmh])).toEqual([[10_000, 20_000, 72]]);
    const noise = [
      { time: T, speed: 200, flags: 0, lat: 54.7, lng: 25.3 },
      { time: T + 10_000, speed: 200, flags: FLAG.valid, lat: null, lng: null },
      { time: T + 20_000, speed: 200, flags: FLAG.valid | FLAG.lbs, lat: 54.7, lng: 25.3 },
    ];
    expect(violations([...noise, ...fixes([50], 10, T + 30_000)], 80)).toEqual([]);
  });

  it('a single fix over the limit is a stretch of 0 s at its speed', () => {
    expect(violations(fixes([50, 120]), 80)).toEqual([{ start: T + 10_000, end: T + 10_000, maxKmh: 120, avgKmh: 120, lat: expect.any(Number), lng: expect.any(Number) }]);
  });
});
