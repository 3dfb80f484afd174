/**
 * Route schedules and the runner with an injected clock (issue 23; docs/schedules.md "Route
 * schedules"): on each due day the runner creates a route with origin `scheduled` and its
 * checkpoints, in order, with their windows in the user's time zone and their forms; each day once;
 * a day is over when its last checkpoint's window is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDateTime } from '../../src/core/time.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { runSchedule, runSchedules } from '../../src/tasks/schedule-run.ts';
import { TaskScheduleRunner } from '../../src/tasks/schedule-runner.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const TZ = 'Europe/Vilnius';
let s: TestServer;
let ann: { id: number; hash: string };
let van: number;
let tpl: number;
const geocoder: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: 'Gedimino pr. 1' }), search: async () => [] };
const at = (local: string) => parseDateTime(local, TZ)!;
const runnerAt = (clock: { now: number }) => new TaskScheduleRunner({ store: s.store, geocoder, now: () => clock.now }, (m, e) => {
  throw new Error(`${m}: ${e}`);
});

/** Two stops: the depot 08:00–09:00, the shop 10:00–11:30 (with a form). */
const checkpoints = () => [
  { label: 'Depot', location: { lat: 54.687, lng: 25.28, address: 'Depot yard', radius: 100 }, from_time: '08:00:00', duration: 60, max_delay: 10 },
  { label: 'Shop', description: 'Deliver', location: { lat: 54.69, lng: 25.29, address: 'Market 5', radius: 50 }, from_time: '10:00:00', duration: 90, form_template_id: tpl },
];

/**
 * A route schedule created disabled (the real clock creates nothing), then enabled under the test's
 * clock; the runner's round covers every enabled schedule, so the earlier ones are switched off.
 */
async function scheduled(route: Record<string, unknown>, clock: { now: number }): Promise<number> {
  s.sql.prepare('UPDATE task_schedules SET enabled = 0').run();
  const body = (await s.call('task/schedule/route/create', { hash: ann.hash, route: { label: 'Round', parameters: { type: 'weekdays', weekdays: [1, 3] }, days_ahead: 1, enabled: false, ...route }, checkpoints: checkpoints() })).body;
  expect(body).toEqual({ success: true, id: expect.any(Number), created_task_ids: [] });
  const row = s.store.taskSchedules.get(ann.id, body.id)!;
  s.store.taskSchedules.update(ann.id, body.id, { ...row, enabled: 1 }, clock.now);
  return body.id;
}

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann-routes@example.com', { timeZone: TZ });
  van = s.addTracker(ann.id, '861000000000041', { label: 'Van 41' });
  tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Delivery note', fields: [{ id: 'ok', label: 'OK', type: 'text' }] } })).body.id;
});
afterAll(() => s.close());

describe('the runner creates routes with their checkpoints', () => {
  it('on the due day: the route, its checkpoints in order with their windows, tracker and form; each day once', async () => {
    const clock = { now: at('2030-03-04 07:00:00') }; // a Monday
    const id = await scheduled({ tracker_id: van }, clock);
    const runner = runnerAt(clock);
    const [routeId, ...more] = runner.tick();
    expect(more).toEqual([]);
    const r = (await s.call('task/route/read', { hash: ann.hash, route_id: routeId })).body;
    expect(r.value).toMatchObject({ type: 'route', label: 'Round', tracker_id: van, status: 'assigned', origin: 'scheduled', from: '2030-03-04 08:00:00', to: '2030-03-04 11:30:00' });
    expect(r.checkpoints.map((c: any) => [c.type, c.label, c.from, c.to, c.tracker_id, c.status, c.origin, c.location.address])).toEqual([
      ['checkpoint', 'Depot', '2030-03-04 08:00:00', '2030-03-04 09:00:00', van, 'assigned', 'scheduled', 'Depot yard'],
      ['checkpoint', 'Shop', '2030-03-04 10:00:00', '2030-03-04 11:30:00', van, 'assigned', 'scheduled', 'Market 5'],
    ]);
    expect(r.value.checkpoint_ids).toEqual(r.checkpoints.map((c: { id: number }) => c.id));
    expect(r.checkpoints[0].max_delay).toBe(10);
    expect((await s.call('task/form/read', { hash: ann.hash, task_id: r.checkpoints[1].id })).body.value).toMatchObject({ label: 'Delivery note', template_id: tpl });
    expect(runner.tick()).toEqual([]); // the same clock again: nothing new
    expect(runnerAt(clock).tick()).toEqual([]); // a fresh runner ("after a restart") neither
    clock.now = at('2030-03-05 12:00:00'); // Tuesday: Wednesday comes within a day
    const [wednesday] = runner.tick();
    expect(s.store.tasks.get(ann.id, wednesday)).toMatchObject({ type: 'route', from_time: at('2030-03-06 08:00:00'), to_time: at('2030-03-06 11:30:00') });
    expect(s.sql.prepare('SELECT day, task_id FROM task_schedule_days WHERE schedule_id = ? ORDER BY day').all(id)).toEqual([
      { day: '2030-03-04', task_id: routeId },
      { day: '2030-03-06', task_id: wednesday },
    ]);
  });

  it('a day is over when its last checkpoint is: between the stops the route is still created, after the last not', async () => {
    const clock = { now: at('2030-04-01 10:30:00') }; // a Monday, the depot's window over, the shop's not
    const id = await scheduled({ label: 'Late', parameters: { type: 'weekdays', weekdays: [1] } }, clock);
    const [routeId] = runnerAt(clock).tick();
    expect(s.store.tasks.get(ann.id, routeId)).toMatchObject({ label: 'Late', tracker_id: null, status: 'unassigned' });
    expect(s.store.tasks.checkpoints(routeId).map((c) => c.label)).toEqual(['Depot', 'Shop']);
    s.sql.prepare('DELETE FROM task_schedule_days WHERE schedule_id = ?').run(id);
    clock.now = at('2030-04-01 11:30:00'); // the shop's window ends now
    expect(runnerAt(clock).tick()).toEqual([]);
  });

  it('a tracker no longer available gives an unassigned route; last_error says why', async () => {
    const other = s.addTracker(ann.id, '861000000000042', { label: 'Van 42' });
    const clock = { now: at('2030-06-03 06:00:00') }; // a Monday
    const id = await scheduled({ label: 'Blocked', tracker_id: other }, clock);
    s.sql.prepare('UPDATE sources SET blocked = 1 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(other);
    const [routeId] = runnerAt(clock).tick();
    expect(s.store.tasks.get(ann.id, routeId)).toMatchObject({ type: 'route', tracker_id: null, status: 'unassigned', origin: 'scheduled' });
    expect(s.store.tasks.checkpoints(routeId).map((c) => [c.tracker_id, c.status])).toEqual([[null, 'unassigned'], [null, 'unassigned']]);
    expect((await s.call('task/schedule/read', { hash: ann.hash, id })).body.value.last_error).toBe(`Device blocked: tracker ${other}; the route of 2030-06-03 was created unassigned`);
  });

  it('a schedule gone before its at-once run creates nothing (and does not become a round over every schedule)', async () => {
    const now = at('2030-06-10 06:00:00'); // a Monday: the blocked schedule above has a due day
    const deps = { store: s.store, geocoder, now: () => now };
    expect(runSchedule(deps, now, s.store.taskSchedules.get(ann.id, 999_999))).toEqual([]);
    expect(runSchedules(deps, now)).toHaveLength(1);
  });
});
