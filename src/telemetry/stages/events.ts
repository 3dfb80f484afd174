/**
 * The event stage (issue 12; docs/events.md): what one point reveals of the tracker's history,
 * beside tracks and counters. (state, point, what segmentation did with it, settings) ->
 * (state', events). Pure, plain-JSON state, replaced (never changed) and the same object when
 * nothing changed (the common case: no allocation per point).
 *
 * - ignition_on / ignition_off: the reported ignition changes (the first report is no change);
 * - alarm_*: a record carrying an alarm, one event per alarm value;
 * - speeding_start / speeding_end: GNSS speed over the tracker's limit, then back at or under it;
 * - parking_start / parking_end: segmentation's GNSS parkings (a parking starts when a stop turns
 *   into one, dated at its first stopped point; it ends at the first moving point).
 * Every event carries `decided`, the time of the point that revealed it: a replay from a
 * checkpoint re-emits exactly the events decided at or after the checkpoint's time.
 */
import type { Point, Segment, TrackerEvent, TrackerSettings } from '../types.ts';
import { Alarm } from '../../../protocols/attributes.ts';
import type { StreamState } from './segment.ts';

export interface Speeding {
  start: number;
  lat: number;
  lng: number;
  /** Highest speed so far, km/h. */
  max: number;
  /** The last point over the limit. */
  last: number;
  lastLat: number;
  lastLng: number;
}

export interface EventState {
  /** The last reported ignition; null until the tracker reports one. */
  ignition: boolean | null;
  speeding: Speeding | null;
  /** Start of the GNSS parking whose parking_start was recorded; null: none. */
  parking: number | null;
}

export const EMPTY_EVENTS: EventState = { ignition: null, speeding: null, parking: null };

/** What the stage sees of one input point. */
export interface EventInput {
  point: Point;
  /** The filter dropped it as lying in the future (it reveals nothing). */
  future: boolean;
  /** The points the filter released with it (GNSS and LBS), in time order. */
  accepted: readonly Point[];
  /** The GNSS stream after segmentation. */
  gnss: StreamState;
  /** Segments segmentation closed at this point (both streams). */
  closed: readonly Segment[];
}

/** Alarm values of the vocabulary (protocols/attributes.ts) -> event types. */
const ALARM_TYPES: ReadonlyMap<string, string> = new Map(Object.values(Alarm).map((a) => [a, `alarm_${snake(a)}`]));

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** The event type of an alarm value; values outside the vocabulary are `alarm_general` (the value kept in extra). */
export function alarmType(value: string): string {
  return ALARM_TYPES.get(value) ?? 'alarm_general';
}

/** Every event type this stage records. */
export const PIPELINE_EVENT_TYPES: readonly string[] = [
  'ignition_on',
  'ignition_off',
  'speeding_start',
  'speeding_end',
  'parking_start',
  'parking_end',
  ...new Set(ALARM_TYPES.values()),
];

/** One point; events are appended to `out`. */
export function eventStep(s: EventState, w: EventInput, st: TrackerSettings, out: TrackerEvent[]): EventState {
  const p = w.point;
  if (w.future) return s;
  let n = s;
  const at = p.time;
  const located = p.valid && Number.isFinite(p.lat) && Number.isFinite(p.lng) && !(p.lat === 0 && p.lng === 0);
  const lat = located ? p.lat : (w.gnss.last?.lat ?? null);
  const lng = located ? p.lng : (w.gnss.last?.lng ?? null);
  if (p.ignition !== undefined && p.ignition !== n.ignition) {
    if (n.ignition !== null) out.push({ type: p.ignition ? 'ignition_on' : 'ignition_off', time: at, decided: at, lat, lng, extra: {} });
    n = { ignition: p.ignition, speeding: n.speeding, parking: n.parking };
  }
  if (p.event) {
    for (const value of (p.alarm ?? Alarm.general).split(',')) {
      const v = value.trim() || Alarm.general;
      const type = alarmType(v);
      out.push({ type, time: at, decided: at, lat, lng, extra: type === 'alarm_general' && v !== Alarm.general ? { alarm: v } : {} });
    }
  }
  if (st.speedLimitKmh != null || n.speeding) n = speedingStep(n, w, st, at, out);
  if (w.closed.length || n.parking !== null || w.gnss.mode === 'parking') n = parkingStep(n, w, at, out);
  return n;
}

/** Speeding over the accepted GNSS points. */
function speedingStep(s: EventState, w: EventInput, st: TrackerSettings, decided: number, out: TrackerEvent[]): EventState {
  let sp = s.speeding;
  const limit = st.speedLimitKmh;
  const gap = st.intervalModeGapSeconds * 1000;
  for (const q of w.accepted) {
    if (q.lbs) continue;
    // Reported speed, else segmentation's (implied by the leg into the point).
    const speed = Number.isFinite(q.speed) ? q.speed : w.gnss.last?.time === q.time ? w.gnss.last.speed : NaN;
    if (Number.isNaN(speed)) continue;
    // A silence ends an episode at its last point over the limit (what happened meanwhile is unknown).
    if (sp && q.time - sp.last > gap) {
      out.push(speedingEnd(sp, sp.last, sp.lastLat, sp.lastLng, decided, limit));
      sp = null;
    }
    if (limit != null && speed > limit) {
      if (!sp) {
        sp = { start: q.time, lat: q.lat, lng: q.lng, max: speed, last: q.time, lastLat: q.lat, lastLng: q.lng };
        out.push({ type: 'speeding_start', time: q.time, decided, lat: q.lat, lng: q.lng, extra: { speed: round1(speed), speed_limit: limit } });
      } else sp = { start: sp.start, lat: sp.lat, lng: sp.lng, max: speed > sp.max ? speed : sp.max, last: q.time, lastLat: q.lat, lastLng: q.lng };
    } else if (sp) {
      out.push(speedingEnd(sp, q.time, q.lat, q.lng, decided, limit));
      sp = null;
    }
  }
  return sp === s.speeding ? s : { ignition: s.ignition, speeding: sp, parking: s.parking };
}

function speedingEnd(sp: Speeding, end: number, lat: number, lng: number, decided: number, limit: number | null): TrackerEvent {
  return { type: 'speeding_end', time: end, decided, lat, lng, extra: { start: sp.start, max_speed: round1(sp.max), duration: Math.round((end - sp.start) / 1000), speed_limit: limit } };
}

/** GNSS parkings: the closed ones end (and start, when one began and ended at this point), the one going on starts. */
function parkingStep(s: EventState, w: EventInput, decided: number, out: TrackerEvent[]): EventState {
  let started = s.parking;
  for (const c of w.closed) {
    if (c.type !== 'parking' || c.gsmLbs) continue;
    if (started !== c.start) out.push({ type: 'parking_start', time: c.start, decided, lat: c.startLat, lng: c.startLng, extra: {} });
    out.push({ type: 'parking_end', time: c.end, decided, lat: c.endLat, lng: c.endLng, extra: { start: c.start, duration: Math.round((c.end - c.start) / 1000) } });
    started = null;
  }
  const g = w.gnss;
  if (g.mode === 'parking' && g.seg) {
    if (started !== g.seg.start) {
      out.push({ type: 'parking_start', time: g.seg.start, decided, lat: g.seg.startLat, lng: g.seg.startLng, extra: {} });
      started = g.seg.start;
    }
  } else started = null; // a parking that ended spanning no time is no parking
  return started === s.parking ? s : { ignition: s.ignition, speeding: s.speeding, parking: started };
}

const round1 = (x: number) => Math.round(x * 10) / 10;
