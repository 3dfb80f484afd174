/** The replay's arithmetic: where a track was at a time, and the stops between its trips. */
import type { TrackPoint, Trip } from '../../api/types.ts';
import { wallMs } from '../../util/time.ts';

export interface Timed extends TrackPoint {
  ms: number;
}

export const timed = (points: TrackPoint[]): Timed[] => points.map((p) => ({ ...p, ms: wallMs(p.get_time) })).sort((a, b) => a.ms - b.ms);

/** The position at `ms`, between the points around it (the first or last outside the track). */
export function positionAt(points: Timed[], ms: number): { lng: number; lat: number; point: Timed } | null {
  if (!points.length) return null;
  let lo = 0;
  let hi = points.length - 1;
  if (ms <= points[0].ms) return { lng: points[0].lng, lat: points[0].lat, point: points[0] };
  if (ms >= points[hi].ms) return { lng: points[hi].lng, lat: points[hi].lat, point: points[hi] };
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (points[mid].ms <= ms) lo = mid;
    else hi = mid;
  }
  const a = points[lo];
  const b = points[hi];
  const f = b.ms === a.ms ? 0 : (ms - a.ms) / (b.ms - a.ms);
  return { lng: a.lng + (b.lng - a.lng) * f, lat: a.lat + (b.lat - a.lat) * f, point: f < 0.5 ? a : b };
}

export interface Stop {
  start: string;
  end: string;
  lng: number;
  lat: number;
}

/** Stops: where a trip ended until the next one started (at the last point of the trip before). */
export function stopsBetween(trips: Trip[], points: Timed[]): Stop[] {
  const regular = trips.filter((tr) => tr.type === 'regular' && tr.end_date).sort((a, b) => wallMs(a.start_date) - wallMs(b.start_date));
  const out: Stop[] = [];
  for (let i = 0; i + 1 < regular.length; i++) {
    const end = regular[i].end_date!;
    const at = positionAt(points, wallMs(end));
    if (at) out.push({ start: end, end: regular[i + 1].start_date, lng: at.lng, lat: at.lat });
  }
  return out;
}
