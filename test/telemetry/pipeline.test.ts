import { describe, expect, it } from 'vitest';
import { initialState, process, replayFrom, STAGES, type PipelineOutput, type PipelineState } from '../../src/telemetry/pipeline.ts';
import { DEFAULT_SETTINGS, type Point, type Segment } from '../../src/telemetry/types.ts';
import { journey, visitsOf } from './journeys.ts';

const T0 = Date.UTC(2024, 0, 1, 8);
const NOW = T0 + 7 * 86_400_000;
const START = { lat: 52.52, lng: 13.4, time: T0 };

/** Deterministic PRNG (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A day with everything: trips, short and long stops, ignition, silences, interval reports, plus noise. */
function noisyDay(seed: number): Point[] {
  const { points } = journey(START, { ignition: true })
    .drive({ km: 8, kmh: 50, every: 2 })
    .stop({ minutes: 12 })
    .drive({ km: 3, kmh: 40, bearing: 90 })
    .stop({ minutes: 2 })
    .drive({ km: 2, kmh: 30, bearing: 180 })
    .stop({ minutes: 1, ignitionOff: true })
    .drive({ km: 4, kmh: 60, bearing: 270, every: 5 })
    .gap({ minutes: 40 })
    .drive({ km: 1, kmh: 20 })
    .reports({ count: 4, everyMinutes: 30, stepM: 100, precision: 15 })
    .drive({ km: 5, kmh: 45, bearing: 45 })
    .stop({ minutes: 20, every: 30 })
    .build();
  const r = rng(seed);
  const out: Point[] = [];
  for (const p of points) {
    out.push(p);
    const x = r();
    if (x < 0.01) out.push({ ...p }); // duplicate
    else if (x < 0.02) out.push({ ...p, time: p.time + 300, lat: p.lat + 0.05 }); // outlier (jump)
    else if (x < 0.025) out.push({ ...p, time: p.time + 400, valid: false });
    else if (x < 0.03) out.push({ ...p, time: p.time + 500, lat: 0, lng: 0 });
    else if (x < 0.04) out.push({ ...p, time: p.time + 600, lbs: true, precision: 800, speed: NaN, lat: p.lat + 0.004 }); // an LBS point
    else if (x < 0.045) out.push({ ...p, time: p.time + 700, odometer: 1000 + p.time / 1000, ignition: undefined }); // device odometer, a while
  }
  out.push({ ...points[points.length - 1], time: NOW + 3_600_000 }); // from the future
  return out.sort((a, b) => a.time - b.time);
}

const ctx = { now: NOW, fuelPer100Km: 9 };
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v));

/** Runs in batches (cut anywhere but inside one time), the state through JSON between them. */
function inBatches(points: Point[], cuts: number[], state?: PipelineState) {
  const all = { closed: [] as Segment[], accepted: [] as Point[], dropped: [] as PipelineOutput['dropped'], checkpoints: [] as PipelineOutput['checkpoints'] };
  let last: PipelineOutput | undefined;
  let from = 0;
  for (const to of [...cuts, points.length]) {
    last = process(state, points.slice(from, to), DEFAULT_SETTINGS, ctx);
    state = json(last.state);
    all.closed.push(...last.closed);
    all.accepted.push(...last.accepted);
    all.dropped.push(...last.dropped);
    all.checkpoints.push(...last.checkpoints);
    from = to;
  }
  return { ...all, open: last!.open, openLbs: last!.openLbs, counters: last!.counters, state: state! };
}

function randomCuts(points: Point[], r: () => number, n: number): number[] {
  const cuts = new Set<number>();
  while (cuts.size < n) {
    const i = 1 + Math.floor(r() * (points.length - 1));
    if (points[i].time !== points[i - 1].time) cuts.add(i);
  }
  return [...cuts].sort((a, b) => a - b);
}

