/** Geofence visits with hysteresis (issue 5: "enter/exit with hysteresis against GPS jitter; LBS fixes never create visits"). */
import { describe, expect, it } from 'vitest';
import { GeoIndex, type Geofence } from '../../../src/telemetry/geofence/index.ts';
import { contains } from '../../../src/telemetry/geofence/shapes.ts';
import { DEFAULT_VISIT_SETTINGS, EMPTY_VISIT_STATE, visitBatch, visitMargin, visitStep, type VisitState } from '../../../src/telemetry/geofence/visits.ts';
import type { Point, Visit } from '../../../src/telemetry/types.ts';
import { destination, point, rng } from './helpers.ts';

const T0 = Date.UTC(2025, 5, 2, 8);
const C = { lat: 52.52, lng: 13.405 };
const circle: Geofence = { kind: 'zone', id: 1, ownerId: 1, shape: { type: 'circle', center: C, radius: 300 } };
// A 0.01° square north-east of C, and a place overlapping the circle.
const square: Geofence = {
  kind: 'zone',
  id: 2,
  ownerId: 1,
  shape: { type: 'polygon', rings: [[{ lat: 52.53, lng: 13.41 }, { lat: 52.53, lng: 13.42 }, { lat: 52.54, lng: 13.42 }, { lat: 52.54, lng: 13.41 }]] },
};
const place: Geofence = { kind: 'place', id: 9, ownerId: 1, shape: { type: 'circle', center: C, radius: 100 } };
const index = GeoIndex.from([circle, square, place]);
const probe = (p: Point, margin: number) => index.probe([1], p.lat, p.lng, margin);
const run = (points: Point[], state: VisitState = EMPTY_VISIT_STATE) => visitBatch(state, points, probe);
const onlyZone = (id: number, events: Visit[]) => events.filter((e) => e.kind === 'zone' && e.id === id);

/** A point `offset` metres from the circle's edge along a bearing (negative: inside). */
const byEdge = (time: number, bearing: number, offset: number, extra: Partial<Point> = {}) => {
  const p = destination(C.lat, C.lng, bearing, 300 + offset);
  return point(time, p.lat, p.lng, extra);
};

describe('visits: enter and exit', () => {
  it('a drive through: enters at the first inside point, exits at the first outside point', () => {
    // 100 m every 10 s along the west-east diameter (radius 300): -295 m (5 m in), -195 (deep), ..., 305 (5 m out), 405 (far).
    const pts = Array.from({ length: 20 }, (_, k) => {
      const x = -995 + 100 * k;
      const p = destination(C.lat, C.lng, x < 0 ? 270 : 90, Math.abs(x));
      return point(T0 + k * 10_000, p.lat, p.lng);
    });
    const { state, events } = run(pts);
    expect(onlyZone(1, events)).toEqual([
      { kind: 'zone', id: 1, enter: T0 + 7 * 10_000, exit: null },
      { kind: 'zone', id: 1, enter: T0 + 7 * 10_000, exit: T0 + 13 * 10_000 },
    ]);
    expect(events.filter((e) => e.kind === 'place')).toHaveLength(2); // the inner circle, too
    expect(state.fences).toEqual([]);
  });

  it('near the edge: two points over 30 s confirm, with the enter time of the first', () => {
    const inBand = (k: number) => byEdge(T0 + k * 1000, 200, -10);
    expect(run(Array.from({ length: 30 }, (_, k) => inBand(k))).events).toEqual([]); // 29 s
    const { events } = run(Array.from({ length: 31 }, (_, k) => inBand(k)));
    expect(events).toEqual([{ kind: 'zone', id: 1, enter: T0, exit: null }]);
  });

  it('sparse reports: one report just inside is no visit, two are', () => {
    const far = byEdge(T0 + 900_000, 0, 500);
    expect(run([byEdge(T0, 0, -10), far]).events).toEqual([]);
    expect(run([byEdge(T0, 0, -10), byEdge(T0 + 900_000, 10, -12)]).events).toEqual([{ kind: 'zone', id: 1, enter: T0, exit: null }]);
  });

  it("the point's precision widens the margin", () => {
    expect(run([byEdge(T0, 0, -50)]).events).toHaveLength(1);
    expect(run([byEdge(T0, 0, -50, { precision: 100 })]).events).toEqual([]);
    const inside = run([byEdge(T0, 0, -150)]).state;
    expect(run([byEdge(T0 + 1000, 0, 50, { precision: 100 })], inside).events).toEqual([]);
    expect(run([byEdge(T0 + 1000, 0, 50)], inside).events).toEqual([{ kind: 'zone', id: 1, enter: T0, exit: T0 + 1000 }]);
  });

  it('a geofence that is gone (absent from the hits) counts as far outside', () => {
    const inside = run([byEdge(T0, 0, -150)]).state;
    expect(visitStep(inside, byEdge(T0 + 5000, 0, -150), []).events).toEqual([{ kind: 'zone', id: 1, enter: T0, exit: T0 + 5000 }]);
  });

  it('events of one point in kind and id order', () => {
    const { events } = run([point(T0, C.lat, C.lng)]);
    expect(events.map((e) => `${e.kind}:${e.id}`)).toEqual(['zone:1', 'place:9']);
  });
});

