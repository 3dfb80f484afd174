/**
 * Geofence visits (issue 5; docs/geofences.md): a pure stage (state, point, hits, settings) ->
 * (state', visit changes), with hysteresis against GPS jitter. Per geofence, a side change is only
 * pending until it is confirmed:
 *   - by one point beyond the margin (deep inside to enter, far outside to exit), or
 *   - by a run of consecutive points on the new side: at least `points` of them spanning `seconds`.
 * The margin is max(marginMeters, the point's precision). Times are the fixes' own: a visit enters at
 * the first point of its confirming inside run and exits at the first point of its outside run.
 * LBS points and invalid points are ignored: they neither start, confirm nor break a run.
 */
import type { GeoKind, Point, Visit } from '../types.ts';
import type { GeoHit, GeoRef } from './index.ts';

export interface VisitSettings {
  /** Consecutive points on the new side needed to confirm an enter or exit... */
  points: number;
  /** ...spanning at least this long. */
  seconds: number;
  /** A point at least this deep inside (or far outside) confirms at once; raised to its precision. */
  marginMeters: number;
}

/**
 * 2 points over 30 s: with 1 s fixes that is 30 s of consistency (jitter rarely stays on one side
 * that long), with sparse fixes two agreeing reports. 20 m: a typical GNSS error near buildings.
 */
export const DEFAULT_VISIT_SETTINGS: Readonly<VisitSettings> = Object.freeze({ points: 2, seconds: 30, marginMeters: 20 });

/** A run of consecutive points on the side opposite to the confirmed one. */
interface Run {
  start: number; // ms, its first point
  last: number;
  count: number;
}

/** One geofence the tracker is inside of, or is pending to enter. */
export interface FenceState {
  kind: GeoKind;
  id: number;
  /** The enter time of the confirmed visit; null: outside (and `run` is a pending entry). */
  enter: number | null;
  run: Run | null;
}

/** JSON-serialisable; fences sorted by kind and id. */
export interface VisitState {
  fences: FenceState[];
}

export const EMPTY_VISIT_STATE: VisitState = Object.freeze({ fences: [] }) as VisitState;

/** The margin for this point: `probe` the index with it, so absent geofences are beyond it. */
export function visitMargin(point: Point, settings: VisitSettings = DEFAULT_VISIT_SETTINGS): number {
  return Number.isFinite(point.precision) && point.precision > settings.marginMeters ? point.precision : settings.marginMeters;
}

/** Points that take part: valid GNSS fixes with coordinates. */
export function countsForVisits(point: Point): boolean {
  return point.valid && !point.lbs && Number.isFinite(point.lat) && Number.isFinite(point.lng) && Number.isFinite(point.time);
}

/**
 * One point. `hits`: `index.probe(owners, lat, lng, visitMargin(point))` for it, i.e. every
 * geofence inside or within the margin; a geofence absent from it is taken as far outside.
 * Events: an enter ({exit: null}) or an exit of a visit, keyed by (kind, id, enter).
 */
export function visitStep(state: VisitState, point: Point, hits: readonly GeoHit[], settings: VisitSettings = DEFAULT_VISIT_SETTINGS): { state: VisitState; events: Visit[] } {
  if (!countsForVisits(point)) return { state, events: [] };
  if (!changes(state, hits)) return { state, events: [] }; // the common case: every fence stays as it is
  const margin = visitMargin(point, settings);
  // Fences in kind, id order: the state's, and those the point is newly inside of (a handful).
  let fences = state.fences;
  const added: FenceState[] = [];
  for (const h of hits) if (h.inside && !findFence(state.fences, h)) added.push({ kind: h.kind, id: h.id, enter: null, run: null });
  if (added.length) fences = [...fences, ...added].sort(byKindId);

  const events: Visit[] = [];
  const next: FenceState[] = [];
  for (const f of fences) {
    const h = findHit(hits, f);
    const inside = h?.inside ?? false;
    const beyond = h === undefined || h.distance >= margin;
    const { fence, event } = judge(f, inside, beyond, point.time, settings);
    if (event) events.push(event);
    if (fence.enter !== null || fence.run !== null) next.push(fence);
  }
  return { state: { fences: next }, events };
}

function findHit(hits: readonly GeoHit[], f: GeoRef): GeoHit | undefined {
  for (const h of hits) if (h.id === f.id && h.kind === f.kind) return h;
  return undefined;
}
function findFence(fences: readonly FenceState[], h: GeoRef): FenceState | undefined {
  for (const f of fences) if (f.id === h.id && f.kind === h.kind) return f;
  return undefined;
}

/** All points of a batch, in time order; `probe(point, margin)` answers the hits for one. */
export function visitBatch(state: VisitState, points: readonly Point[], probe: (p: Point, margin: number) => GeoHit[], settings: VisitSettings = DEFAULT_VISIT_SETTINGS): { state: VisitState; events: Visit[] } {
  const events: Visit[] = [];
  for (const p of points) {
    if (!countsForVisits(p)) continue;
    const r = visitStep(state, p, probe(p, visitMargin(p, settings)), settings);
    state = r.state;
    events.push(...r.events);
  }
  return { state, events };
}

/**
 * Whether this point changes anything: a fence with a pending run, a fence whose side differs from
 * its confirmed one, or a new fence the point is inside of (what `judge` would change). Hits and
 * fences are a handful: linear scans, no allocation.
 */
function changes(state: VisitState, hits: readonly GeoHit[]): boolean {
  for (const f of state.fences) if (f.run !== null || (findHit(hits, f)?.inside ?? false) !== (f.enter !== null)) return true;
  for (const h of hits) if (h.inside && !findFence(state.fences, h)) return true;
  return false;
}

/** One geofence, one point: extend, confirm or drop the pending run. */
function judge(f: FenceState, inside: boolean, beyond: boolean, time: number, s: VisitSettings): { fence: FenceState; event?: Visit } {
  const confirmedInside = f.enter !== null;
  if (inside === confirmedInside) return { fence: f.run === null ? f : { ...f, run: null } }; // back on the confirmed side
  const run = f.run ? { start: f.run.start, last: time, count: f.run.count + 1 } : { start: time, last: time, count: 1 };
  const confirmed = beyond || (run.count >= s.points && run.last - run.start >= s.seconds * 1000);
  if (!confirmed) return { fence: { ...f, run } };
  if (!confirmedInside) return { fence: { kind: f.kind, id: f.id, enter: run.start, run: null }, event: { kind: f.kind, id: f.id, enter: run.start, exit: null } };
  return { fence: { kind: f.kind, id: f.id, enter: null, run: null }, event: { kind: f.kind, id: f.id, enter: f.enter!, exit: run.start } };
}

const KIND_ORDER: Record<GeoKind, number> = { zone: 0, place: 1, task: 2 };
const byKindId = (a: FenceState, b: FenceState) => KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.id - b.id;
