/**
 * The segmentation stage (issue 5; docs/telemetry.md "Segmentation"): accepted points of one
 * stream (GNSS, or GSM LBS) -> trips, parkings and single reports. One point at a time:
 * (state, point, settings) -> (state', closed segments, what began). Pure, plain-JSON state.
 *
 * - A point after a silence longer than `intervalModeGapSeconds` (or the first one) is tentative:
 *   if the next point comes after another such silence it is a `single_report`, else a trip
 *   starts at it (with a stop run already going if it is stopped).
 * - In a trip, the first stopped point starts a stop run; the run becomes a parking when it lasts
 *   `parkingMinSeconds` (measured up to the next point, stopped or moving) or at once when ignition
 *   is off. The trip then ends at that first stopped point, where the parking starts.
 * - A parking ends at the first moving point; the trip starts there, its length counting the leg
 *   from the last parked point. A parking goes on across a silence when the next point is still
 *   stopped within `clusterRadiusMeters`; otherwise it ends at that next point's time.
 * - A trip cut by a silence ends at its last point; trips or parkings that span no time are dropped.
 */
import type { Point, Segment, TrackerSettings } from '../types.ts';
import { accAdd, accStart, legOf, toSegment, type Acc, type Fix } from './acc.ts';
import { distanceKm } from '../../core/geo.ts';

export interface StreamState {
  mode: 'none' | 'single' | 'trip' | 'parking';
  last: Fix | null;
  /** The single report, the trip (all its points so far) or the parking. */
  seg: Acc | null;
  /** A stop inside the trip that may become a parking, and the trip as it was at its first point. */
  run: Acc | null;
  tripAtStop: Acc | null;
  /** Length of the closed trips, km (the computed odometer). */
  tripKm: number;
}

export const EMPTY_STREAM: StreamState = { mode: 'none', last: null, seg: null, run: null, tripAtStop: null, tripKm: 0 };

export interface StepOut {
  state: StreamState;
  closed: Segment[];
  /** Something began at this point: its state before is a checkpoint. */
  began: boolean;
  /** The leg into this point, ms, when it is moving inside a run of points (moving time). */
  movingMs: number;
}

interface Ctx {
  st: TrackerSettings;
  lbs: boolean;
  closed: Segment[];
  began: boolean;
}

/** One accepted point of the stream. */
export function segmentStep(s: StreamState, p: Point, st: TrackerSettings, lbs: boolean): StepOut {
  const f = toFix(p, s.last, st);
  const c: Ctx = { st, lbs, closed: [], began: false };
  let n: StreamState;
  if (!s.last) n = beginSingle(s, f, c);
  else if (f.time - s.last.time > st.intervalModeGapSeconds * 1000) n = afterSilence(s, f, c);
  else n = stepIn(s.mode === 'single' ? startTrip(s, s.last) : s, f, c);
  const movingMs = s.last && f.moving && n.mode !== 'single' ? f.time - s.last.time : 0;
  return { state: next(n, n.mode, n.seg, n.run, n.tripAtStop, n.tripKm, f), closed: c.closed, began: c.began, movingMs };
}

/** The segment still going on, or null. */
export function openSegment(s: StreamState, lbs: boolean): Segment | null {
  if (!s.seg) return null;
  const type = s.mode === 'single' ? 'single_report' : s.mode === 'trip' ? 'trip' : 'parking';
  return toSegment(s.seg, type, lbs, true);
}

/** Trip kilometres so far: closed trips plus the open trip up to its stop run (never decreases). */
export function tripKmSoFar(s: StreamState): number {
  if (s.mode !== 'trip') return s.tripKm;
  return s.tripKm + (s.tripAtStop ?? s.seg!).lengthKm;
}

export function toFix(p: Point, prev: Fix | null, st: TrackerSettings): Fix {
  let speed = p.speed;
  if (!Number.isFinite(speed)) {
    const hours = prev ? (p.time - prev.time) / 3_600_000 : 0;
    speed = hours > 0 ? distanceKm(prev!.lat, prev!.lng, p.lat, p.lng) / hours : 0;
  }
  const ignitionOff = st.ignitionEndsTrip && p.ignition === false;
  return {
    time: p.time,
    lat: p.lat,
    lng: p.lng,
    speed,
    moving: !ignitionOff && speed >= st.parkingSpeedKmh,
    ignitionOff,
    event: !!p.event,
    precision: Number.isFinite(p.precision) ? p.precision : null,
  };
}

