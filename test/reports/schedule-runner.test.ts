/**
 * The report schedule runner with an injected clock (issue 12; docs/schedules.md "Report
 * schedules"): nothing before the run time, one report at it for exactly the previous day, week or
 * month in the user's time zone (as report/tracker/list shows it), never twice, a missed run once
 * after a restart (a fresh runner over the same database), and the file mailed to the outbox once
 * the report is ready; a mail that failed is sent by the next runner. The server's own runner is
 * stopped so only the test's clock drives the schedules; its report queue generates the reports.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseDateTime } from '../../src/core/time.ts';
import { createMailer, type Mailer } from '../../src/mail/mailer.ts';
import type { ReportFiles } from '../../src/reports/render/index.ts';
import { ReportScheduleRunner } from '../../src/reports/schedule-runner.ts';
import { duePeriod } from '../../src/reports/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const TZ = 'Europe/Vilnius';
const FILE = Buffer.from('known report bytes');
let s: TestServer;
let ann: { id: number; hash: string };
let van: number;
let outbox: string;
let mailer: Mailer;
const at = (local: string) => parseDateTime(local, TZ)!;
/** Renders every report as the same known bytes: the test does not depend on the renderers. */
const files: ReportFiles = { render: async (format) => ({ body: FILE, contentType: format === 'pdf' ? 'application/pdf' : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: format }) };
const runnerAt = (clock: { now: number }, m: Mailer = mailer) =>
  new ReportScheduleRunner({ store: s.store, mailer: m, reportFiles: files, reports: s.running.reports, now: () => clock.now }, (msg, e) => {
    throw new Error(`${msg}: ${e}`);
  });

/** A schedule made over HTTP, then dated as if created at `created` (its period due then counts as done). */
async function scheduleAt(created: string, over: Record<string, unknown>): Promise<number> {
  const r = await s.call('report/schedule/create', {
    hash: ann.hash,
    schedule: { title: 'Trips', plugin: { plugin_id: 4 }, trackers: [van], format: 'xlsx', recipients: ['boss@example.com', 'fleet@example.com'], ...over },
  });
  expect(r.body.success).toBe(true);
  const row = s.store.reportSchedules.get(ann.id, r.body.id)!;
  s.sql.prepare('UPDATE report_schedules SET last_period = ? WHERE id = ?').run(duePeriod(row.period, row.run_time, at(created), TZ).start, r.body.id);
  return r.body.id;
}
const listed = async () => (await s.call('report/tracker/list', { hash: ann.hash })).body.list as Array<{ id: number; title: string; from: string; to: string; state: string }>;
const emails = () => readdirSync(outbox).filter((f) => f.endsWith('.eml')).map((f) => readFileSync(join(outbox, f), 'utf8'));

beforeAll(async () => {
  s = await startTestServer();
  await s.running.reportSchedules.stop();
  outbox = mkdtempSync(join(tmpdir(), 'fsm-outbox-'));
  mailer = createMailer({ smtpUrl: null, from: 'fsm@example.com', outboxDir: outbox });
  ann = await s.user('ann@example.com', { timeZone: TZ });
  van = s.addTracker(ann.id, '861000000000051', { label: 'Van 51' });
});
afterEach(() => {
  s.sql.prepare('DELETE FROM report_schedules').run();
  s.sql.prepare('DELETE FROM reports').run();
  for (const f of readdirSync(outbox)) rmSync(join(outbox, f));
});
afterAll(async () => {
  await s?.close();
  if (outbox) rmSync(outbox, { recursive: true, force: true });
});

