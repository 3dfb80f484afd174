/**
 * Task schedules over real HTTP and with an injected clock (issue 12; docs/schedules.md):
 * task/schedule/create|read|update|delete|list, the tasks they create ahead of time with origin
 * `scheduled` (each day once, in the user's time zone, across DST), and the runner's rounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDateTime } from '../../src/core/time.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { TaskScheduleRunner } from '../../src/tasks/schedule-runner.ts';
import { occurrences } from '../../src/tasks/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const TZ = 'Europe/Vilnius';
let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let van: number;
let tpl: number;
const geocoder: Geocoder = { reverse: async (lat, lng) => ({ lat, lng, address: 'Gedimino pr. 1' }), search: async () => [] };

const schedule = (over: Record<string, unknown> = {}) => ({
  label: 'Morning round',
  description: 'Check the boiler',
  location: { lat: 54.687, lng: 25.28, address: 'Cathedral square', radius: 100 },
  parameters: { type: 'weekdays', weekdays: [1, 2, 3, 4, 5, 6, 7] },
  from_time: '00:00:01',
  to_time: '23:59:59',
  days_ahead: 2,
  ...over,
});
const taskCount = () => s.sql.prepare("SELECT COUNT(*) FROM tasks WHERE origin = 'scheduled'").pluck().get() as number;
const at = (local: string) => parseDateTime(local, TZ)!;
/** A runner over the server's database whose clock the test sets. */
const runnerAt = (clock: { now: number }) => new TaskScheduleRunner({ store: s.store, geocoder, now: () => clock.now }, (m, e) => {
  throw new Error(`${m}: ${e}`);
});

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: TZ });
  bob = await s.user('bob@example.com');
  van = s.addTracker(ann.id, '861000000000031', { label: 'Van 31' });
  tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Round sheet', fields: [{ id: 'ok', label: 'OK', type: 'text' }] } })).body.id;
});
afterAll(() => s.close());

describe('occurrences: days in the user time zone', () => {
  it('weekdays and days of the month, from today through days_ahead, skipping a window already over', () => {
    // 2030-03-04 is a Monday.
    const mondays = occurrences({ kind: 'weekdays', days: '[1,3]', from_time: '08:00:00', to_time: '10:00:00', days_ahead: 9 }, at('2030-03-04 09:00:00'), TZ);
    expect(mondays.map((o) => o.day)).toEqual(['2030-03-04', '2030-03-06', '2030-03-11', '2030-03-13']);
    expect(mondays[0]).toEqual({ day: '2030-03-04', from: at('2030-03-04 08:00:00'), to: at('2030-03-04 10:00:00') });
    // At 10:30 the Monday window is over: not created any more.
    expect(occurrences({ kind: 'weekdays', days: '[1]', from_time: '08:00:00', to_time: '10:00:00', days_ahead: 1 }, at('2030-03-04 10:30:00'), TZ)).toEqual([]);
    const monthly = occurrences({ kind: 'month_days', days: '[1,31]', from_time: '08:00:00', to_time: '09:00:00', days_ahead: 31 }, at('2030-04-15 12:00:00'), TZ);
    expect(monthly.map((o) => o.day)).toEqual(['2030-05-01']); // April has no 31st; May 31st is past the horizon
  });

  it('a window across midnight ends the next day; DST days keep their wall-clock times', () => {
    const night = occurrences({ kind: 'weekdays', days: '[6]', from_time: '22:00:00', to_time: '06:00:00', days_ahead: 6 }, at('2030-03-25 12:00:00'), TZ);
    // Vilnius goes to summer time on Sunday 2030-03-31 at 03:00: the night from Saturday is 7 hours long.
    expect(night).toEqual([{ day: '2030-03-30', from: at('2030-03-30 22:00:00'), to: at('2030-03-31 06:00:00') }]);
    expect(night[0].to - night[0].from).toBe(7 * 3600_000);
  });
});