const stored = (o: { closed: Segment[]; open: Segment | null; openLbs: Segment | null }) => [...o.closed, ...(o.open ? [o.open] : []), ...(o.openLbs ? [o.openLbs] : [])];
const order = (a: Segment, b: Segment) => a.start - b.start || Number(a.gsmLbs) - Number(b.gsmLbs) || a.type.localeCompare(b.type);

describe('pipeline: journeys with known ground truth', () => {
  it('filter -> segmentation -> counters -> events, in this order', () => {
    expect(STAGES).toHaveLength(4);
  });

  it('drive 10 km, stop 10 min, drive, enter a circle for 7 minutes, leave: exact trips, parkings, lengths, counters', () => {
    const circle = { lat: 52.6, lng: 13.45, radiusM: 200 };
    const { points, truth } = journey(START).drive({ km: 10, kmh: 50 }).stop({ minutes: 10 }).drive({ km: 5, kmh: 40, bearing: 60 }).enterCircle(circle, { minutes: 7, kmh: 40 }).drive({ km: 2, kmh: 30, bearing: 0 }).build();
    const out = process(undefined, points, DEFAULT_SETTINGS, ctx);
    const all = stored(out);
    expect(all.map((s) => s.type)).toEqual(['trip', 'parking', 'trip', 'parking', 'trip']);
    expect(all.filter((s) => s.type === 'trip').map((s) => [s.start, s.end])).toEqual(truth.trips.map((t) => [t.start, t.end]));
    expect(all.filter((s) => s.type === 'parking').map((s) => [s.start, s.end])).toEqual(truth.parkings.map((t) => [t.start, t.end]));
    all.filter((s) => s.type === 'trip').forEach((s, i) => expect(s.lengthKm).toBeCloseTo(truth.trips[i].lengthKm, 6));
    expect(out.counters.odometerKm).toBeCloseTo(truth.totalKm, 6);
    expect(out.counters.fuelConsumedL).toBeCloseTo((truth.totalKm * 9) / 100, 6);
    expect(out.counters.engineHours).toBeCloseTo(truth.trips.reduce((a, t) => a + t.movingMs, 0) / 3_600_000, 6);
    expect(out.accepted).toHaveLength(points.length);
    expect(truth.visits[0]).toHaveLength(1);
    expect(visitsOf(out.accepted, circle)).toEqual(truth.visits[0]);
  });

  it('records a checkpoint at the start of every segment, with the state just before its first point', () => {
    const { points } = journey(START).drive({ km: 3, kmh: 50 }).stop({ minutes: 10 }).drive({ km: 3, kmh: 50 }).reports({ count: 2 }).drive({ km: 1, kmh: 30 }).build();
    const out = process(undefined, points, DEFAULT_SETTINGS, ctx);
    const times = out.checkpoints.map((c) => c.time);
    for (const s of stored(out)) expect(times).toContain(s.start);
    const first = out.checkpoints[0];
    expect(first.state).toEqual(initialState());
    for (const c of out.checkpoints) {
      const i = points.findIndex((p) => p.time === c.time);
      expect(c.state).toEqual(process(undefined, points.slice(0, i), DEFAULT_SETTINGS, ctx).state);
    }
  });

  it('GSM LBS points make their own segments and never move GNSS tracks or counters', () => {
    const { points } = journey(START).drive({ km: 5, kmh: 50 }).stop({ minutes: 10 }).build();
    const lbs = points.filter((_, i) => i % 50 === 25).map((p) => ({ ...p, time: p.time + 500, lbs: true, precision: 1000, lat: p.lat + 0.01 }));
    const plain = process(undefined, points, DEFAULT_SETTINGS, ctx);
    const mixed = process(undefined, [...points, ...lbs].sort((a, b) => a.time - b.time), DEFAULT_SETTINGS, ctx);
    expect(stored(mixed).filter((s) => !s.gsmLbs)).toEqual(stored(plain));
    expect(mixed.counters).toEqual(plain.counters);
    expect(stored(mixed).filter((s) => s.gsmLbs).length).toBeGreaterThan(0);
    expect(mixed.openLbs?.gsmLbs).toBe(true);
  });
});

