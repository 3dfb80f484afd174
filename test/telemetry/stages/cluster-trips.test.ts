import { describe, expect, it } from 'vitest';
import { clusterSingleReports } from '../../../src/telemetry/stages/cluster.ts';
import { filterTrips, hiddenTrip } from '../../../src/telemetry/stages/trips.ts';
import { destination } from '../../../src/core/geo.ts';
import type { Segment } from '../../../src/telemetry/types.ts';
import { T0 } from './points.ts';

function seg(type: Segment['type'], min: number, lat: number, lng: number, extra: Partial<Segment> = {}): Segment {
  const start = T0 + min * 60_000;
  return { type, start, end: start, startLat: lat, startLng: lng, endLat: lat, endLng: lng, points: 1, lengthKm: 0, maxSpeedKmh: 0, avgSpeedKmh: 0, gsmLbs: false, events: 0, ...extra };
}

describe('clusterSingleReports', () => {
  const near = (m: number) => destination(52, 13, 90, m / 1000);

  it('groups consecutive single reports within the radius of the first; a lone one stays a single report', () => {
    const a = seg('single_report', 0, 52, 13, { precision: 10 });
    const b = seg('single_report', 60, near(250).lat, near(250).lng, { precision: 30 });
    const c = seg('single_report', 120, near(100).lat, near(100).lng, { precision: 20 });
    const far = seg('single_report', 180, near(900).lat, near(900).lng);
    const out = clusterSingleReports([a, b, c, far]);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ type: 'cluster', start: a.start, end: c.end, lat: 52, lng: 13, precision: 20, gsmLbs: false });
    expect((out[0] as { points: unknown[] }).points).toHaveLength(3);
    expect(out[1]).toBe(far);
  });

  it('another segment between breaks a run; the radius is a parameter', () => {
    const a = seg('single_report', 0, 52, 13);
    const b = seg('single_report', 60, 52, 13);
    const trip = seg('trip', 90, 52, 13);
    const c = seg('single_report', 120, 52, 13);
    expect(clusterSingleReports([a, b, trip, c]).map((s) => s.type)).toEqual(['cluster', 'trip', 'single_report']);
    const d = seg('single_report', 180, near(250).lat, near(250).lng);
    expect(clusterSingleReports([c, d], 100).map((s) => s.type)).toEqual(['single_report', 'single_report']);
  });

  it('gsmLbs only when every report is LBS; no precision when none has one', () => {
    const lbs = [seg('single_report', 0, 52, 13, { gsmLbs: true }), seg('single_report', 60, 52, 13, { gsmLbs: true })];
    expect(clusterSingleReports(lbs)[0]).toMatchObject({ gsmLbs: true });
    expect(clusterSingleReports(lbs)[0]).not.toHaveProperty('precision');
    expect(clusterSingleReports([lbs[0], seg('single_report', 60, 52, 13)])[0]).toMatchObject({ gsmLbs: false });
  });
});

describe('filterTrips', () => {
  const trip = (o: Partial<Segment>) => seg('trip', 0, 52, 13, { lengthKm: 5, points: 100, extentM: 3000, ...o });

  it('hides trips under 300 m, with fewer than 4 points, or circling around one point', () => {
    expect(hiddenTrip(trip({}))).toBe(false);
    expect(hiddenTrip(trip({ lengthKm: 0.299 }))).toBe(true);
    expect(hiddenTrip(trip({ lengthKm: 0.3 }))).toBe(false);
    expect(hiddenTrip(trip({ points: 3 }))).toBe(true);
    expect(hiddenTrip(trip({ points: 4 }))).toBe(false);
    expect(hiddenTrip(trip({ lengthKm: 2, extentM: 150 }))).toBe(true); // 2 km of drift within 150 m
    expect(hiddenTrip(trip({ extentM: undefined }))).toBe(false);
  });

  it('never hides parkings or single reports', () => {
    const keep = [seg('parking', 0, 52, 13), seg('single_report', 1, 52, 13), trip({})];
    expect(filterTrips([...keep, trip({ points: 2 })])).toEqual(keep);
  });
});
