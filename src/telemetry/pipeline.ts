/**
 * The telemetry pipeline of one tracker (issue 5; docs/telemetry.md): an explicit ordered list of
 * small pure stages run over each point in time order — filter -> segmentation -> counters ->
 * events (docs/events.md).
 * (state, points, settings, context) -> (state', outputs); the state is plain JSON and is never
 * changed in place, so the state before any point can be kept as a checkpoint for free.
 *
 * Checkpoints: before every point where something begins (a tentative single report, a trip, a
 * stop that may become a parking, in either stream) the state before that point is returned with
 * the point's time. Re-running `process(cp.state, points with time >= cp.time)` gives exactly what
 * processing everything in order gives from there on; it re-emits the segments that were open at
 * the checkpoint, i.e. those starting at or after `replayFrom(cp.state, cp.time)` per stream.
 */
import type { Counters, DropReason, Point, Segment, TrackerEvent, TrackerSettings } from './types.ts';
import { EMPTY_FILTER, filterPoint, type FilterState } from './stages/filter.ts';
import { EMPTY_STREAM, openSegment, segmentStep, tripKmSoFar, type StreamState } from './stages/segment.ts';
import { EMPTY_COUNTERS, countStep, countersOf, type CounterState } from './stages/counters.ts';
import { EMPTY_EVENTS, eventStep, type EventState } from './stages/events.ts';

export interface PipelineState {
  v: 1;
  filter: FilterState;
  /** GNSS and GSM LBS points are segmented apart: LBS never moves GNSS tracks or counters. */
  gnss: StreamState;
  lbs: StreamState;
  counters: CounterState;
  /** The event stage's (absent in states stored before the event log: as empty). */
  events?: EventState;
}

export interface PipelineContext {
  /** Current time, ms UTC (fixes later than now + tolerance are dropped). */
  now: number;
  /** Norm fuel consumption, l/100 km (used when the device reports no fuel counter). */
  fuelPer100Km?: number;
}

export interface Checkpoint {
  time: number;
  state: PipelineState;
}

export interface PipelineOutput {
  state: PipelineState;
  /** Segments closed in this batch, both streams, in the order they closed. */
  closed: Segment[];
  /** The GNSS segment still going on. */
  open: Segment | null;
  /** The GSM LBS segment still going on. */
  openLbs: Segment | null;
  counters: Counters;
  /** Points that passed the filter, in time order (the geofence stage's input). */
  accepted: Point[];
  dropped: Array<{ point: Point; reason: DropReason }>;
  checkpoints: Checkpoint[];
  /** Events revealed by this batch (docs/events.md), in the order their points came. */
  events: TrackerEvent[];
}

export function initialState(): PipelineState {
  return { v: 1, filter: EMPTY_FILTER, gnss: EMPTY_STREAM, lbs: EMPTY_STREAM, counters: EMPTY_COUNTERS, events: EMPTY_EVENTS };
}

/** What one point carries through the stages. */
interface Work {
  state: PipelineState;
  point: Point;
  settings: TrackerSettings;
  ctx: PipelineContext;
  /** Filter -> segmentation: the points released by this one (several when a jump is confirmed). */
  accepted: Point[];
  future: boolean;
  /** Segmentation -> counters: moving time of the GNSS legs into the accepted points, ms. */
  movingMs: number;
  began: boolean;
  /** Segmentation -> events: where this point's closed segments begin in `out.closed`. */
  closedFrom: number;
  out: PipelineOutput;
}

type Stage = (w: Work) => void;

/** A new state from its parts (a literal, not a spread: this runs for every point). */
function withParts(s: PipelineState, filter: FilterState, gnss: StreamState, lbs: StreamState, counters: CounterState, events = s.events): PipelineState {
  return { v: s.v, filter, gnss, lbs, counters, events };
}

