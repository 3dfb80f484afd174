/**
 * report/schedule/* as documented (issue 23): the schedule entry {enabled, parameters: {report,
 * period, schedule, emails, email_format, email_zip, sending_time}} is taken by create and update
 * and answered, with fire_time and last_result, by read and list; the days of parameters.schedule
 * decide when a report is queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDateTime } from '../../../src/core/time.ts';
import { duePeriod, queueDue } from '../../../src/reports/schedules.ts';
import { documentedServer, expectMembers, type Documented } from './harness.ts';

const TZ = 'Europe/Vilnius';
let d: Documented;
let van: number;
beforeAll(async () => {
  d = await documentedServer('report-sched-doc@example.com', TZ);
  van = d.s.addTracker(d.userId, 'doc-report-van', { label: 'Van' });
});
afterAll(() => d?.close());

const ENTRY_MEMBERS = ['id', 'enabled', 'parameters', 'fire_time', 'last_result'];
const PARAMETER_MEMBERS = ['period', 'schedule', 'report', 'emails', 'email_format', 'email_zip', 'sending_time'];
const at = (local: string) => parseDateTime(local, TZ)!;

/** Trips of the day before, mailed on working days at 06:00, written from the documented entry. */
const entry = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  parameters: {
    report: { title: 'Trips', trackers: [van], time_filter: { from: '00:00', to: '23:59', weekdays: [1, 2, 3, 4, 5, 6, 7] }, geocoder: 'osm', plugin: { plugin_id: 4, show_seconds: false, hide_empty_tabs: true }, include_places_in_address: true, include_zones_in_address: true },
    period: '1d',
    schedule: { type: 'weekdays', weekdays: [1, 2, 3, 4, 5] },
    emails: ['dispatch@example.com'],
    email_format: 'xls',
    email_zip: false,
    sending_time: '06:00:00',
    ...over,
  },
});

describe('report/schedule (documented shapes)', () => {
  let id: number;
  it('create takes the documented entry; read and list answer every documented member', async () => {
    const r = await d.call('report/schedule/create', { schedule: entry() });
    expect(r).toEqual({ success: true, id: expect.any(Number) });
    id = r.id;
    const { value } = await d.ok('report/schedule/read', { schedule_id: id });
    expectMembers(value, ENTRY_MEMBERS, 'report/schedule/read value');
    expectMembers(value.parameters, PARAMETER_MEMBERS, 'report/schedule/read value.parameters');
    expect(value).toMatchObject({ id, enabled: true, fire_time: null, last_result: null });
    expect(value.parameters).toMatchObject({ period: '1d', schedule: { type: 'weekdays', weekdays: [1, 2, 3, 4, 5] }, emails: ['dispatch@example.com'], email_format: 'xls', email_zip: false, sending_time: '06:00:00' });
    expect(value.parameters.report).toMatchObject({ title: 'Trips', trackers: [van], geocoder: 'geocoder_type_4', plugin: { plugin_id: 4, hide_empty_tabs: true } });
    const { list } = await d.ok('report/schedule/list');
    for (const x of list) {
      expectMembers(x, ENTRY_MEMBERS, 'report/schedule/list item');
      expectMembers(x.parameters, PARAMETER_MEMBERS, 'report/schedule/list item parameters');
    }
  });
  it('update takes the documented entry with its id', async () => {
    expect(await d.call('report/schedule/update', { schedule: { id, ...entry({ period: '1w', schedule: { type: 'weekdays', weekdays: [1] }, email_format: 'pdf', sending_time: '07:00:00' }) } })).toEqual({ success: true });
    expect((await d.ok('report/schedule/read', { schedule_id: id })).value.parameters).toMatchObject({ period: '1w', email_format: 'pdf', sending_time: '07:00:00' });
  });
  it('delete takes schedule_id', async () => {
    const gone = (await d.ok('report/schedule/create', { schedule: entry() })).id;
    expect(await d.call('report/schedule/delete', { schedule_id: gone })).toEqual({ success: true });
    expect((await d.call('report/schedule/delete', { schedule_id: gone })).status.code).toBe(201);
  });
  it('refuses what it does not do with 7 naming the member', async () => {
    const bad = async (over: Record<string, unknown>) => (await d.call('report/schedule/create', { schedule: entry(over) })).errors?.map((e: { parameter: string }) => e.parameter);
    expect(await bad({ period: '3m' })).toEqual(['schedule.parameters.period']);
    expect(await bad({ email_zip: true })).toEqual(['schedule.parameters.email_zip']);
    expect(await bad({ sending_time: '25:00:00' })).toEqual(['schedule.parameters.sending_time']);
    expect(await bad({ schedule: { type: 'weekdays', weekdays: [8] } })).toEqual(['schedule.parameters.schedule.weekdays.0']);
  });
  it('the days of parameters.schedule decide the period; without emails the report is only queued', async () => {
    // 2030-03-06 is a Wednesday: a daily schedule firing on Wednesdays covers Tuesday, until the next Wednesday.
    const wed = { type: 'weekdays' as const, weekdays: [3] };
    expect(duePeriod('previous_day', '06:00', at('2030-03-06 07:00:00'), TZ, wed)).toMatchObject({ start: '2030-03-05', end: '2030-03-06' });
    expect(duePeriod('previous_day', '06:00', at('2030-03-09 07:00:00'), TZ, wed)).toMatchObject({ start: '2030-03-05', end: '2030-03-06' });
    expect(duePeriod('previous_day', '06:00', at('2030-03-06 05:00:00'), TZ, wed)).toMatchObject({ start: '2030-02-26', end: '2030-02-27' });
    expect(duePeriod('previous_week', '06:00', at('2030-03-06 07:00:00'), TZ, wed)).toMatchObject({ start: '2030-02-27', end: '2030-03-06' });
    expect(duePeriod('previous_month', '06:00', at('2030-03-16 07:00:00'), TZ, { type: 'month_days', month_days: [15] })).toMatchObject({ start: '2030-02-01', end: '2030-03-01' });
    const quiet = (await d.ok('report/schedule/create', { schedule: entry({ emails: undefined, schedule: wed }) })).id;
    d.s.sql.prepare('UPDATE report_schedules SET enabled = 0 WHERE id <> ?').run(quiet);
    const queued = await queueDue({ store: d.s.store, mailer: { send: async () => { throw new Error('no mail expected'); } } as never, reportFiles: {} as never, now: () => 0 }, at('2030-03-06 07:00:00'));
    expect(queued).toHaveLength(1);
    const { value } = await d.ok('report/schedule/read', { schedule_id: quiet });
    expect(value.parameters.emails).toEqual([]);
    expect(value.last_result).toEqual({ success: true, id: queued[0] });
    expect(value.fire_time).toBe('2030-03-06 07:00:00');
  });
});
