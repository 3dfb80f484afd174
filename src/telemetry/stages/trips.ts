/**
 * The `filter` of track/list and track/read (issue 5; docs/telemetry.md "Hidden trips"): trips
 * shorter than 300 m, with fewer than 4 points, or circling around one point are hidden.
 * "Circling" is measured by the extent of its points: the diagonal of their bounding box under
 * 300 m (the same rule as src/tracks/filter.ts), e.g. GPS drift in a car park with the engine on.
 * Parkings and single reports are never hidden.
 */
import type { Segment } from '../types.ts';

export const MIN_TRIP_LENGTH_M = 300;
export const MIN_TRIP_POINTS = 4;
export const MIN_TRIP_EXTENT_M = 300;

/** True when `filter` hides this trip. A segment without `extentM` is judged on length and points. */
export function hiddenTrip(s: Pick<Segment, 'type' | 'lengthKm' | 'points' | 'extentM'>): boolean {
  if (s.type !== 'trip') return false;
  if (s.lengthKm * 1000 < MIN_TRIP_LENGTH_M || s.points < MIN_TRIP_POINTS) return true;
  return s.extentM !== undefined && s.extentM < MIN_TRIP_EXTENT_M;
}

export function filterTrips<S extends Pick<Segment, 'type' | 'lengthKm' | 'points' | 'extentM'>>(segments: S[]): S[] {
  return segments.filter((s) => !hiddenTrip(s));
}
