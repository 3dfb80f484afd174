/** A compact Point maker for the stage tests. */
import type { Point } from '../../../src/telemetry/types.ts';

export const T0 = Date.UTC(2024, 0, 1, 8);
export const MIN = 60_000;

/** A valid GNSS point `s` seconds after T0 (speed 0 unless given). */
export function pt(s: number, lat: number, lng: number, extra: Partial<Point> = {}): Point {
  return { time: T0 + s * 1000, lat, lng, alt: 0, speed: 0, course: 0, satellites: 8, precision: NaN, hdop: 1, valid: true, lbs: false, ...extra };
}
