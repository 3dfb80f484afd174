/**
 * The `filter` of the track calls over stored rows: the telemetry core's rule (`hiddenTrip`,
 * src/telemetry/stages/trips.ts: trips under 300 m, with fewer than 4 points, or whose points fit
 * in a box with a diagonal under 300 m), with the extent read only when the cheap checks pass
 * (rows written without `extent_m` need the trip's points for it).
 */
import { hiddenTrip as hiddenSegment } from '../telemetry/stages/trips.ts';

export { MIN_TRIP_EXTENT_M, MIN_TRIP_LENGTH_M, MIN_TRIP_POINTS } from '../telemetry/stages/trips.ts';

/** What the cheap checks need. */
export interface TripFacts {
  lengthKm: number;
  points: number;
}

/** True when the trip is hidden without looking at its points. */
export function tooSmall(t: TripFacts): boolean {
  return hiddenSegment({ type: 'trip', lengthKm: t.lengthKm, points: t.points });
}

/** True when the points never got far apart (`extentM`: the diagonal of their box). */
export function circlesOnePoint(extentM: number): boolean {
  return hiddenSegment({ type: 'trip', lengthKm: Infinity, points: Infinity, extentM });
}

/** The whole predicate: `extentM` is asked only when needed. */
export function hiddenTrip(t: TripFacts, extentM: () => number): boolean {
  return tooSmall(t) || circlesOnePoint(extentM());
}
