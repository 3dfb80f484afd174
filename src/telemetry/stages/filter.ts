/**
 * The filter stage (issue 5; docs/telemetry.md "Filtering"): which points tracks are made of.
 * Invalid, (0,0), future, duplicate and out-of-order points are dropped at once. Jumps are held:
 * a point implying a speed over `maxJumpSpeedKmh` from the last accepted one waits in `pending`;
 * the next point that fits the last accepted one drops it, and JUMP_CONFIRM_POINTS points in a
 * row that fit each other (the device really moved) are accepted together, so a wrong anchor
 * never freezes the track. GNSS and GSM LBS points are filtered as two independent streams.
 * Pure: the state is replaced, never changed, and is plain JSON.
 */
import type { DropReason, Point, TrackerSettings } from '../types.ts';
import { distanceKm } from '../../core/geo.ts';

/** A jump is believed once this many points in a row agree with each other. */
export const JUMP_CONFIRM_POINTS = 3;

/** What the jump test needs of the last accepted point. */
export interface Anchor {
  time: number;
  lat: number;
  lng: number;
  /** Accuracy radius, m; 0 when not reported. */
  precision: number;
}

/** A held point as JSON keeps it (JSON turns NaN into null). */
export type HeldPoint = { [K in keyof Point]: Point[K] | null };

export interface StreamFilter {
  last: Anchor | null;
  pending: HeldPoint[];
}

export interface FilterState {
  gnss: StreamFilter;
  lbs: StreamFilter;
}

export interface Dropped {
  point: Point;
  reason: DropReason;
}

export interface FilterOut {
  state: FilterState;
  /** In time order; more than one when a held jump is confirmed. */
  accepted: Point[];
  dropped: Dropped[];
}

export const EMPTY_FILTER: FilterState = { gnss: { last: null, pending: [] }, lbs: { last: null, pending: [] } };

/** The reason a point is dropped on its own, or null. */
export function badPoint(p: Point, settings: TrackerSettings, now: number): DropReason | null {
  if (!p.valid || !Number.isFinite(p.lat) || !Number.isFinite(p.lng) || Math.abs(p.lat) > 90 || Math.abs(p.lng) > 180) return 'invalid';
  if (p.lat === 0 && p.lng === 0) return 'zero';
  if (p.time > now + settings.futureToleranceSeconds * 1000) return 'future';
  return null;
}

/** One input point through the filter. */
export function filterPoint(s: FilterState, p: Point, settings: TrackerSettings, now: number): FilterOut {
  const reason = badPoint(p, settings, now);
  if (reason) return { state: s, accepted: [], dropped: [{ point: p, reason }] };
  const r = filterStream(p.lbs ? s.lbs : s.gnss, p, settings.maxJumpSpeedKmh);
  return { state: p.lbs ? { gnss: s.gnss, lbs: r.stream } : { gnss: r.stream, lbs: s.lbs }, accepted: r.accepted, dropped: r.dropped };
}

interface StreamOut {
  stream: StreamFilter;
  accepted: Point[];
  dropped: Dropped[];
}

function filterStream(f: StreamFilter, p: Point, maxKmh: number): StreamOut {
  const held = f.pending.map(unhold);
  const ref = held.length ? anchor(held[held.length - 1]) : f.last;
  if (ref && p.time <= ref.time) return { stream: f, accepted: [], dropped: [{ point: p, reason: p.time === ref.time ? 'duplicate' : 'out_of_order' }] };
  if (!f.last || !isJump(f.last, p, maxKmh)) {
    // Fits the last accepted point: whatever was held was an excursion.
    return { stream: { last: anchor(p), pending: [] }, accepted: [p], dropped: held.map((point) => ({ point, reason: 'jump' })) };
  }
  if (held.length && !isJump(ref!, p, maxKmh)) {
    const chain = [...held, p];
    if (chain.length >= JUMP_CONFIRM_POINTS) return { stream: { last: anchor(p), pending: [] }, accepted: chain, dropped: [] };
    return { stream: { last: f.last, pending: [...f.pending, hold(p)] }, accepted: [], dropped: [] };
  }
  // A new excursion: the old chain (if any) did not go on.
  return { stream: { last: f.last, pending: [hold(p)] }, accepted: [], dropped: held.map((point) => ({ point, reason: 'jump' })) };
}

/**
 * True when reaching `p` from `a` needs more than `maxKmh`. The accuracy radii of both points are
 * taken off the distance first, so coarse (LBS) positions hopping within their radius are no jumps.
 */
export function isJump(a: Anchor, p: Point, maxKmh: number): boolean {
  const slackKm = (a.precision + finiteOr0(p.precision)) / 1000;
  const km = Math.max(0, distanceKm(a.lat, a.lng, p.lat, p.lng) - slackKm);
  const hours = (p.time - a.time) / 3_600_000;
  return km > maxKmh * hours;
}

const finiteOr0 = (v: number) => (Number.isFinite(v) ? v : 0);

function anchor(p: Point): Anchor {
  return { time: p.time, lat: p.lat, lng: p.lng, precision: finiteOr0(p.precision) };
}

const NUMERIC: Array<keyof Point> = ['time', 'lat', 'lng', 'alt', 'speed', 'course', 'satellites', 'precision', 'hdop'];

/** A point as it can sit in JSON state: NaN becomes null (JSON would do the same). */
function hold(p: Point): HeldPoint {
  const h = { ...p } as HeldPoint;
  for (const k of NUMERIC) if (Number.isNaN(p[k])) (h as Record<string, unknown>)[k] = null;
  return h;
}

function unhold(h: HeldPoint): Point {
  const p = { ...h } as Record<string, unknown>;
  for (const k of NUMERIC) if (p[k] === null) p[k] = NaN;
  for (const k of ['ignition', 'odometer', 'hours', 'fuelUsed', 'event']) if (p[k] === null) delete p[k];
  return p as unknown as Point;
}
