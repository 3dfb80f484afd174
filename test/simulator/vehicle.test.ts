/** The virtual vehicle drives plausibly: speeds, headings along the way moved, stops, parking, sensors. */
import { describe, expect, it } from 'vitest';
import { metres, Vehicle } from '../../src/simulator/vehicle.ts';
import type { SimFix } from '../../src/simulator/types.ts';

/** Six hours of one vehicle reporting every 5 s. */
function drive(seed: number, step = 5, hours = 6): SimFix[] {
  const v = new Vehicle({ seed });
  const out: SimFix[] = [];
  for (let t = 0; t < hours * 3600; t += step) {
    v.advance(step);
    out.push(v.fix(t * 1000));
  }
  return out;
}

describe('Vehicle', () => {
  it('is deterministic per seed', () => {
    expect(drive(7, 10, 1)).toEqual(drive(7, 10, 1));
    expect(drive(7, 10, 1)).not.toEqual(drive(8, 10, 1));
  });

  it('moves at road speeds, in the direction it reports, no further than its speed allows', () => {
    for (const seed of [1, 2, 3]) {
      const fixes = drive(seed);
      let aligned = 0;
      let moving = 0;
      for (let i = 1; i < fixes.length; i++) {
        const [a, b] = [fixes[i - 1], fixes[i]];
        expect(b.speed).toBeGreaterThanOrEqual(0);
        expect(b.speed).toBeLessThanOrEqual(125);
        const [north, east] = metres(a.lat, a.lng, b.lat, b.lng);
        const d = Math.hypot(north, east);
        expect(d).toBeLessThanOrEqual((Math.max(a.speed, b.speed) / 3.6 + 2) * 5 + 1); // at most the faster speed for 5 s
        if (a.speed > 20 && b.speed > 20 && d > 20) {
          moving++;
          const bearing = (Math.atan2(east, north) * 180) / Math.PI;
          const diff = Math.abs(((bearing - b.course + 540) % 360) - 180);
          if (diff < 30) aligned++;
        }
      }
      expect(moving).toBeGreaterThan(100);
      expect(aligned / moving).toBeGreaterThan(0.85); // turns account for the rest
    }
  });

  it('parks for minutes with the ignition off, idles with it on, and reports sensors in range', () => {
    const fixes = drive(4, 5, 12);
    const parks: number[] = [];
    let run = 0;
    for (const f of fixes) {
      if (!f.ignition) run++;
      else if (run) parks.push(run * 5), (run = 0);
      expect(f.ignition).toBe((f.inputs & 1) === 1);
      expect(f.power).toBeGreaterThan(f.ignition ? 13.8 : 12.4);
      expect(f.power).toBeLessThan(f.ignition ? 14.4 : 12.7);
      expect(f.fuelLevel).toBeGreaterThanOrEqual(0);
      expect(f.fuelLevel).toBeLessThanOrEqual(100);
      if (!f.ignition) expect(f.speed).toBe(0);
    }
    expect(parks.length).toBeGreaterThan(3);
    expect(Math.min(...parks)).toBeGreaterThanOrEqual(60);
    expect(fixes.some((f) => f.ignition && f.speed === 0)).toBe(true); // warm-up, lights
    expect(fixes.filter((f) => f.event === 239).length).toBeGreaterThanOrEqual(parks.length * 2 - 1);
    for (let i = 1; i < fixes.length; i++) expect(fixes[i].odometer).toBeGreaterThanOrEqual(fixes[i - 1].odometer);
    const km = (fixes.at(-1)!.odometer - fixes[0].odometer) / 1000;
    expect(km).toBeGreaterThan(30);
    expect(km).toBeLessThan(600);
  });

  it('stays around its centre', () => {
    for (const seed of [5, 6]) {
      for (const f of drive(seed, 30, 24)) {
        const [n, e] = metres(54.6872, 25.2797, f.lat, f.lng);
        expect(Math.hypot(n, e)).toBeLessThan(30_000);
      }
    }
  });
});