describe('visits: jitter along an edge does not flap', () => {
  const rand = rng(21);
  /** One hour of 1 s fixes running around the circle `offset` m from its edge, +-15 m of jitter. */
  const alongCircle = (offset: number, from = T0, n = 3600) =>
    Array.from({ length: n }, (_, k) => byEdge(from + k * 1000, (k / n) * 360, offset + (rand() - 0.5) * 30));

  it('on the edge of a circle: the raw test flips hundreds of times, visits never start', () => {
    const pts = alongCircle(0);
    let flips = 0;
    for (let k = 1; k < pts.length; k++) if (contains(circle.shape, pts[k].lat, pts[k].lng) !== contains(circle.shape, pts[k - 1].lat, pts[k - 1].lng)) flips++;
    expect(flips).toBeGreaterThan(500);
    expect(onlyZone(1, run(pts).events)).toEqual([]);
  });

  it('along the edge of a polygon, from inside: one visit, never interrupted', () => {
    const deep = point(T0, 52.535, 13.415);
    const edge = Array.from({ length: 3600 }, (_, k) => point(T0 + (k + 1) * 1000, 52.54 + (rand() - 0.5) * 30 / 111_195, 13.411 + (k / 3600) * 0.008));
    const { state, events } = run([deep, ...edge]);
    expect(onlyZone(2, events)).toEqual([{ kind: 'zone', id: 2, enter: T0, exit: null }]);
    expect(state.fences.find((f) => f.id === 2)?.enter).toBe(T0);
  });

  it('approach, 10 minutes along the edge, deep inside, along the edge again, leave: exactly one visit', () => {
    const approach = Array.from({ length: 60 }, (_, k) => byEdge(T0 + k * 1000, 0, 600 - k * 10));
    const edge1 = alongCircle(-5, T0 + 60_000, 600);
    const deep = Array.from({ length: 300 }, (_, k) => byEdge(T0 + 660_000 + k * 1000, 90, -150));
    const edge2 = alongCircle(-5, T0 + 960_000, 600);
    const leave = Array.from({ length: 60 }, (_, k) => byEdge(T0 + 1_560_000 + k * 1000, 180, k * 10));
    const events = onlyZone(1, run([...approach, ...edge1, ...deep, ...edge2, ...leave]).events);
    expect(events).toHaveLength(2);
    expect(events[0].exit).toBeNull();
    expect(events[1].enter).toBe(events[0].enter);
    expect(events[1].exit).toBeGreaterThanOrEqual(T0 + 1_560_000);
    expect(events[1].exit).toBeLessThanOrEqual(T0 + 1_560_000 + 3000); // the first outside point of the leave
  });
});

describe('visits: LBS and invalid points', () => {
  it('LBS points never create visits, even deep inside and for hours', () => {
    const pts = Array.from({ length: 100 }, (_, k) => point(T0 + k * 60_000, C.lat, C.lng, { lbs: true }));
    expect(run(pts)).toEqual({ state: EMPTY_VISIT_STATE, events: [] });
  });
  it('LBS points never end a visit nor break a pending run; invalid points are ignored', () => {
    const inside = run([point(T0, C.lat, C.lng)]).state;
    const noise = [
      point(T0 + 1000, 52.6, 13.6, { lbs: true }),
      point(T0 + 2000, 52.6, 13.6, { valid: false }),
      point(T0 + 3000, NaN, NaN),
    ];
    expect(run(noise, inside)).toEqual({ state: inside, events: [] });
    const pending = run([byEdge(T0, 0, -10)]).state;
    const { events } = run([point(T0 + 10_000, 52.6, 13.6, { lbs: true }), byEdge(T0 + 40_000, 0, -10)], pending);
    expect(onlyZone(1, events)).toEqual([{ kind: 'zone', id: 1, enter: T0, exit: null }]);
  });
});

describe('visits: state', () => {
  const rand = rng(31);
  const journey = Array.from({ length: 600 }, (_, k) => byEdge(T0 + k * 5000, k * 1.7, Math.sin(k / 40) * 400 + (rand() - 0.5) * 60, { precision: rand() < 0.1 ? 80 : NaN }));

  it('split anywhere with the state through JSON (checkpoints, threads): the same events', () => {
    const whole = run(journey);
    expect(whole.events.length).toBeGreaterThan(4);
    for (const cut of [1, 17, 133, 300, 599]) {
      const first = run(journey.slice(0, cut));
      const second = run(journey.slice(cut), JSON.parse(JSON.stringify(first.state)));
      expect([...first.events, ...second.events]).toEqual(whole.events);
      expect(second.state).toEqual(whole.state);
    }
  });

  it('never mutates the state it is given', () => {
    let state: VisitState = EMPTY_VISIT_STATE;
    for (const p of journey) {
      const before = JSON.stringify(state);
      const next = visitStep(state, p, probe(p, visitMargin(p)), DEFAULT_VISIT_SETTINGS).state;
      expect(JSON.stringify(state)).toBe(before);
      state = next;
    }
  });
});