describe('pipeline: batches and late data give exactly the in-order result', () => {
  for (const seed of [1, 2, 3, 4, 5]) {
    it(`random batch splits (seed ${seed})`, () => {
      const points = noisyDay(seed);
      const whole = process(undefined, points, DEFAULT_SETTINGS, ctx);
      expect(whole.dropped.map((d) => d.reason)).toEqual(expect.arrayContaining(['duplicate', 'jump', 'invalid', 'zero', 'future']));
      const r = rng(seed * 7);
      for (let k = 0; k < 4; k++) {
        const split = inBatches(points, randomCuts(points, r, 1 + Math.floor(r() * 30)));
        expect(split.closed).toEqual(whole.closed);
        expect(split.open).toEqual(whole.open);
        expect(split.openLbs).toEqual(whole.openLbs);
        expect(split.accepted).toEqual(whole.accepted);
        expect(split.dropped).toEqual(whole.dropped);
        expect(split.counters).toEqual(whole.counters);
        expect(split.state).toEqual(json(whole.state));
        expect(json(split.checkpoints)).toEqual(json(whole.checkpoints));
      }
    });

    it(`a late batch re-run from the checkpoint before it (seed ${seed})`, () => {
      const points = noisyDay(seed);
      const whole = process(undefined, points, DEFAULT_SETTINGS, ctx);
      const r = rng(seed * 13);
      for (let k = 0; k < 6; k++) {
        // A window of the day arrives late: first everything else is processed, then the late points.
        const a = Math.floor(r() * points.length);
        const b = Math.min(points.length, a + 1 + Math.floor(r() * 2000));
        const late = new Set(points.slice(a, b));
        const first = inBatches(points.filter((p) => !late.has(p)), []);
        const lateFrom = points[a].time;
        const cp = [...first.checkpoints].reverse().find((c) => c.time <= lateFrom);
        const state = cp ? json(cp.state) : undefined;
        const from = cp ? replayFrom(cp.state, cp.time) : { gnss: -Infinity, lbs: -Infinity };
        const rerun = inBatches(points.filter((p) => p.time >= (cp?.time ?? -Infinity)), [], state);
        const kept = stored(first).filter((s) => s.start < (s.gsmLbs ? from.lbs : from.gnss));
        expect([...kept, ...stored(rerun)].sort(order)).toEqual(stored(whole).sort(order));
        expect(rerun.counters).toEqual(whole.counters);
        expect(rerun.accepted).toEqual(whole.accepted.filter((p) => p.time >= (cp?.time ?? -Infinity)));
        const cps = [...first.checkpoints.filter((c) => c.time < (cp?.time ?? -Infinity)), ...rerun.checkpoints];
        expect(json(cps)).toEqual(json(whole.checkpoints));
      }
    });
  }
});

describe('pipeline: performance', () => {
  it('processes a day of 1 s fixes quickly (printed)', () => {
    let j = journey(START);
    for (let i = 0; i < 40; i++) j = j.drive({ km: 25, kmh: 60, bearing: i * 31 }).stop({ minutes: i % 2 ? 3 : 10, every: 1 });
    const { points } = j.build();
    process(undefined, points.slice(0, 20_000), DEFAULT_SETTINGS, ctx); // warm up
    const t0 = performance.now();
    let state: PipelineState | undefined;
    for (let i = 0; i < points.length; i += 5000) state = process(state, points.slice(i, i + 5000), DEFAULT_SETTINGS, ctx).state;
    const ms = performance.now() - t0;
    console.log(`pipeline: ${points.length} points in ${ms.toFixed(0)} ms = ${Math.round(points.length / (ms / 1000))} points/s on one thread`);
    expect(points.length).toBeGreaterThan(70_000);
  });
});
