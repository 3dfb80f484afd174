import { describe, expect, it } from 'vitest';
import { EMPTY_FILTER, JUMP_CONFIRM_POINTS, filterPoint, type FilterState } from '../../../src/telemetry/stages/filter.ts';
import { DEFAULT_SETTINGS, type DropReason, type Point } from '../../../src/telemetry/types.ts';
import { pt, T0 } from './points.ts';

const NOW = T0 + 3600_000;

/** Runs points through the filter, JSON round trip of the state between points (as checkpoints do). */
function run(points: Point[], now = NOW) {
  let s: FilterState = EMPTY_FILTER;
  const accepted: number[] = [];
  const dropped: Array<[number, DropReason]> = [];
  for (const p of points) {
    const r = filterPoint(s, p, DEFAULT_SETTINGS, now);
    s = JSON.parse(JSON.stringify(r.state));
    accepted.push(...r.accepted.map((a) => (a.time - T0) / 1000));
    dropped.push(...r.dropped.map((d) => [(d.point.time - T0) / 1000, d.reason] as [number, DropReason]));
  }
  return { accepted, dropped, state: s };
}

describe('filter: points dropped on their own', () => {
  it('drops invalid fixes, missing or out-of-range coordinates', () => {
    const r = run([pt(0, 52, 13, { valid: false }), pt(1, NaN, NaN), pt(2, 91, 13), pt(3, 52, 181), pt(4, 52, 13)]);
    expect(r.dropped).toEqual([[0, 'invalid'], [1, 'invalid'], [2, 'invalid'], [3, 'invalid']]);
    expect(r.accepted).toEqual([4]);
  });

  it('drops (0,0)', () => {
    expect(run([pt(0, 0, 0), pt(1, 0, 13)]).dropped).toEqual([[0, 'zero']]);
  });

  it('drops fixes beyond now + futureToleranceSeconds, keeps those within it', () => {
    const now = T0;
    const r = run([pt(200, 52, 13), pt(301, 52, 13)], now);
    expect(r.accepted).toEqual([200]);
    expect(r.dropped).toEqual([[301, 'future']]);
  });

  it('drops duplicates (same time as the last accepted, whatever the position) and out-of-order points', () => {
    const r = run([pt(10, 52, 13), pt(10, 52, 13), pt(10, 52.0001, 13), pt(5, 52, 13), pt(11, 52, 13)]);
    expect(r.accepted).toEqual([10, 11]);
    expect(r.dropped).toEqual([[10, 'duplicate'], [10, 'duplicate'], [5, 'out_of_order']]);
  });
});

describe('filter: jumps', () => {
  // 0.01 degree of latitude is 1.11 km: in 1 s that is ~4000 km/h.
  it('drops a single outlier once the next point fits the last accepted one', () => {
    const r = run([pt(0, 52, 13), pt(1, 52.01, 13), pt(2, 52, 13)]);
    expect(r.accepted).toEqual([0, 2]);
    expect(r.dropped).toEqual([[1, 'jump']]);
  });

  it('accepts a fast but possible move (under maxJumpSpeedKmh)', () => {
    // 1.11 km in 15 s = 267 km/h
    expect(run([pt(0, 52, 13), pt(15, 52.01, 13)]).accepted).toEqual([0, 15]);
  });

  it('a long gap is no jump: the implied speed is low', () => {
    expect(run([pt(0, 52, 13), pt(3600, 53, 13)]).accepted).toEqual([0, 3600]); // 111 km in 1 h
  });

  it(`accepts a jump confirmed by ${JUMP_CONFIRM_POINTS} points in a row: the track never freezes`, () => {
    // The first point was wrong (or the device really moved): all later points agree with each other.
    const pts = [pt(0, 52, 13), pt(10, 53, 13), pt(11, 53, 13.0001), pt(12, 53, 13.0002), pt(13, 53, 13.0003)];
    const r = run(pts);
    expect(r.accepted).toEqual([0, 10, 11, 12, 13]);
    expect(r.dropped).toEqual([]);
    expect(r.state.gnss.pending).toEqual([]);
  });

  it('holds a possible jump without deciding until the next points come', () => {
    const r = run([pt(0, 52, 13), pt(10, 53, 13), pt(11, 53, 13.0001)]);
    expect(r.accepted).toEqual([0]);
    expect(r.dropped).toEqual([]);
    expect(r.state.gnss.pending.map((p) => (p.time! - T0) / 1000)).toEqual([10, 11]);
  });

  it('drops a held chain when another excursion starts, and when the track returns', () => {
    const r = run([pt(0, 52, 13), pt(10, 53, 13), pt(11, 54, 13), pt(12, 52, 13.0001)]);
    expect(r.accepted).toEqual([0, 12]);
    expect(r.dropped).toEqual([[10, 'jump'], [11, 'jump']]);
  });

  it('released held points come back whole from JSON state (NaN fields restored)', () => {
    let s: FilterState = EMPTY_FILTER;
    const out: Point[] = [];
    for (const p of [pt(0, 52, 13), pt(10, 53, 13, { ignition: true, odometer: 5 }), pt(11, 53, 13.0001), pt(12, 53, 13.0002)]) {
      const r = filterPoint(s, p, DEFAULT_SETTINGS, NOW);
      s = JSON.parse(JSON.stringify(r.state));
      out.push(...r.accepted);
    }
    expect(out[1]).toEqual(pt(10, 53, 13, { ignition: true, odometer: 5 }));
    expect(Number.isNaN(out[1].precision)).toBe(true);
  });

  it('takes the accuracy radius off the distance: coarse positions hopping within it are no jump', () => {
    const a = pt(0, 52, 13, { precision: 1000 });
    const b = pt(2, 52.015, 13, { precision: 1000 }); // 1.67 km in 2 s, within 2 km of slack
    expect(run([a, b]).accepted).toEqual([0, 2]);
  });
});

describe('filter: GSM LBS points', () => {
  it('are a stream of their own: duplicates and jumps are judged against LBS points only', () => {
    const lbs = (s: number, lat: number) => pt(s, lat, 13, { lbs: true, precision: 500 });
    const r = run([pt(0, 52, 13), lbs(0, 52.5), pt(1, 52, 13.00001), lbs(1, 52.5), lbs(2, 52.5)]);
    expect(r.accepted).toEqual([0, 0, 1, 1, 2]);
    expect(r.state.lbs.last?.lat).toBe(52.5);
    expect(r.state.gnss.last?.lat).toBe(52);
  });
});
