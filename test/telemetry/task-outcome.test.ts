/**
 * Task outcome rules (issue 5; docs/tasks.md): tables of timelines with the expected outcome, the
 * due times checked against a brute-force scan, monotonicity, and the route order rule.
 */
import { describe, expect, it } from 'vitest';
import {
  judgeRoute,
  judgeTask,
  nextDueTime,
  nextRouteDueTime,
  taskFacts,
  toOutcome,
  withFormSubmitted,
  type CheckpointFacts,
  type FormFacts,
  type Judgement,
  type TaskFacts,
} from '../../src/telemetry/task-outcome.ts';
import type { Visit } from '../../src/telemetry/types.ts';

const T0 = Date.UTC(2025, 5, 2, 10, 0); // the window opens at minute 0
/** Minutes after T0 as ms UTC. */
const m = (min: number) => T0 + Math.round(min * 60_000);
const task = (o: Partial<TaskFacts> = {}): TaskFacts => ({ status: 'assigned', from: m(0), to: m(60), max_delay: 0, min_stay_duration: 0, form: null, ...o });
/** Stays as [enter, exit] in minutes; exit null = still inside. */
const stays = (...s: Array<[number, number | null]>): Visit[] => s.map(([a, b]) => ({ kind: 'task', id: 1, enter: m(a), exit: b === null ? null : m(b) }));
const form = (submitted: number | null, required = true): FormFacts => ({ required, submittedAt: submitted === null ? null : m(submitted) });

interface Row {
  name: string;
  task?: Partial<TaskFacts>;
  visits?: Visit[];
  now: number; // minutes
  status: Judgement['status'];
  arrival?: number | null; // minutes
  stay?: number; // seconds
  change?: number | null; // minutes
}