describe('report schedule runner', () => {
  it('daily: nothing before the run time, one report of yesterday at it, never twice; mailed once ready', async () => {
    const id = await scheduleAt('2030-03-04 10:00:00', { period: 'previous_day', run_time: '07:30', title: 'Daily trips' });
    const clock = { now: at('2030-03-05 07:29:59') };
    const runner = runnerAt(clock);
    expect(await runner.tick()).toEqual({ queued: [], mailed: [] });
    clock.now = at('2030-03-05 07:30:00');
    const { queued } = await runner.tick();
    expect(queued).toHaveLength(1);
    expect((await listed()).map(({ id, title, from, to }) => ({ id, title, from, to }))).toEqual([{ id: queued[0], title: 'Daily trips', from: '2030-03-04 00:00:00', to: '2030-03-05 00:00:00' }]);
    clock.now = at('2030-03-05 23:59:00');
    expect((await runner.tick()).queued).toEqual([]);
    expect(await s.running.reports.idle(20_000)).toBe(true);
    expect((await listed())[0].state).toBe('ready');
    expect(await runner.tick()).toEqual({ queued: [], mailed: [id] });
    expect(await runner.tick()).toEqual({ queued: [], mailed: [] });
    const mails = emails();
    expect(mails).toHaveLength(1);
    const eml = mails[0];
    expect(eml).toMatch(/^To: boss@example\.com, fleet@example\.com$/m);
    expect(eml).toMatch(/^Subject: Daily trips: 2030-03-04$/m);
    expect(eml).toContain('filename="Daily trips 2030-03-04.xlsx"');
    expect(eml).toContain(FILE.toString('base64'));
    const value = (await s.call('report/schedule/read', { hash: ann.hash, schedule_id: id })).body.value;
    expect(value).toMatchObject({ last_run: '2030-03-05 07:30:00', last_error: null });
  });

  it('a run missed while the server was down runs once after start, for the latest day only', async () => {
    await scheduleAt('2030-03-04 10:00:00', { period: 'previous_day', run_time: '07:30' });
    const clock = { now: at('2030-03-09 12:00:00') };
    const { queued } = await runnerAt(clock).tick();
    expect(queued).toHaveLength(1);
    expect((await listed()).map(({ from, to }) => ({ from, to }))).toEqual([{ from: '2030-03-08 00:00:00', to: '2030-03-09 00:00:00' }]);
    // Another restart the same day: nothing again.
    expect((await runnerAt(clock).tick()).queued).toEqual([]);
    expect(await listed()).toHaveLength(1);
  });

  it('weekly: on Monday at the run time, Monday to Sunday of the week before', async () => {
    await scheduleAt('2030-03-04 10:00:00', { period: 'previous_week', run_time: '06:00', format: 'pdf' });
    const clock = { now: at('2030-03-10 23:00:00') };
    const runner = runnerAt(clock);
    expect((await runner.tick()).queued).toEqual([]);
    clock.now = at('2030-03-11 05:59:00');
    expect((await runner.tick()).queued).toEqual([]);
    clock.now = at('2030-03-11 06:00:00');
    expect((await runner.tick()).queued).toHaveLength(1);
    clock.now = at('2030-03-17 12:00:00');
    expect((await runner.tick()).queued).toEqual([]);
    expect((await listed()).map(({ from, to }) => ({ from, to }))).toEqual([{ from: '2030-03-04 00:00:00', to: '2030-03-11 00:00:00' }]);
    expect(await s.running.reports.idle(20_000)).toBe(true);
    expect((await runner.tick()).mailed, String(s.store.reportSchedules.list(ann.id)[0].last_error)).toHaveLength(1);
    expect(emails()[0]).toMatch(/^Subject: Trips: 2030-03-04..2030-03-10$/m);
    expect(emails()[0]).toContain('Content-Type: application/pdf; name="Trips 2030-03-04..2030-03-10.pdf"');
  });

  it('monthly: on the 1st at the run time, the calendar month before (across the DST change)', async () => {
    await scheduleAt('2030-03-04 10:00:00', { period: 'previous_month', run_time: '08:00' });
    const clock = { now: at('2030-04-01 07:59:00') };
    const runner = runnerAt(clock);
    expect((await runner.tick()).queued).toEqual([]);
    clock.now = at('2030-04-01 08:00:00');
    const { queued } = await runner.tick();
    expect(queued).toHaveLength(1);
    expect((await listed()).map(({ from, to }) => ({ from, to }))).toEqual([{ from: '2030-03-01 00:00:00', to: '2030-04-01 00:00:00' }]);
    const row = s.store.reports.get(ann.id, queued[0])!;
    expect(row.to_time - row.from_time).toBe(31 * 86_400_000 - 3_600_000); // Vilnius loses an hour on 2030-03-31
  });

  it('a schedule made over HTTP sends nothing for the period already due; a disabled one nothing at all', async () => {
    const r = await s.call('report/schedule/create', { hash: ann.hash, schedule: { plugin: { plugin_id: 4 }, trackers: [van], period: 'previous_day', run_time: '00:00', format: 'xlsx', recipients: ['a@example.com'] } });
    expect(r.body.success).toBe(true);
    expect((await runnerAt({ now: Date.now() }).tick()).queued).toEqual([]);
    expect((await s.call('report/schedule/delete', { hash: ann.hash, schedule_id: r.body.id })).body.success).toBe(true);
    const off = await scheduleAt('2030-03-04 10:00:00', { period: 'previous_day', run_time: '07:30', enabled: false });
    expect((await runnerAt({ now: at('2030-03-06 12:00:00') }).tick()).queued).toEqual([]);
    expect(s.store.reportSchedules.get(ann.id, off)!.last_run).toBeNull();
  });

  it('a mail that failed (or a crash between ready and mail) is sent by the next runner, once', async () => {
    const id = await scheduleAt('2030-03-04 10:00:00', { period: 'previous_day', run_time: '07:30' });
    const clock = { now: at('2030-03-05 08:00:00') };
    const broken: Mailer = { send: async () => Promise.reject(new Error('SMTP down')) };
    const first = runnerAt(clock, broken);
    expect((await first.tick()).queued).toHaveLength(1);
    expect(await s.running.reports.idle(20_000)).toBe(true);
    expect((await first.tick()).mailed).toEqual([]);
    const after = s.store.reportSchedules.get(ann.id, id)!;
    expect(after.last_error).toMatch(/could not be mailed: SMTP down/);
    expect(after.report_id).not.toBeNull();
    expect(emails()).toHaveLength(0);
    // "Restart": a fresh runner mails it; nothing is queued again.
    const second = runnerAt(clock);
    expect(await second.tick()).toEqual({ queued: [], mailed: [id] });
    expect(await second.tick()).toEqual({ queued: [], mailed: [] });
    expect(emails()).toHaveLength(1);
    expect(s.store.reportSchedules.get(ann.id, id)!.last_error).toBeNull();
    expect(await listed()).toHaveLength(1);
  });

  it('a tracker gone at run time: the period is skipped with last_error, not retried every minute', async () => {
    const t = s.addTracker(ann.id, '861000000000052');
    const id = await scheduleAt('2030-03-04 10:00:00', { period: 'previous_day', run_time: '07:30', trackers: [t] });
    s.store.trackers.setBlocked(s.store.trackers.getAny(t)!.source_id, true);
    const clock = { now: at('2030-03-05 08:00:00') };
    expect((await runnerAt(clock).tick()).queued).toEqual([]);
    expect(s.store.reportSchedules.get(ann.id, id)!.last_error).toMatch(/^the report of 2030-03-04 was not queued: List contains non-existent entities: trackers/);
    expect(await listed()).toHaveLength(0);
  });
  it('a report deleted (or failed) before it was mailed is not mailed; last_error says so', async () => {
    const id = await scheduleAt('2030-03-04 10:00:00', { period: 'previous_day', run_time: '07:30' });
    const clock = { now: at('2030-03-05 08:00:00') };
    const runner = runnerAt(clock);
    const { queued } = await runner.tick();
    expect(await s.running.reports.idle(20_000)).toBe(true);
    expect((await s.call('report/tracker/delete', { hash: ann.hash, report_id: queued[0] })).body.success).toBe(true);
    expect(await runner.tick()).toEqual({ queued: [], mailed: [] });
    const row = s.store.reportSchedules.get(ann.id, id)!;
    expect(row.last_error).toBe(`report ${queued[0]} was deleted before it was mailed`);
    expect(row.report_id).toBeNull();
    expect(emails()).toHaveLength(0);
  });

  it('a sub-user\'s schedule: the report is the sub-user\'s, in the owner\'s time zone', async () => {
    const sub = await s.user('sub@example.com', { parent: 'ann@example.com', rights: ['reports'], timeZone: 'UTC' });
    const r = await s.call('report/schedule/create', { hash: sub.hash, schedule: { plugin: { plugin_id: 4 }, trackers: [van], period: 'previous_day', run_time: '07:30', format: 'pdf', recipients: ['sub@example.com'] } });
    expect(r.body.success).toBe(true);
    s.sql.prepare('UPDATE report_schedules SET last_period = ? WHERE id = ?').run('2030-03-03', r.body.id);
    const { queued } = await runnerAt({ now: at('2030-03-05 07:30:00') }).tick();
    expect(queued).toHaveLength(1);
    const row = s.store.reports.get(ann.id, queued[0])!;
    expect(row.user_id).toBe(sub.id);
    expect([row.from_time, row.to_time]).toEqual([at('2030-03-04 00:00:00'), at('2030-03-05 00:00:00')]);
    expect((await s.call('report/schedule/list', { hash: ann.hash })).body.list.map((x: { id: number }) => x.id)).toEqual([r.body.id]);
  });
  it('update: a period already sent is not sent again; moving the run time earlier sends the one not sent yet', async () => {
    const id = await scheduleAt('2030-03-04 10:00:00', { period: 'previous_day', run_time: '07:30' });
    const clock = { now: at('2030-03-05 08:00:00') };
    expect((await runnerAt(clock).tick()).queued).toHaveLength(1);
    const update = (run_time: string) => s.call('report/schedule/update', { hash: ann.hash, schedule: { id, plugin: { plugin_id: 4 }, trackers: [van], period: 'previous_day', run_time, format: 'xlsx', recipients: ['a@example.com'] } });
    expect((await update('06:00')).body.success).toBe(true);
    expect((await runnerAt(clock).tick()).queued).toEqual([]);
    // The next day at 09:00 with a run time of 20:00: not yet; moved to 08:00: sent at once.
    clock.now = at('2030-03-06 09:00:00');
    expect((await update('20:00')).body.success).toBe(true);
    expect((await runnerAt(clock).tick()).queued).toEqual([]);
    expect((await update('08:00')).body.success).toBe(true);
    expect((await runnerAt(clock).tick()).queued).toHaveLength(1);
    expect((await listed()).map(({ from }) => from)).toEqual(['2030-03-04 00:00:00', '2030-03-05 00:00:00']);
  });
});