const filterStage: Stage = (w) => {
  const r = filterPoint(w.state.filter, w.point, w.settings, w.ctx.now);
  w.state = withParts(w.state, r.state, w.state.gnss, w.state.lbs, w.state.counters);
  w.accepted = r.accepted;
  w.future = r.dropped.length > 0 && r.dropped[0].reason === 'future';
  for (const p of r.accepted) w.out.accepted.push(p);
  for (const d of r.dropped) w.out.dropped.push(d);
};

const segmentStage: Stage = (w) => {
  for (const p of w.accepted) {
    const { filter, gnss, lbs, counters } = w.state;
    const r = segmentStep(p.lbs ? lbs : gnss, p, w.settings, p.lbs);
    w.state = withParts(w.state, filter, p.lbs ? gnss : r.state, p.lbs ? r.state : lbs, counters);
    for (const c of r.closed) w.out.closed.push(c);
    w.began ||= r.began;
    if (!p.lbs) w.movingMs += r.movingMs;
  }
};

const counterStage: Stage = (w) => {
  if (w.future) return;
  const input = { tripKm: tripKmSoFar(w.state.gnss), movingMs: w.movingMs, fuelPer100Km: w.ctx.fuelPer100Km };
  const { filter, gnss, lbs, counters } = w.state;
  w.state = withParts(w.state, filter, gnss, lbs, countStep(counters, w.point, input, w.settings));
};

const eventStage: Stage = (w) => {
  const before = w.state.events ?? EMPTY_EVENTS;
  const closed = w.closedFrom === w.out.closed.length ? NO_SEGMENTS : w.out.closed.slice(w.closedFrom);
  const events = eventStep(before, { point: w.point, future: w.future, accepted: w.accepted, gnss: w.state.gnss, closed }, w.settings, w.out.events);
  if (events !== before) {
    const { filter, gnss, lbs, counters } = w.state;
    w.state = withParts(w.state, filter, gnss, lbs, counters, events);
  }
};
const NO_SEGMENTS: Segment[] = [];

/** The pipeline, in order. */
export const STAGES: readonly Stage[] = [filterStage, segmentStage, counterStage, eventStage];

/** Points in time order (the caller sorts) through the stages. */
export function process(state: PipelineState | undefined, points: Point[], settings: TrackerSettings, ctx: PipelineContext): PipelineOutput {
  const out: PipelineOutput = { state: state ?? initialState(), closed: [], open: null, openLbs: null, counters: countersOf(EMPTY_COUNTERS), accepted: [], dropped: [], checkpoints: [], events: [] };
  let s = out.state;
  let atTime = s; // the state before the first point of the current time: re-runs take all points of a time
  for (let i = 0; i < points.length; i++) {
    const point = points[i];
    if (i === 0 || point.time !== points[i - 1].time) atTime = s;
    const w: Work = { state: s, point, settings, ctx, accepted: [], future: false, movingMs: 0, began: false, closedFrom: out.closed.length, out };
    for (const stage of STAGES) stage(w);
    if (w.began && canRestart(atTime, point.time, out.checkpoints)) out.checkpoints.push({ time: point.time, state: atTime });
    s = w.state;
  }
  out.state = s;
  out.open = openSegment(s.gnss, false);
  out.openLbs = openSegment(s.lbs, true);
  out.counters = countersOf(s.counters);
  return out;
}

/** Not while a jump is held (its points, older than the checkpoint, would be released again), nor twice for one time. */
function canRestart(s: PipelineState, time: number, done: Checkpoint[]): boolean {
  return !s.filter.gnss.pending.length && !s.filter.lbs.pending.length && done[done.length - 1]?.time !== time;
}

/**
 * Re-running from a checkpoint re-emits, per stream, the segments starting at or after these
 * times (the segment open at the checkpoint, or the checkpoint's time): replace those.
 */
export function replayFrom(state: PipelineState, time: number): { gnss: number; lbs: number } {
  return { gnss: state.gnss.seg?.start ?? time, lbs: state.lbs.seg?.start ?? time };
}
