/**
 * The fill and drain detection of plugin 10 (src/reports/plugins/fuel-levels.ts) on hand-made level
 * series: what the median keeps and drops, and where episodes start, join and end.
 */
import { describe, expect, it } from 'vitest';
import { levelEpisodes, levelOf, medianSmooth, type LevelReading } from '../../src/reports/plugins/fuel-levels.ts';

const MIN = 60_000;
/** Readings a minute apart (or at the given minutes), parked unless a speed is given. */
const series = (levels: number[], o: { minutes?: number[]; kmh?: number[] } = {}): LevelReading[] =>
  levels.map((level, i) => ({ time: (o.minutes?.[i] ?? i) * MIN, level, lat: null, lng: null, speed: o.kmh?.[i] ?? 0 }));
const opts = { minFill: 10, minDrain: 10, joinMs: 5 * MIN };
const episodes = (r: LevelReading[], window = 5) => levelEpisodes(r, medianSmooth(r.map((x) => x.level), window), opts).map(({ kind, start, end, before, after }) => [kind, start, end, before, after]);

describe('median smoothing', () => {
  it('keeps steps and ramps where they are, drops spikes of up to half the window, leaves the ends raw', () => {
    expect(medianSmooth([20, 20, 20, 80, 80, 80], 5)).toEqual([20, 20, 20, 80, 80, 80]);
    expect(medianSmooth([1, 2, 3, 4, 5, 6, 7], 5)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(medianSmooth([50, 50, 62, 50, 50, 50, 62, 62, 50, 50, 50], 5)).toEqual([50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50]);
    expect(medianSmooth([62, 50, 50, 50, 62], 5)).toEqual([62, 50, 50, 50, 62]);
    expect(medianSmooth([50, 62, 50], 1)).toEqual([50, 62, 50]);
  });
});

describe('fills and drains', () => {
  it('a fill across a silence (the tracker off at the pump) is one fill', () => {
    expect(episodes(series([30, 30, 30, 30, 70, 70, 70, 70], { minutes: [0, 1, 2, 3, 40, 41, 42, 43] }))).toEqual([['fill', 3, 4, 30, 70]]);
  });

  it('a pause shorter than join_minutes keeps one fill; a longer one makes two, each judged alone', () => {
    const levels = [30, 30, 30, 36, 36, 36, 42, 42, 42, 42];
    expect(episodes(series(levels), 1)).toEqual([['fill', 2, 6, 30, 42]]);
    expect(episodes(series(levels, { minutes: [0, 1, 2, 3, 4, 10, 11, 12, 13, 14] }), 1)).toEqual([]);
  });

  it('a drop while driving is consumption, never a drain; the same drop parked is one', () => {
    const levels = [80, 80, 80, 74, 68, 62, 62, 62];
    expect(episodes(series(levels, { kmh: levels.map(() => 60) }), 1)).toEqual([]);
    expect(episodes(series(levels), 1)).toEqual([['drain', 2, 5, 80, 62]]);
  });

  it('changes under 0.5 are flat: slow consumption never adds up to a drain', () => {
    expect(episodes(series(Array.from({ length: 100 }, (_, i) => 80 - 0.4 * i)), 1)).toEqual([]);
  });
});

describe('the level of a fix', () => {
  it('litres before percent; a protocol whose `fuel` is percent reads as percent; no level sensor, none', () => {
    expect(levelOf({ fuel: 41.5, fuelLevel: 60 }, 0, 'osmand')).toEqual({ level: 41.5, unit: 'litre' });
    expect(levelOf({ fuelLevel: 60 }, 0, 'osmand')).toEqual({ level: 60, unit: 'percent' });
    expect(levelOf({ fuel: 60 }, 0, 'ruptela')).toEqual({ level: 60, unit: 'percent' });
    expect(levelOf({ fuel: 41.5 }, 0, 'teltonika')).toEqual({ level: 41.5, unit: 'litre' });
    expect(levelOf({ power: 12, fuelUsed: 1000 }, 0, 'osmand')).toBeUndefined();
  });
});