describe('task/schedule calls', () => {
  it('create answers the id and the tasks created at once: origin scheduled, assigned, with a form, in the user time zone', async () => {
    const before = taskCount();
    const r = await s.call('task/schedule/create', { hash: ann.hash, schedule: schedule({ tracker_id: van, form_template_id: tpl }) });
    expect(r.body).toEqual({ success: true, id: expect.any(Number), created_task_ids: expect.any(Array) });
    // Today, tomorrow and the day after (every weekday, a window that ends at 23:59:59).
    expect(r.body.created_task_ids).toHaveLength(3);
    expect(taskCount()).toBe(before + 3);
    const t = (await s.call('task/read', { hash: ann.hash, task_id: r.body.created_task_ids[1] })).body.value;
    expect(t).toMatchObject({ label: 'Morning round', description: 'Check the boiler', origin: 'scheduled', tracker_id: van, status: 'assigned' });
    expect(t.from).toMatch(/^\d{4}-\d\d-\d\d 00:00:01$/);
    expect(t.to).toBe(`${t.from.slice(0, 10)} 23:59:59`);
    expect((await s.call('task/form/read', { hash: ann.hash, task_id: t.id })).body.value).toMatchObject({ label: 'Round sheet', template_id: tpl });
    const read = await s.call('task/schedule/read', { hash: ann.hash, schedule_id: r.body.id });
    expect(read.body.value).toEqual({
      id: r.body.id,
      user_id: ann.id,
      type: 'task',
      label: 'Morning round',
      description: 'Check the boiler',
      location: { lat: 54.687, lng: 25.28, address: 'Cathedral square', radius: 100 },
      tracker_id: van,
      max_delay: 0,
      min_stay_duration: 0,
      external_id: null,
      tags: [],
      fields: {},
      form_template_id: tpl,
      parameters: { type: 'weekdays', weekdays: [1, 2, 3, 4, 5, 6, 7] },
      from_time: '00:00:01',
      // Made with to_time (ours before issue 23): answered as the documented duration, in minutes.
      duration: 1440,
      min_arrival_duration: 0,
      days_ahead: 2,
      enabled: true,
      last_error: null,
      created: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      updated: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
    expect((await s.call('task/schedule/list', { hash: ann.hash })).body.list.map((x: { id: number }) => x.id)).toContain(r.body.id);
  });

  it('update leaves created tasks alone and creates only missing days; delete keeps the tasks', async () => {
    const { id, created_task_ids: first } = (await s.call('task/schedule/create', { hash: ann.hash, schedule: schedule({ label: 'Evening', days_ahead: 1 }) })).body;
    expect(first).toHaveLength(2);
    const up = await s.call('task/schedule/update', { hash: ann.hash, schedule: { ...schedule({ label: 'Evening (new)', days_ahead: 3 }), id } });
    expect(up.body).toEqual({ success: true, created_task_ids: expect.any(Array) });
    expect(up.body.created_task_ids).toHaveLength(2); // days 2 and 3 only
    expect((await s.call('task/read', { hash: ann.hash, task_id: first[0] })).body.value.label).toBe('Evening');
    expect((await s.call('task/read', { hash: ann.hash, task_id: up.body.created_task_ids[0] })).body.value.label).toBe('Evening (new)');
    const before = taskCount();
    expect((await s.call('task/schedule/delete', { hash: ann.hash, schedule_id: id })).body).toEqual({ success: true });
    expect(taskCount()).toBe(before);
    expect((await s.call('task/schedule/read', { hash: ann.hash, schedule_id: id })).body.status.code).toBe(201);
  });

  it('7 naming the member; 201 for an unknown tracker or schedule, 204 for a template or in update (documented), also for another user; nothing stored', async () => {
    const count = () => s.sql.prepare('SELECT COUNT(*) FROM task_schedules').pluck().get() as number;
    const before = [count(), taskCount()];
    const bad = async (over: Record<string, unknown>) => {
      const r = await s.call('task/schedule/create', { hash: ann.hash, schedule: schedule(over) });
      return [r.body.status.code, (r.body.errors ?? []).map((e: { parameter: string }) => e.parameter)];
    };
    expect(await bad({ parameters: { type: 'weekdays', weekdays: [] } })).toEqual([7, ['schedule.parameters.weekdays']]);
    expect(await bad({ parameters: { type: 'weekdays', weekdays: [8] } })).toEqual([7, ['schedule.parameters.weekdays.0']]);
    expect(await bad({ parameters: { type: 'month_days', month_days: [0] } })).toEqual([7, ['schedule.parameters.month_days.0']]);
    expect(await bad({ parameters: { type: 'yearly' } })).toEqual([7, ['schedule.parameters.type']]);
    expect(await bad({ from_time: '8:00' })).toEqual([7, ['schedule.from_time']]);
    expect(await bad({ to_time: '24:00:00' })).toEqual([7, ['schedule.to_time']]);
    expect(await bad({ from_time: '08:00:00', to_time: '08:00:00' })).toEqual([7, ['schedule.to_time']]);
    expect(await bad({ days_ahead: 0 })).toEqual([7, ['schedule.days_ahead']]);
    expect(await bad({ days_ahead: 32 })).toEqual([7, ['schedule.days_ahead']]);
    expect(await bad({ tags: [999] })).toEqual([7, ['schedule.tags']]);
    expect((await bad({ tracker_id: 999 }))[0]).toBe(201);
    expect((await bad({ form_template_id: 999 }))[0]).toBe(204); // documented: 204 for the template
    const bobs = await s.call('task/schedule/create', { hash: bob.hash, schedule: schedule({ tracker_id: van }) });
    expect(bobs.body.status.code).toBe(201);
    expect([count(), taskCount()]).toEqual(before);
    const mine = (await s.call('task/schedule/create', { hash: ann.hash, schedule: schedule() })).body.id;
    expect((await s.call('task/schedule/read', { hash: bob.hash, schedule_id: mine })).body.status.code).toBe(201);
    expect((await s.call('task/schedule/delete', { hash: bob.hash, schedule_id: mine })).body.status.code).toBe(201);
    expect((await s.call('task/schedule/update', { hash: bob.hash, schedule: { ...schedule(), id: mine } })).body.status.code).toBe(204); // documented
    expect((await s.call('task/schedule/list', { hash: bob.hash })).body).toEqual({ success: true, list: [] });
  });
});

describe('the runner with an injected clock', () => {
  // The runner's round covers every enabled schedule: the ones above are switched off for these.
  beforeAll(() => void s.sql.prepare('UPDATE task_schedules SET enabled = 0').run());
  it('creates each day once as the clock moves; a missed day is not created late; restarts never duplicate', async () => {
    const clock = { now: at('2030-03-04 07:00:00') }; // Monday
    const sched = (await s.call('task/schedule/create', { hash: ann.hash, schedule: schedule({ label: 'Clocked', parameters: { type: 'weekdays', weekdays: [1, 3] }, from_time: '08:00:00', to_time: '10:00:00', days_ahead: 1, enabled: false }) })).body;
    expect(sched.created_task_ids).toEqual([]); // disabled: nothing created
    const row = s.store.taskSchedules.get(ann.id, sched.id)!;
    s.store.taskSchedules.update(ann.id, sched.id, { ...row, enabled: 1 }, clock.now);
    const days = () => (s.sql.prepare('SELECT day FROM task_schedule_days WHERE schedule_id = ? ORDER BY day').pluck().all(sched.id) as string[]);
    const runner = runnerAt(clock);
    expect(runner.tick()).toHaveLength(1);
    expect(days()).toEqual(['2030-03-04']);
    expect(runner.tick()).toEqual([]); // the same clock again: nothing new
    clock.now = at('2030-03-05 12:00:00'); // Tuesday: Wednesday comes within a day
    expect(runner.tick()).toHaveLength(1);
    expect(runnerAt(clock).tick()).toEqual([]); // "after a restart": a fresh runner creates nothing twice
    clock.now = at('2030-03-12 12:00:00'); // the server was down a week: Monday the 11th is over, Wednesday the 13th is due
    expect(runner.tick()).toHaveLength(1);
    expect(days()).toEqual(['2030-03-04', '2030-03-06', '2030-03-13']);
    const t = s.store.tasks.get(ann.id, s.sql.prepare("SELECT task_id FROM task_schedule_days WHERE day = '2030-03-13' AND schedule_id = ?").pluck().get(sched.id) as number)!;
    expect([t.from_time, t.to_time, t.origin]).toEqual([at('2030-03-13 08:00:00'), at('2030-03-13 10:00:00'), 'scheduled']);
  });

  it('a tracker no longer available gives an unassigned task, and last_error says why', async () => {
    const other = s.addTracker(ann.id, '861000000000032', { label: 'Van 32' });
    const clock = { now: at('2030-06-03 06:00:00') };
    const id = (await s.call('task/schedule/create', { hash: ann.hash, schedule: schedule({ label: 'Blocked', tracker_id: other, parameters: { type: 'weekdays', weekdays: [1] }, from_time: '08:00:00', to_time: '09:00:00', days_ahead: 1, enabled: false }) })).body.id;
    s.sql.prepare('UPDATE sources SET blocked = 1 WHERE id = (SELECT source_id FROM trackers WHERE id = ?)').run(other);
    const row = s.store.taskSchedules.get(ann.id, id)!;
    s.store.taskSchedules.update(ann.id, id, { ...row, enabled: 1 }, clock.now);
    const [taskId] = runnerAt(clock).tick();
    expect(s.store.tasks.get(ann.id, taskId)).toMatchObject({ tracker_id: null, status: 'unassigned', origin: 'scheduled' });
    expect((await s.call('task/schedule/read', { hash: ann.hash, schedule_id: id })).body.value.last_error).toBe(`Device blocked: tracker ${other}; the task of 2030-06-03 was created unassigned`);
  });
});
