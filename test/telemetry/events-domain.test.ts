/**
 * The events the domain code records in the transaction of its change (issue 12; docs/events.md):
 * a check-in, work status changes, task status changes (assignment, the judge's outcome) and a form
 * submission, each made by real API calls, then read with history/tracker/list. A refused change
 * records nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskJudge } from '../../src/telemetry/task-judge.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let tracker: number;
let token: string;
const ZONE = { lat: 54.687, lng: 25.28, address: 'Square', radius: 100 };
const at = { lat: ZONE.lat, lng: ZONE.lng };

beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com', { timeZone: 'UTC' });
  tracker = s.addTracker(ann.id, 'phone-events', { protocol: 'osmand' });
  const { code } = (await s.call('tracker/app/activation/create', { hash: ann.hash, tracker_id: tracker })).body;
  token = (await s.call('app/activate', { code })).body.token;
});
afterAll(() => s?.close());

const app = (path: string, p: Record<string, unknown> = {}) => s.call(path, { hash: token, ...p });
const history = async (types: string[]) =>
  (await s.call('history/tracker/list', { hash: ann.hash, trackers: [tracker], from: '2026-01-01 00:00:00', to: '2026-01-31 00:00:00', types })).body;
const count = () => s.sql.prepare('SELECT count(*) FROM events').pluck().get() as number;
/** A history entry as history/tracker/list answers it (the documented entry, issue 23). */
const entry = (event: string, time: string, message: string, extra: Record<string, unknown>) => ({
  id: expect.any(Number),
  type: 'tracker',
  event,
  tracker_id: tracker,
  time,
  location: { ...at, address: expect.any(String) },
  address: expect.any(String),
  message,
  extra: { ...extra, emergency: false, tracker_label: 'tracker phone-events' },
  is_read: false,
  rule_id: null,
  track_id: null,
});

describe('domain events', () => {
  it('a check-in made by the field app', async () => {
    const r = await app('app/checkin/create', { location: at, time: '2026-01-10 09:30:00', comment: 'Gate open' });
    expect(r.body.success).toBe(true);
    const h = await history(['checkin_created']);
    expect(h.list).toEqual([entry('checkin_created', '2026-01-10 09:30:00', 'Check-in: Gate open', { checkin_id: r.body.id, comment: 'Gate open' })]);
    // A refused check-in (a bad file) records nothing.
    const before = count();
    expect((await app('app/checkin/create', { location: at, file_ids: [999_999] })).body.status.code).toBe(7);
    expect(count()).toBe(before);
  });

  it('work status changes by the supervisor; the same status again (263) records nothing', async () => {
    const listing = (await s.call('status/listing/create', { hash: ann.hash, listing: { label: 'Work', supervisor_controlled: true } })).body.id;
    const idle = (await s.call('status/create', { hash: ann.hash, listing_id: listing, status: { label: 'Idle', color: '00ff00' } })).body.id;
    const busy = (await s.call('status/create', { hash: ann.hash, listing_id: listing, status: { label: 'Busy', color: 'ff0000' } })).body.id;
    expect((await s.call('status/listing/tracker/assign', { hash: ann.hash, tracker_id: tracker, listing_id: listing })).body.success).toBe(true);
    expect((await s.call('status/tracker/assign', { hash: ann.hash, tracker_id: tracker, new_status_id: idle })).body.success).toBe(true);
    expect((await s.call('status/tracker/assign', { hash: ann.hash, tracker_id: tracker, new_status_id: busy })).body.success).toBe(true);
    const before = count();
    expect((await s.call('status/tracker/assign', { hash: ann.hash, tracker_id: tracker, new_status_id: busy })).body.status.code).toBe(263);
    expect(count()).toBe(before);
    const rows = s.sql.prepare("SELECT tracker_id, time, extra FROM events WHERE type = 'work_status_changed' ORDER BY id").all() as Array<{ tracker_id: number; time: number; extra: string }>;
    expect(rows.map((r) => ({ ...r, time: typeof r.time, extra: JSON.parse(r.extra) }))).toEqual([
      { tracker_id: tracker, time: 'number', extra: { old_status_id: null, old_status_label: null, new_status_id: idle, new_status_label: 'Idle', origin: 'supervisor' } },
      { tracker_id: tracker, time: 'number', extra: { old_status_id: idle, old_status_label: 'Idle', new_status_id: busy, new_status_label: 'Busy', origin: 'supervisor' } },
    ]);
  });

  it('task status changes: assigned by task/assign, failed by the judge at the deadline; a form submitted by the app', async () => {
    const fields = [{ id: 'note', label: 'Note', type: 'text', required: true, min_length: 1, max_length: 50 }];
    const tpl = (await s.call('form/template/create', { hash: ann.hash, template: { label: 'Check', fields } })).body.id;
    const created = await s.call('task/create', { hash: ann.hash, create_form: true, task: { label: 'Deliver', location: ZONE, from: '2026-01-10 09:00:00', to: '2026-01-10 12:00:00', form_template_id: tpl } });
    expect(created.body.success).toBe(true);
    const task = created.body.id;
    expect((await s.call('task/assign', { hash: ann.hash, task_id: task, tracker_id: tracker })).body.success).toBe(true);
    const sent = await app('app/form/submit', { task_id: task, values: { note: { type: 'text', value: 'ok' } }, location: at, time: '2026-01-10 09:45:00' });
    expect(sent.body.success).toBe(true);
    // Nobody arrived: the minute timer fails it at the deadline.
    const judge = new TaskJudge(s.store.telemetry, s.store.trackers, () => Date.UTC(2026, 0, 10, 12, 1));
    judge.judge(s.store.telemetry.tasksDue(Date.UTC(2026, 0, 10, 12, 1)));
    // Judged again with nothing new: no second event.
    judge.judge(s.store.telemetry.tasksDue(Date.UTC(2026, 0, 10, 12, 2)));

    const h = await history(['task_status_changed', 'form_submitted']);
    expect(h.success).toBe(true);
    const form = s.sql.prepare('SELECT id FROM forms WHERE task_id = ?').pluck().get(task);
    expect(h.list).toEqual([
      entry('form_submitted', '2026-01-10 09:45:00', 'Form Check submitted', { form_id: form, form_label: 'Check', task_id: task }),
      entry('task_status_changed', '2026-01-10 12:00:00', 'Task Deliver: assigned -> failed', { task_id: task, task_label: 'Deliver', old_status: 'assigned', new_status: 'failed' }),
    ]);
    // The assignment happened now (not in the listed month): read it from the store.
    const assigned = s.sql.prepare("SELECT time, extra FROM events WHERE type = 'task_status_changed' ORDER BY id LIMIT 1").get() as { time: number; extra: string };
    expect(JSON.parse(assigned.extra)).toEqual({ task_id: task, task_label: 'Deliver', old_status: 'unassigned', new_status: 'assigned' });
    expect(Math.abs(assigned.time - Date.now())).toBeLessThan(60_000);
  });
});
