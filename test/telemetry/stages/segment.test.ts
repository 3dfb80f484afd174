import { describe, expect, it } from 'vitest';
import { EMPTY_STREAM, openSegment, segmentStep, tripKmSoFar, type StreamState } from '../../../src/telemetry/stages/segment.ts';
import { DEFAULT_SETTINGS, type Point, type Segment, type TrackerSettings } from '../../../src/telemetry/types.ts';
import { journey, type Truth } from '../journeys.ts';
import { pt, T0 } from './points.ts';

function segment(points: Point[], st: TrackerSettings = DEFAULT_SETTINGS) {
  let s: StreamState = EMPTY_STREAM;
  const closed: Segment[] = [];
  let km = 0;
  for (const p of points) {
    const r = segmentStep(s, p, st, false);
    s = JSON.parse(JSON.stringify(r.state));
    closed.push(...r.closed);
    expect(tripKmSoFar(s)).toBeGreaterThanOrEqual(km); // the computed odometer never goes back
    km = tripKmSoFar(s);
  }
  const open = openSegment(s, false);
  return { closed, open, all: open ? [...closed, open] : closed, state: s };
}

const sec = (t: number) => (t - T0) / 1000;

/** Segments against the journey's ground truth: same trips and parkings, exact times, lengths to the mm. */
function expectTruth(all: Segment[], truth: Truth) {
  const trips = all.filter((s) => s.type === 'trip');
  const parkings = all.filter((s) => s.type === 'parking');
  expect(trips.map((t) => [sec(t.start), sec(t.end), !!t.open])).toEqual(truth.trips.map((t) => [sec(t.start), sec(t.end), !!t.open]));
  expect(parkings.map((t) => [sec(t.start), sec(t.end), !!t.open])).toEqual(truth.parkings.map((t) => [sec(t.start), sec(t.end), !!t.open]));
  trips.forEach((t, i) => {
    expect(t.lengthKm).toBeCloseTo(truth.trips[i].lengthKm, 6);
    expect(t.avgSpeedKmh).toBeCloseTo(truth.trips[i].lengthKm / (truth.trips[i].movingMs / 3_600_000), 6);
  });
  expect(all.filter((s) => s.type === 'single_report').map((s) => s.start)).toEqual(truth.singles);
}

const START = { lat: 52.52, lng: 13.4, time: T0 };