const cases: Row[] = [
  // Assignment and arrival
  { name: 'unassigned tasks are never judged, even inside the zone', task: { status: 'unassigned' }, visits: stays([5, 20]), now: 100, status: 'unassigned', arrival: null, stay: 0, change: null },
  { name: 'assigned, nobody came yet', now: 30, status: 'assigned', arrival: null, stay: 0, change: null },
  { name: 'inside before the window opens: not arrived yet', task: { min_stay_duration: 10 }, visits: stays([-20, null]), now: -1, status: 'assigned', arrival: null, stay: 0 },
  { name: 'inside since before the window: arrived when it opens, stay counted from `from`', task: { min_stay_duration: 10 }, visits: stays([-20, null]), now: 5, status: 'arrived', arrival: 0, stay: 300, change: 0 },
  { name: 'arrival exactly at `from` counts (inclusive)', task: { min_stay_duration: 10 }, visits: stays([0, 3]), now: 30, status: 'arrived', arrival: 0, stay: 180 },
  { name: 'leaving exactly at `from` is not an arrival (the exit fix is outside)', visits: stays([-10, 0]), now: 30, status: 'assigned', arrival: null },
  { name: 'arrived stays arrived after leaving without enough stay', task: { min_stay_duration: 10 }, visits: stays([10, 15]), now: 30, status: 'arrived', arrival: 10, stay: 300, change: 10 },
  // Done
  { name: 'no minimum stay: done on arrival', visits: stays([12, 13]), now: 30, status: 'done', arrival: 12, stay: 60, change: 12 },
  { name: 'arrival exactly at `to`, no minimum stay: done (inclusive)', visits: stays([60, 61]), now: 61, status: 'done', arrival: 60, stay: 0, change: 60 },
  { name: 'minimum stay in one visit: done when it is reached', task: { min_stay_duration: 10 }, visits: stays([10, 30]), now: 40, status: 'done', arrival: 10, stay: 1200, change: 20 },
  { name: 'stays add up across visits', task: { min_stay_duration: 10 }, visits: stays([10, 15], [20, 26]), now: 40, status: 'done', arrival: 10, stay: 660, change: 25 },
  { name: 'overlapping visits are counted once', task: { min_stay_duration: 20 }, visits: stays([10, 20], [15, 25]), now: 40, status: 'arrived', stay: 900 },
  { name: 'overlapping visits reaching the minimum: done once the merged stay is enough', task: { min_stay_duration: 10 }, visits: stays([10, 20], [15, 25]), now: 40, status: 'done', stay: 900, change: 20 },
  { name: 'visits given out of order still add up', task: { min_stay_duration: 10 }, visits: stays([20, 26], [10, 15]), now: 40, status: 'done', change: 25 },
  { name: 'minimum reached exactly at `to`: done', task: { min_stay_duration: 10 }, visits: stays([50, null]), now: 61, status: 'done', arrival: 50, stay: 600, change: 60 },
  { name: 'open visit counts until now', task: { min_stay_duration: 30 }, visits: stays([10, null]), now: 30, status: 'arrived', stay: 1200 },
  { name: 'open visit: done when now passes the minimum', task: { min_stay_duration: 30 }, visits: stays([10, null]), now: 45, status: 'done', stay: 2100, change: 40 },
  { name: 'stay is whole seconds (floored)', task: { min_stay_duration: 10 }, visits: stays([10, 10.0251]), now: 30, status: 'arrived', stay: 1 },
  { name: 'stay before `from` does not count', task: { min_stay_duration: 10 }, visits: stays([-10, 5]), now: 61, status: 'failed', arrival: 0, stay: 300, change: 60 },
  // Delayed
  { name: 'arrival after `to` within max_delay: delayed', task: { max_delay: 30 }, visits: stays([70, 71]), now: 80, status: 'delayed', arrival: 70, change: 70 },
  { name: 'arrival after `to`, max_delay not over yet: arrived', task: { max_delay: 30, min_stay_duration: 5 }, visits: stays([70, null]), now: 72, status: 'arrived', arrival: 70, change: 70 },
  { name: 'completion exactly at to + max_delay: delayed (inclusive)', task: { max_delay: 30 }, visits: stays([90, 91]), now: 100, status: 'delayed', arrival: 90, change: 90 },
  { name: 'completion 1 ms after to + max_delay: failed', task: { max_delay: 30 }, visits: [{ kind: 'task', id: 1, enter: m(90) + 1, exit: m(95) }], now: 100, status: 'failed', arrival: null, change: 90 },
  { name: 'stay across `to` completes after it: delayed', task: { max_delay: 30, min_stay_duration: 10 }, visits: stays([55, 70]), now: 80, status: 'delayed', arrival: 55, stay: 900, change: 65 },
  { name: 'the same stay with max_delay 0: only 5 minutes count, failed', task: { min_stay_duration: 10 }, visits: stays([55, 70]), now: 80, status: 'failed', arrival: 55, stay: 300, change: 60 },
  { name: 'stay is counted up to to + max_delay only', task: { max_delay: 30 }, visits: stays([30, null]), now: 200, status: 'done', stay: 3600, change: 30 },
  // Failed
  { name: 'deadline not passed at exactly `to`', now: 60, status: 'assigned' },
  { name: 'failed 1 ms after `to`; status_change_date = `to`', now: 60 + 1 / 60_000, status: 'failed', arrival: null, change: 60 },
  { name: 'with max_delay: still assigned at to + max_delay', task: { max_delay: 30 }, now: 90, status: 'assigned' },
  { name: 'with max_delay: failed after to + max_delay', task: { max_delay: 30 }, now: 91, status: 'failed', change: 90 },
  { name: 'arrived, left too early, deadline passed: failed, arrival kept', task: { min_stay_duration: 10 }, visits: stays([10, 15]), now: 61, status: 'failed', arrival: 10, stay: 300, change: 60 },
  { name: 'a visit after the deadline changes nothing', task: { max_delay: 30 }, visits: stays([100, 110]), now: 120, status: 'failed', arrival: null },
  // Forms
  { name: 'required form not submitted: arrived, not done', task: { min_stay_duration: 10, form: form(null) }, visits: stays([10, 30]), now: 40, status: 'arrived', stay: 1200, change: 10 },
  { name: 'form submitted after the stay: done at the submission', task: { min_stay_duration: 10, form: form(35) }, visits: stays([10, 30]), now: 40, status: 'done', change: 35 },
  { name: 'form submitted before the stay was enough: done when the stay is', task: { min_stay_duration: 10, form: form(12) }, visits: stays([10, 30]), now: 40, status: 'done', change: 20 },
  { name: 'form submitted after `to`, within max_delay: delayed', task: { max_delay: 30, form: form(75) }, visits: stays([10, 30]), now: 80, status: 'delayed', change: 75 },
  { name: 'form submitted after to + max_delay: failed', task: { max_delay: 30, form: form(95) }, visits: stays([10, 30]), now: 100, status: 'failed', change: 90 },
  { name: 'a submission in the future is not a fact yet', task: { form: form(50) }, visits: stays([10, 30]), now: 40, status: 'arrived' },
  { name: 'a form that is not required does not block', task: { form: form(null, false) }, visits: stays([10, 30]), now: 40, status: 'done', change: 10 },
];

