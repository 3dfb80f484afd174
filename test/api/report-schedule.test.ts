/**
 * Report schedules over real HTTP (issue 12; docs/schedules.md "Report schedules"):
 * report/schedule/create|read|update|delete|list, exact bodies, and every error with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let noRight: { id: number; hash: string };
let van: number;
let bobVan: number;

const schedule = (over: Record<string, unknown> = {}) => ({
  title: 'Daily trips',
  plugin: { plugin_id: 4 },
  trackers: [van],
  period: 'previous_day',
  run_time: '07:30',
  format: 'xlsx',
  recipients: ['boss@example.com', 'fleet@example.com'],
  ...over,
});
const count = () => s.sql.prepare('SELECT COUNT(*) FROM report_schedules').pluck().get() as number;
const create = (over: Record<string, unknown> = {}, hash = ann.hash) => s.call('report/schedule/create', { hash, schedule: schedule(over) });

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'Europe/Vilnius' });
  bob = await s.user('bob@example.com');
  noRight = await s.user('sub@example.com', { parent: 'ann@example.com', rights: [] });
  van = s.addTracker(ann.id, '861000000000041', { label: 'Van 41' });
  bobVan = s.addTracker(bob.id, '861000000000042');
});
afterAll(() => s.close());

describe('report/schedule calls', () => {
  it('create answers the id; read and list answer the schedule exactly', async () => {
    const r = await create({ time_filter: { from: '08:00', to: '18:00', weekdays: [1, 2, 3, 4, 5] }, geocoder: 'geocoder_type_2' });
    expect(r.body).toEqual({ success: true, id: expect.any(Number) });
    const row = s.store.reportSchedules.get(ann.id, r.body.id)!;
    const stamp = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Vilnius', dateStyle: 'short', timeStyle: 'medium' }).format(new Date(row.created));
    const value = {
      id: r.body.id,
      // The documented members (issue 23), beside the flat ones of our older shape.
      parameters: {
        period: '1d',
        schedule: { type: 'weekdays', weekdays: [1, 2, 3, 4, 5, 6, 7] },
        report: { trackers: [van], title: 'Daily trips', time_filter: { from: '08:00', to: '18:00', weekdays: [1, 2, 3, 4, 5] }, geocoder: 'geocoder_type_2', plugin: { plugin_id: 4, show_seconds: false, hide_empty_tabs: false, filter: true, show_coordinates: false } },
        emails: ['boss@example.com', 'fleet@example.com'],
        email_format: 'xls',
        email_zip: false,
        sending_time: '07:30:00',
      },
      fire_time: null,
      last_result: null,
      title: 'Daily trips',
      plugin: { plugin_id: 4, show_seconds: false, hide_empty_tabs: false, filter: true, show_coordinates: false },
      trackers: [van],
      time_filter: { from: '08:00', to: '18:00', weekdays: [1, 2, 3, 4, 5] },
      geocoder: 'geocoder_type_2',
      period: 'previous_day',
      run_time: '07:30',
      format: 'xlsx',
      recipients: ['boss@example.com', 'fleet@example.com'],
      enabled: true,
      last_run: null,
      last_error: null,
      created: stamp,
      updated: stamp,
    };
    expect((await s.call('report/schedule/read', { hash: ann.hash, schedule_id: r.body.id })).body).toEqual({ success: true, value });
    expect((await s.call('report/schedule/list', { hash: ann.hash })).body).toEqual({ success: true, list: [value] });
    expect((await s.call('report/schedule/list', { hash: bob.hash })).body).toEqual({ success: true, list: [] });
  });

  it('employees instead of trackers; update replaces; delete removes', async () => {
    const e = (await s.call('employee/create', { hash: ann.hash, employee: { first_name: 'Eve', tracker_id: van } })).body.id;
    const r = await create({ trackers: undefined, employees: [e], period: 'previous_week', format: 'pdf', title: undefined });
    expect(r.body.success).toBe(true);
    const read = async () => (await s.call('report/schedule/read', { hash: ann.hash, schedule_id: r.body.id })).body.value;
    expect(await read()).toMatchObject({ employees: [e], title: null, period: 'previous_week', format: 'pdf' });
    expect(await read()).not.toHaveProperty('trackers');
    const u = await s.call('report/schedule/update', { hash: ann.hash, schedule: { ...schedule({ period: 'previous_month', enabled: false, recipients: ['x@example.com'] }), id: r.body.id } });
    expect(u.body).toEqual({ success: true });
    expect(await read()).toMatchObject({ trackers: [van], period: 'previous_month', enabled: false, recipients: ['x@example.com'] });
    expect((await s.call('report/schedule/delete', { hash: ann.hash, schedule_id: r.body.id })).body).toEqual({ success: true });
    expect((await s.call('report/schedule/read', { hash: ann.hash, schedule_id: r.body.id })).body.status.code).toBe(201);
  });

  it('7 naming the parameter, and nothing stored', async () => {
    const n = count();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ period: 'yesterday' }, 'schedule.period'],
      [{ run_time: '7:30' }, 'schedule.run_time'],
      [{ run_time: '24:00' }, 'schedule.run_time'],
      [{ format: 'xls' }, 'schedule.format'],
      [{ recipients: [] }, 'schedule.recipients'],
      [{ recipients: ['not an address'] }, 'schedule.recipients.0'],
      [{ recipients: Array.from({ length: 21 }, (_, i) => `r${i}@example.com`) }, 'schedule.recipients'],
      [{ trackers: undefined }, 'schedule.trackers'],
      [{ employees: [1] }, 'schedule.employees'],
      [{ time_filter: { from: '8:00', to: '18:00', weekdays: [1] } }, 'schedule.time_filter.from'],
      [{ geocoder: 'nope' }, 'schedule.geocoder'],
      [{ plugin: { plugin_id: 4, filter: 'yes' } }, 'schedule.plugin.filter'],
    ];
    for (const [over, parameter] of cases) {
      const r = await create(over);
      expect(r.body.status?.code, parameter).toBe(7);
      expect(r.body.errors.map((e: { parameter: string }) => e.parameter), parameter).toContain(parameter);
    }
    expect(count()).toBe(n);
  });

  it('222 unknown plugin, 217 trackers not the user\'s, 236 no reports in the tariff, 211 over the max time span', async () => {
    const n = count();
    expect((await create({ plugin: { plugin_id: 9999 } })).body.status.code).toBe(222);
    expect((await create({ trackers: [van, bobVan] })).body).toMatchObject({ success: false, status: { code: 217 }, ids: [bobVan] });
    const t = s.addTracker(ann.id, '861000000000043');
    const none = s.store.tariffs.copy(1, 'no reports');
    s.store.tariffs.update(none, { has_reports: false });
    s.sql.prepare('UPDATE sources SET tariff_id = ? WHERE id = ?').run(none, s.store.trackers.getAny(t)!.source_id);
    expect((await create({ trackers: [t] })).body).toMatchObject({ success: false, status: { code: 236 }, ids: [t] });
    // The point report covers at most a day: a weekly one is 211 with P1D.
    expect((await create({ plugin: { plugin_id: 91 }, period: 'previous_week' })).body).toEqual({ success: false, status: { code: 211, description: 'Requested time span is too big' }, max_time_span: 'P1D' });
    expect((await create({ plugin: { plugin_id: 91 }, period: 'previous_day' })).body.success).toBe(true);
    // A tariff of at most 7 days: a monthly schedule is 211 with P7D, a weekly one fits.
    const short = await s.user('short@example.com');
    const st = s.addTracker(short.id, '861000000000044');
    const week = s.store.tariffs.copy(1, 'a week');
    s.store.tariffs.update(week, { max_time_span_days: 7 });
    s.sql.prepare('UPDATE users SET tariff_id = ? WHERE id = ?').run(week, short.id);
    expect((await create({ trackers: [st], period: 'previous_month' }, short.hash)).body).toEqual({ success: false, status: { code: 211, description: 'Requested time span is too big' }, max_time_span: 'P7D' });
    expect((await create({ trackers: [st], period: 'previous_week' }, short.hash)).body.success).toBe(true);
    expect(count()).toBe(n + 2);
  });

  it('201 for an unknown or another user\'s schedule on read, update and delete', async () => {
    const mine = (await create()).body.id;
    for (const [path, params] of [
      ['report/schedule/read', { schedule_id: mine }],
      ['report/schedule/delete', { schedule_id: mine }],
      ['report/schedule/update', { schedule: { ...schedule({ trackers: [bobVan] }), id: mine } }],
    ] as const) {
      const r = await s.call(path, { hash: bob.hash, ...params });
      expect(r.body.status.code, path).toBe(201);
    }
    expect((await s.call('report/schedule/read', { hash: ann.hash, schedule_id: 987654 })).body.status.code).toBe(201);
    expect((await s.call('report/schedule/read', { hash: ann.hash, schedule_id: mine })).body.value.trackers).toEqual([van]);
  });

  it('13 for a sub-user without the reports right', async () => {
    for (const path of ['report/schedule/create', 'report/schedule/read', 'report/schedule/update', 'report/schedule/delete', 'report/schedule/list']) {
      const r = await s.call(path, { hash: noRight.hash, schedule: schedule(), schedule_id: 1 });
      expect(r.body.status.code, path).toBe(13);
    }
  });

  it('268 over 100 schedules per user, nothing stored', async () => {
    const u = await s.user('many@example.com');
    const t = s.addTracker(u.id, '861000000000045');
    for (let i = 0; i < 100; i++) expect((await create({ trackers: [t] }, u.hash)).body.success).toBe(true);
    const n = count();
    const r = await create({ trackers: [t] }, u.hash);
    expect(r.body.status.code).toBe(268);
    expect(count()).toBe(n);
  });
});