/** The next state (a full literal: this runs for every point and keeps one object shape). */
function next(s: StreamState, mode: StreamState['mode'], seg: Acc | null, run: Acc | null, tripAtStop: Acc | null, tripKm = s.tripKm, last = s.last): StreamState {
  return { mode, last, seg, run, tripAtStop, tripKm };
}

function stepIn(s: StreamState, f: Fix, c: Ctx): StreamState {
  return s.mode === 'trip' ? tripStep(s, f, c) : parkingStep(s, f, c);
}

function beginSingle(s: StreamState, f: Fix, c: Ctx): StreamState {
  c.began = true;
  return next(s, 'single', accStart(f), null, null);
}

/** The tentative point turns out to start a trip: a trip of that one point (a stop run if stopped). */
function startTrip(s: StreamState, f: Fix): StreamState {
  const trip = accStart(f);
  if (f.moving) return next(s, 'trip', trip, null, null);
  const stopped = next(s, 'trip', trip, accStart(f, null, false), trip);
  return f.ignitionOff ? toParking(stopped, []) : stopped; // a one-point trip: nothing closed
}

function tripStep(s: StreamState, f: Fix, c: Ctx): StreamState {
  const leg = legOf(s.last!, f);
  const trip = accAdd(s.seg!, f, leg);
  if (f.moving) {
    if (s.run && f.time - s.run.start >= c.st.parkingMinSeconds * 1000) return parkingStep(toParking(s, c.closed, c.lbs), f, c);
    return next(s, 'trip', trip, null, null);
  }
  let n: StreamState;
  if (s.run) n = next(s, 'trip', trip, accAdd(s.run, f, leg), s.tripAtStop);
  else {
    c.began = true; // a parking may start here
    n = next(s, 'trip', trip, accStart(f, null, false), trip);
  }
  if (f.ignitionOff || f.time - n.run!.start >= c.st.parkingMinSeconds * 1000) return toParking(n, c.closed, c.lbs);
  return n;
}

/** The stop run is a parking: the trip ends at its first point. */
function toParking(s: StreamState, closed: Segment[], lbs = false): StreamState {
  const trip = s.tripAtStop!;
  const kept = trip.end > trip.start;
  if (kept) closed.push(toSegment(trip, 'trip', lbs));
  return next(s, 'parking', s.run, null, null, s.tripKm + (kept ? trip.lengthKm : 0));
}

function parkingStep(s: StreamState, f: Fix, c: Ctx): StreamState {
  const leg = legOf(s.last!, f);
  if (!f.moving) return next(s, 'parking', accAdd(s.seg!, f, leg), null, null);
  closeParking(s.seg!, f.time, c);
  c.began = true;
  return next(s, 'trip', accStart(f, leg), null, null);
}

function closeParking(a: Acc, end: number, c: Ctx): void {
  if (end > a.start) c.closed.push(toSegment({ ...a, end }, 'parking', c.lbs));
}

function afterSilence(s: StreamState, f: Fix, c: Ctx): StreamState {
  if (s.mode === 'single') {
    c.closed.push(toSegment(s.seg!, 'single_report', c.lbs));
    return beginSingle(s, f, c);
  }
  if (s.mode === 'trip' && s.run) return afterSilence(toParking(s, c.closed, c.lbs), f, c); // the silence proves the stop
  if (s.mode === 'trip') {
    const trip = s.seg!;
    if (trip.end > trip.start) c.closed.push(toSegment(trip, 'trip', c.lbs));
    return beginSingle(next(s, 'trip', trip, null, null, s.tripKm + (trip.end > trip.start ? trip.lengthKm : 0)), f, c);
  }
  const p = s.seg!;
  const near = distanceKm(p.startLat, p.startLng, f.lat, f.lng) * 1000 <= c.st.clusterRadiusMeters;
  if (!f.moving && near) return next(s, 'parking', accAdd(p, f, legOf(s.last!, f)), null, null); // a sleeping tracker, still parked
  closeParking(p, f.time, c);
  return beginSingle(s, f, c);
}