describe('judgeTask: timelines', () => {
  it.each(cases)('$name', (c) => {
    const j = judgeTask(task(c.task), c.visits ?? [], m(c.now));
    expect(j.status).toBe(c.status);
    if (c.arrival !== undefined) expect(j.arrival_date).toBe(c.arrival === null ? null : m(c.arrival));
    if (c.stay !== undefined) expect(j.stay_duration).toBe(c.stay);
    if (c.change !== undefined) expect(j.status_change_date).toBe(c.change === null ? null : m(c.change));
    const completed = ['done', 'delayed'].includes(j.status);
    expect(j.completion_date).toBe(completed ? j.status_change_date : null);
  });
});

describe('late data and recomputation', () => {
  const t = task({ min_stay_duration: 10 });
  it('fixes arriving after the deadline still count by their own times', () => {
    expect(judgeTask(t, [], m(120)).status).toBe('failed'); // the tracker was offline: nothing known
    const late = judgeTask(t, stays([10, 25]), m(120)); // its buffer arrives: it was there in time
    expect(late).toEqual({ status: 'done', arrival_date: m(10), stay_duration: 900, status_change_date: m(20), completion_date: m(20) });
  });
  it('the answer depends only on the facts, not on the order they arrived in', () => {
    const v = stays([40, 45], [10, 15], [20, 22]);
    const all = judgeTask(t, v, m(120));
    expect(judgeTask(t, [...v].reverse(), m(120))).toEqual(all);
    expect(judgeTask(JSON.parse(JSON.stringify(t)), JSON.parse(JSON.stringify(v)), m(120))).toEqual(all);
    expect(all).toMatchObject({ status: 'done', status_change_date: m(43) });
  });
  it('a window moved by task/update is judged from scratch with the same visits', () => {
    const v = stays([70, 85]);
    expect(judgeTask(t, v, m(200)).status).toBe('failed');
    expect(judgeTask({ ...t, from: m(60), to: m(120) }, v, m(200))).toMatchObject({ status: 'done', status_change_date: m(80) });
  });
});

describe('form hook', () => {
  it('formSubmitted re-judges with the submission time: arrived -> done', () => {
    const t = task({ min_stay_duration: 10, form: form(null) });
    const v = stays([10, 30]);
    expect(judgeTask(t, v, m(35)).status).toBe('arrived');
    expect(judgeTask(withFormSubmitted(t, m(35)), v, m(35))).toMatchObject({ status: 'done', status_change_date: m(35) });
  });
  it('the earliest submission wins (resubmitting does not move completion)', () => {
    const t = withFormSubmitted(withFormSubmitted(task({ form: form(null) }), m(20)), m(50));
    expect(t.form).toEqual({ required: true, submittedAt: m(20) });
    expect(withFormSubmitted(task(), m(5)).form).toEqual({ required: true, submittedAt: m(5) });
  });
});