describe('segmentation: trips and parkings of synthetic journeys', () => {
  it('drive 10 km, stop 10 min, drive 5 km: two trips, one parking, exact lengths and speeds', () => {
    const { points, truth } = journey(START).drive({ km: 10, kmh: 50 }).stop({ minutes: 10 }).drive({ km: 5, kmh: 40 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['trip', 'parking', 'trip']);
    expectTruth(all, truth);
    const [a, p, b] = all;
    expect(a.lengthKm).toBeCloseTo(10, 6);
    expect(a.avgSpeedKmh).toBeCloseTo(50, 6);
    expect(a.maxSpeedKmh).toBe(50);
    expect(a.end).toBe(p.start); // the parking starts at the first stopped point, where the trip ends
    expect(p.end).toBe(b.start); // and ends at the first moving point, where the next trip starts
    expect(sec(p.start)).toBe(730); // 720 s of driving, the first stopped point 10 s later
    expect(b.lengthKm).toBeCloseTo(5, 6); // including the leg from the last parked point
    expect(b.open).toBe(true);
  });

  it('a stop shorter than parkingMinSeconds stays inside the trip and does not lower the average speed', () => {
    const { points, truth } = journey(START).drive({ km: 3, kmh: 60 }).stop({ minutes: 4 }).drive({ km: 3, kmh: 60 }).stop({ minutes: 6 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['trip', 'parking']);
    expectTruth(all, truth);
    expect(all[0].avgSpeedKmh).toBeCloseTo(60, 6);
  });

  it('a longer journey with many stops matches its ground truth', () => {
    let j = journey(START);
    for (let i = 0; i < 8; i++) j = j.drive({ km: 1 + i, kmh: 30 + 5 * i, bearing: i * 45, every: 1 + (i % 3) }).stop({ minutes: i % 2 ? 3 : 12, every: 5 + i });
    const { points, truth } = j.build();
    const { all } = segment(points);
    expectTruth(all, truth);
    expect([truth.trips.length, truth.parkings.length]).toEqual([5, 4]);
    expect(all.filter((s) => s.type === 'trip').reduce((a, t) => a + t.lengthKm, 0)).toBeCloseTo(truth.totalKm, 6);
  });

  it('the stop is measured up to the next point: a tracker silent while stopped still gets its parking', () => {
    // Moving, one stopped point, nothing for 8 minutes (under the interval-mode gap), moving again.
    const pts = [pt(0, 52, 13, { speed: 40 }), pt(10, 52.001, 13, { speed: 40 }), pt(20, 52.002, 13), pt(500, 52.0021, 13, { speed: 30 }), pt(510, 52.003, 13, { speed: 30 })];
    const { all } = segment(pts);
    expect(all.map((s) => [s.type, sec(s.start), sec(s.end)])).toEqual([['trip', 0, 20], ['parking', 20, 500], ['trip', 500, 510]]);
  });

  it('a parking lasting through a silence, still stopped nearby, is one parking (a sleeping tracker)', () => {
    const pts = [pt(0, 52, 13, { speed: 40 }), pt(10, 52.001, 13), pt(400, 52.001, 13), pt(4000, 52.0012, 13), pt(8000, 52.0011, 13), pt(8010, 52.002, 13, { speed: 30 }), pt(8020, 52.003, 13, { speed: 30 })];
    const { all } = segment(pts);
    expect(all.map((s) => [s.type, sec(s.start), sec(s.end)])).toEqual([['trip', 0, 10], ['parking', 10, 8010], ['trip', 8010, 8020]]);
  });
});

describe('segmentation: ignition', () => {
  it('ignition off ends the trip at once, however short the stop', () => {
    const { points, truth } = journey(START, { ignition: true }).drive({ km: 2, kmh: 40 }).stop({ minutes: 1, ignitionOff: true }).drive({ km: 2, kmh: 40 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['trip', 'parking', 'trip']);
    expectTruth(all, truth);
  });

  it('with ignition on, a short stop does not end the trip; ignitionEndsTrip=false ignores ignition', () => {
    const j = journey(START, { ignition: true }).drive({ km: 2, kmh: 40 }).stop({ minutes: 1 }).drive({ km: 2, kmh: 40 }).build();
    expect(segment(j.points).all.map((s) => s.type)).toEqual(['trip']);
    const off = journey(START, { ignition: true }).drive({ km: 2, kmh: 40 }).stop({ minutes: 1, ignitionOff: true }).drive({ km: 2, kmh: 40 }).build();
    expect(segment(off.points, { ...DEFAULT_SETTINGS, ignitionEndsTrip: false }).all.map((s) => s.type)).toEqual(['trip']);
  });

  it('movement with ignition off (drift, towing) does not start a trip', () => {
    const pts = [pt(0, 52, 13, { speed: 40, ignition: true }), pt(10, 52.001, 13, { ignition: false }), pt(20, 52.0011, 13, { speed: 8, ignition: false }), pt(30, 52.0012, 13, { ignition: false })];
    expect(segment(pts).all.map((s) => [s.type, sec(s.start), sec(s.end)])).toEqual([['trip', 0, 10], ['parking', 10, 30]]);
  });
});

describe('segmentation: silences and interval mode', () => {
  it('isolated reports (interval mode) are single reports with speed and precision', () => {
    const { points, truth } = journey(START).reports({ count: 4, everyMinutes: 60, stepM: 1000, precision: 12 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['single_report', 'single_report', 'single_report', 'single_report']);
    expectTruth(all, truth);
    expect(all[0]).toMatchObject({ points: 1, precision: 12, lengthKm: 0, avgSpeedKmh: 0 });
    expect(all[3].open).toBe(true);
  });

  it('a silence cuts a trip at its last point; the next one starts at the first point after it', () => {
    const { points, truth } = journey(START).drive({ km: 3, kmh: 50 }).gap({ minutes: 30 }).drive({ km: 2, kmh: 50 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['trip', 'trip']);
    expectTruth(all, truth);
  });

  it('a silence during a short stop proves the stop: the parking lasts until the next point', () => {
    const { points, truth } = journey(START).drive({ km: 3, kmh: 50 }).stop({ minutes: 1 }).gap({ minutes: 30 }).drive({ km: 2, kmh: 50 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['trip', 'parking', 'trip']);
    expectTruth(all, truth);
  });

  it('trips then interval-mode reports then trips again', () => {
    const { points, truth } = journey(START).drive({ km: 2, kmh: 40 }).reports({ count: 3, stepM: 2000 }).drive({ km: 2, kmh: 40 }).stop({ minutes: 8 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['trip', 'single_report', 'single_report', 'single_report', 'trip', 'parking']);
    expectTruth(all, truth);
  });

  it('a journey that starts stopped starts with a parking (no one-point trip)', () => {
    const { points, truth } = journey(START).stop({ minutes: 10 }).drive({ km: 1, kmh: 30 }).build();
    const { all } = segment(points);
    expect(all.map((s) => s.type)).toEqual(['parking', 'trip']);
    expectTruth(all, truth);
  });

  it('intervalModeGapSeconds is a setting', () => {
    const pts = [pt(0, 52, 13), pt(120, 52, 13), pt(240, 52, 13)];
    expect(segment(pts, { ...DEFAULT_SETTINGS, intervalModeGapSeconds: 60 }).all.map((s) => s.type)).toEqual(['single_report', 'single_report', 'single_report']);
    expect(segment(pts).all.map((s) => s.type)).toEqual(['trip']); // a stop run not yet 5 minutes long
  });
});

describe('segmentation: segment fields', () => {
  it('counts events once, measures max speed and extent', () => {
    const pts = [pt(0, 52, 13, { speed: 40 }), pt(10, 52.001, 13, { speed: 70, event: true }), pt(20, 52.002, 13, { event: true }), pt(30, 52.002, 13), pt(400, 52.002, 13, { event: true })];
    const { all } = segment(pts);
    expect(all.map((s) => [s.type, s.events, s.points])).toEqual([['trip', 2, 3], ['parking', 1, 3]]); // the boundary point is in both, its event once
    expect(all[0].maxSpeedKmh).toBe(70);
    expect(all[0].extentM).toBeCloseTo(222.4, 0);
  });

  it('speed not reported: implied by the legs', () => {
    const pts = [0, 10, 20, 30].map((s, i) => pt(s, 52 + i * 0.001, 13, { speed: NaN }));
    const { open } = segment(pts);
    expect(open!.type).toBe('trip');
    expect(open!.maxSpeedKmh).toBeCloseTo(40.03, 1);
    expect(open!.avgSpeedKmh).toBeCloseTo(40.03, 1);
  });

});
