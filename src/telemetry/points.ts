/**
 * Columns to the pipeline's points. A round's points are read by the worker that processes them
 * (src/telemetry/round.ts), straight into the columns of src/core/point.ts; they cross no thread.
 */
import { FLAG, ignitionOf, type FullPointColumns } from '../core/point.ts';
import type { Point } from '../core/telemetry.ts';

/** The first `c.n` points of the columns as the pipeline's points (one object each: the stages keep them). */
export function pointsOf(c: FullPointColumns): Point[] {
  const n = c.n;
  const { time, lat, lng, alt, speed, course, satellites, precision, hdop, odometer, hours, fuelUsed, flags } = c;
  const out: Point[] = new Array(n);
  for (let k = 0; k < n; k++) {
    const f = flags[k];
    const p: Point = {
      time: time[k],
      lat: lat[k],
      lng: lng[k],
      alt: alt[k],
      speed: speed[k],
      course: course[k],
      satellites: satellites[k],
      precision: precision[k],
      hdop: hdop[k],
      valid: (f & FLAG.valid) !== 0,
      lbs: (f & FLAG.lbs) !== 0,
    };
    const ignition = ignitionOf(f);
    if (ignition !== undefined) p.ignition = ignition;
    if (f & FLAG.alarm) p.event = true;
    const o = odometer[k];
    const h = hours[k];
    const fu = fuelUsed[k];
    if (!Number.isNaN(o)) p.odometer = o;
    if (!Number.isNaN(h)) p.hours = h;
    if (!Number.isNaN(fu)) p.fuelUsed = fu;
    out[k] = p;
  }
  return out;
}
