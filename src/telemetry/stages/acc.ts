/**
 * A segment being built: running figures over its points, kept as plain JSON and replaced (never
 * changed) point by point. Turned into a `Segment` when closed or reported as the open one.
 */
import type { Segment } from '../types.ts';
import { distanceKm } from '../../core/geo.ts';

/** A point as segmentation sees it (derived once from an accepted Point). */
export interface Fix {
  time: number;
  lat: number;
  lng: number;
  /** km/h: reported, else implied by the leg from the previous point. */
  speed: number;
  /** At or over the parking speed, and ignition not reported off (when ignition ends trips). */
  moving: boolean;
  /** Ignition reported off while ignition ends trips. */
  ignitionOff: boolean;
  event: boolean;
  precision: number | null;
}

export interface Acc {
  start: number;
  end: number;
  startLat: number;
  startLng: number;
  endLat: number;
  endLng: number;
  points: number;
  lengthKm: number;
  maxSpeedKmh: number;
  /** Time of legs that end in a moving point: the divisor of the average speed. */
  movingMs: number;
  events: number;
  precision: number | null;
  minLat: number;
  maxLat: number;
  minLng: number;
  maxLng: number;
}

/** A leg between consecutive points of one stream. */
export interface Leg {
  km: number;
  ms: number;
}

export function legOf(a: { time: number; lat: number; lng: number }, b: Fix): Leg {
  return { km: distanceKm(a.lat, a.lng, b.lat, b.lng), ms: b.time - a.time };
}

/** A segment that begins at `f`; `leg` is the way into it (a trip leaving a parking counts it). */
export function accStart(f: Fix, leg: Leg | null = null, countEvent = true): Acc {
  return {
    start: f.time,
    end: f.time,
    startLat: f.lat,
    startLng: f.lng,
    endLat: f.lat,
    endLng: f.lng,
    points: 1,
    lengthKm: leg ? leg.km : 0,
    maxSpeedKmh: f.speed,
    movingMs: leg && f.moving ? leg.ms : 0,
    events: countEvent && f.event ? 1 : 0,
    precision: f.precision,
    minLat: f.lat,
    maxLat: f.lat,
    minLng: f.lng,
    maxLng: f.lng,
  };
}

export function accAdd(a: Acc, f: Fix, leg: Leg): Acc {
  // A full literal, not a spread: this runs for every point and keeps one object shape.
  return {
    start: a.start,
    end: f.time,
    startLat: a.startLat,
    startLng: a.startLng,
    endLat: f.lat,
    endLng: f.lng,
    points: a.points + 1,
    lengthKm: a.lengthKm + leg.km,
    maxSpeedKmh: f.speed > a.maxSpeedKmh ? f.speed : a.maxSpeedKmh,
    movingMs: a.movingMs + (f.moving ? leg.ms : 0),
    events: a.events + (f.event ? 1 : 0),
    precision: a.precision,
    minLat: f.lat < a.minLat ? f.lat : a.minLat,
    maxLat: f.lat > a.maxLat ? f.lat : a.maxLat,
    minLng: f.lng < a.minLng ? f.lng : a.minLng,
    maxLng: f.lng > a.maxLng ? f.lng : a.maxLng,
  };
}

/** Average speed: length over moving time (stops inside a trip do not lower it). */
export function avgSpeed(a: Acc): number {
  return a.movingMs > 0 ? a.lengthKm / (a.movingMs / 3_600_000) : 0;
}

export function toSegment(a: Acc, type: Segment['type'], gsmLbs: boolean, open = false): Segment {
  const s: Segment = {
    type,
    start: a.start,
    end: a.end,
    startLat: a.startLat,
    startLng: a.startLng,
    endLat: a.endLat,
    endLng: a.endLng,
    points: a.points,
    lengthKm: a.lengthKm,
    maxSpeedKmh: a.maxSpeedKmh,
    avgSpeedKmh: type === 'single_report' ? a.maxSpeedKmh : avgSpeed(a),
    gsmLbs,
    events: a.events,
    extentM: distanceKm(a.minLat, a.minLng, a.maxLat, a.maxLng) * 1000,
  };
  if (type === 'single_report' && a.precision !== null) s.precision = a.precision;
  if (open) s.open = true;
  return s;
}