describe('nextDueTime', () => {
  it.each([
    { name: 'nothing happening: the deadline (failed 1 ms after it)', t: task(), v: [] as Visit[], now: 10, due: m(60) + 1 },
    { name: 'with max_delay', t: task({ max_delay: 30 }), v: [], now: 10, due: m(90) + 1 },
    { name: 'inside before the window: its opening', t: task({ min_stay_duration: 5 }), v: stays([-10, null]), now: -5, due: m(0) },
    { name: 'inside: when the stay reaches the minimum', t: task({ min_stay_duration: 10 }), v: stays([5, null]), now: 8, due: m(15) },
    { name: 'inside, earlier stays count', t: task({ min_stay_duration: 10 }), v: stays([1, 5], [20, null]), now: 22, due: m(26) },
    { name: 'inside, the minimum reached exactly at the deadline: that instant (completion counts)', t: task({ min_stay_duration: 10 }), v: stays([50, null]), now: 55, due: m(60) },
    { name: 'inside but the minimum would come after the deadline: the deadline', t: task({ min_stay_duration: 10 }), v: stays([55, null]), now: 56, due: m(60) + 1 },
    { name: 'inside, form not submitted: the deadline', t: task({ min_stay_duration: 10, form: form(null) }), v: stays([5, null]), now: 8, due: m(60) + 1 },
    { name: 'inside, form already submitted: the stay', t: task({ min_stay_duration: 10, form: form(6) }), v: stays([5, null]), now: 8, due: m(15) },
    { name: 'left the zone: only the deadline', t: task({ min_stay_duration: 10 }), v: stays([5, 8]), now: 9, due: m(60) + 1 },
    { name: 'done: nothing due', t: task(), v: stays([5, 8]), now: 9, due: null },
    { name: 'failed: nothing due', t: task(), v: [], now: 61, due: null },
    { name: 'unassigned: nothing due', t: task({ status: 'unassigned' }), v: [], now: 9, due: null },
  ])('$name', ({ t, v, now, due }) => {
    expect(nextDueTime(t, v, m(now))).toBe(due);
  });
});

/** A small deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random facts known at `now`: closed visits end by `now`, the last one may be open; a form submitted by `now`. */
function randomCase(r: () => number) {
  const int = (a: number, b: number) => a + Math.floor(r() * (b - a + 1));
  const now = int(-20, 120);
  const t = task({ max_delay: [0, 0, 15, 30][int(0, 3)], min_stay_duration: [0, 5, 10, 25][int(0, 3)], form: r() < 0.3 ? form(r() < 0.5 ? null : int(-30, now)) : null });
  const v: Visit[] = [];
  let at = int(-40, 0);
  while (at < now && v.length < 4) {
    const enter = at + int(0, 20);
    const exit = enter + int(1, 20);
    if (enter >= now) break;
    if (exit > now || r() < 0.15) {
      v.push({ kind: 'task', id: 1, enter: m(enter), exit: null });
      break;
    }
    v.push({ kind: 'task', id: 1, enter: m(enter), exit: m(exit) });
    at = exit + int(0, 10);
  }
  return { t, v, now: m(now) };
}

describe('properties against brute force', () => {
  const ORDER: Record<string, number> = { assigned: 0, arrived: 1, done: 2, delayed: 2, failed: 2 };
  it('nextDueTime is exactly the first change of status when no new fact arrives (2000 random timelines)', () => {
    const r = rng(7);
    const kinds = { none: 0, deadline: 0, opening: 0, stay: 0 };
    for (let i = 0; i < 2000; i++) {
      const { t, v, now } = randomCase(r);
      const status = judgeTask(t, v, now).status;
      const due = nextDueTime(t, v, now);
      // Every minute boundary, ±1 ms, up to well past any deadline.
      const probes: number[] = [];
      for (let k = Math.ceil((now - T0) / 60_000); k <= 200; k++) probes.push(m(k) - 1, m(k), m(k) + 1);
      const firstChange = probes.filter((p) => p > now).find((p) => judgeTask(t, v, p).status !== status) ?? null;
      if (firstChange !== due) expect({ i, t, v, now, due }).toEqual({ i, t, v, now, due: firstChange });
      kinds[due === null ? 'none' : due === m(60 + t.max_delay) + 1 ? 'deadline' : due === t.from ? 'opening' : 'stay']++;
    }
    // Not vacuous: every kind of due time occurs.
    for (const n of Object.values(kinds)) expect(n).toBeGreaterThan(20);
  });
  it('statuses only move forward as time passes, and a final status keeps its date (2000 random timelines)', () => {
    const r = rng(11);
    for (let i = 0; i < 2000; i++) {
      const { t, v, now } = randomCase(r);
      let prev = judgeTask(t, v, now);
      for (let k = Math.ceil((now - T0) / 60_000); k <= 200; k += 3) {
        const j = judgeTask(t, v, Math.max(now, m(k)));
        const back = ORDER[j.status] < ORDER[prev.status];
        const moved = ORDER[prev.status] === 2 && (j.status !== prev.status || j.status_change_date !== prev.status_change_date);
        if (back || moved) expect({ i, t, v, k, status: j.status }).toEqual({ i, t, v, k, status: prev.status });
        prev = j;
      }
    }
  });
});

