/**
 * The task judge's minute timer judges open tasks a slice per transaction, with a turn of the event
 * loop between slices, so thousands of overdue tasks (a large import, a server that was down) never
 * hold the API still; a round under way is not started twice, and a stop ends it after its slice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskJudge } from '../../src/telemetry/task-judge.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let tracker: number;
const NOW = Date.UTC(2026, 0, 10, 12, 1);

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'UTC' });
  tracker = s.addTracker(ann.id, 'judge-slices', { protocol: 'osmand' });
});
afterAll(() => s?.close());

/** `n` tasks assigned to the tracker, their deadline passed at NOW, nobody there. */
async function overdue(n: number, label: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const task = { label: `${label} ${i}`, location: { lat: 54.687, lng: 25.28 + i / 1000, address: 'Square', radius: 100 }, from: '2026-01-10 09:00:00', to: '2026-01-10 12:00:00' };
    const r = await s.call('task/create', { hash: ann.hash, task });
    expect(r.body.success).toBe(true);
    expect((await s.call('task/assign', { hash: ann.hash, task_id: r.body.id, tracker_id: tracker })).body.success).toBe(true);
    ids.push(r.body.id);
  }
  return ids;
}
const failed = (ids: number[]) => s.sql.prepare(`SELECT count(*) FROM tasks WHERE status = 'failed' AND id IN (${ids.join(',')})`).pluck().get() as number;

describe('the task judge timer', () => {
  it('judges 25 overdue tasks in slices of 10, the event loop turning between slices', async () => {
    const ids = await overdue(25, 'Deliver');
    const judge = new TaskJudge(s.store.telemetry, s.store.trackers, () => NOW, { slice: 10 });
    const seen: number[] = [];
    const watch = () => {
      seen.push(failed(ids));
      if (seen.length < 10) setImmediate(watch);
    };
    setImmediate(watch);
    const round = judge.judgeDue();
    expect(judge.judgeDue()).toBe(round); // not started twice
    await round;
    expect(failed(ids)).toBe(25);
    // Other work ran while the round was half done.
    expect(seen.some((n) => n > 0 && n < 25)).toBe(true);
    // Nothing is due any more; a new round judges nothing and records nothing.
    expect(s.store.telemetry.tasksDue(NOW)).toEqual([]);
    const events = s.sql.prepare("SELECT count(*) FROM events WHERE type = 'task_status_changed'").pluck().get();
    await judge.judgeDue();
    expect(s.sql.prepare("SELECT count(*) FROM events WHERE type = 'task_status_changed'").pluck().get()).toBe(events);
  });

  it('slices shrink to the time budget (to no fewer than 10 tasks) when a slice takes longer', async () => {
    const ids = await overdue(45, 'Repair');
    const judge = new TaskJudge(s.store.telemetry, s.store.trackers, () => NOW, { slice: 20, sliceMs: 1e-6 });
    const seen: number[] = [];
    const watch = () => {
      seen.push(failed(ids));
      if (failed(ids) < 45) setImmediate(watch);
    };
    setImmediate(watch);
    await judge.judgeDue();
    expect(failed(ids)).toBe(45);
    // 20 first, then slices of 10 (a fixed size would have gone 20, 40, 45).
    expect(seen).toContain(30);
  });

  it('a stop during a round ends it after the current slice; the next round judges the rest', async () => {
    const ids = await overdue(25, 'Collect');
    const judge = new TaskJudge(s.store.telemetry, s.store.trackers, () => NOW, { slice: 10 });
    const round = judge.judgeDue();
    await judge.stop();
    await round;
    expect(failed(ids)).toBe(10);
    await new TaskJudge(s.store.telemetry, s.store.trackers, () => NOW, { slice: 10 }).judgeDue();
    expect(failed(ids)).toBe(25);
  });

  it('reads open tasks through their partial index', () => {
    const plan = s.sql.prepare(`EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE type <> 'route' AND tracker_id IS NOT NULL AND status IN ('assigned', 'arrived')
        AND (to_time + max_delay * 60000 < 1 OR (status = 'arrived' AND from_time <= 1)) AND id > 0 ORDER BY id LIMIT 10`).all() as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('\n')).toContain('USING INDEX tasks_open');
  });
});