describe('routes: checkpoint order', () => {
  const cp = (visits: Visit[], o: Partial<TaskFacts> = {}): CheckpointFacts => ({ task: task(o), visits });
  const statuses = (js: Judgement[]) => js.map((j) => j.status);
  it('visited in order: all done', () => {
    expect(statuses(judgeRoute([cp(stays([5, 6])), cp(stays([10, 11])), cp(stays([20, 21]))], m(30)))).toEqual(['done', 'done', 'done']);
  });
  it('an earlier checkpoint completed after a later one is faulty, at its completion; the later one stays done', () => {
    const js = judgeRoute([cp(stays([20, 21])), cp(stays([10, 11])), cp(stays([30, 31]))], m(40));
    expect(statuses(js)).toEqual(['faulty', 'done', 'done']);
    expect(js[0]).toMatchObject({ status_change_date: m(20), completion_date: m(20), arrival_date: m(20) });
  });
  it('order is by completion, not arrival: arriving first but completing last is faulty', () => {
    const js = judgeRoute([cp(stays([5, 20]), { min_stay_duration: 10 }), cp(stays([10, 11]))], m(40));
    expect(statuses(js)).toEqual(['faulty', 'done']);
  });
  it('a skipped checkpoint fails on its own; the later ones are not faulty', () => {
    expect(statuses(judgeRoute([cp([], { to: m(15) }), cp(stays([20, 21]))], m(40)))).toEqual(['failed', 'done']);
  });
  it('an earlier checkpoint still pending is not judged faulty until it completes (no status goes back)', () => {
    const route = (v0: Visit[]) => [cp(v0, { min_stay_duration: 5 }), cp(stays([10, 11]))];
    expect(statuses(judgeRoute(route(stays([20, null])), m(22)))).toEqual(['arrived', 'done']);
    expect(statuses(judgeRoute(route(stays([20, null])), m(26)))).toEqual(['faulty', 'done']);
  });
  it('delayed later checkpoints count as completed', () => {
    const js = judgeRoute([cp(stays([80, 81]), { max_delay: 60 }), cp(stays([70, 71]), { max_delay: 60 })], m(100));
    expect(statuses(js)).toEqual(['faulty', 'delayed']);
  });
  it('completed at the same instant: not out of order', () => {
    expect(statuses(judgeRoute([cp(stays([10, 11])), cp(stays([10, 12]))], m(30)))).toEqual(['done', 'done']);
  });
  it('unassigned checkpoints are never judged', () => {
    expect(statuses(judgeRoute([cp(stays([20, 21]), { status: 'unassigned' }), cp(stays([10, 11]), { status: 'unassigned' })], m(30)))).toEqual(['unassigned', 'unassigned']);
  });
  it('nextRouteDueTime is the earliest due checkpoint', () => {
    const route = [cp([], { to: m(100) }), cp(stays([5, null]), { min_stay_duration: 10 }), cp(stays([1, 2]))];
    expect(nextRouteDueTime(route, m(8))).toBe(m(15));
    expect(nextRouteDueTime([cp(stays([1, 2]))], m(8))).toBe(null);
  });
});

describe('adapters', () => {
  const row = { status: 'assigned' as const, from_time: m(0), to_time: m(60), max_delay: 5, min_stay_duration: 2 };
  it('taskFacts from a stored row; none without a window', () => {
    expect(taskFacts(row)).toEqual({ status: 'assigned', from: m(0), to: m(60), max_delay: 5, min_stay_duration: 2, form: null });
    expect(taskFacts({ ...row, from_time: null })).toBeNull();
  });
  it('toOutcome: what setOutcome takes; `at` is the fact time, else now; unassigned is never written', () => {
    const j = judgeTask(task(), stays([5, 6]), m(10));
    expect(toOutcome(j, m(10))).toEqual({ status: 'done', at: m(5), arrival_date: m(5), stay_duration: 60, completion_date: m(5) });
    expect(toOutcome(judgeTask(task(), [], m(10)), m(10))).toMatchObject({ status: 'assigned', at: m(10) });
    expect(toOutcome(judgeTask(task({ status: 'unassigned' }), [], m(10)), m(10))).toBeNull();
  });
});
