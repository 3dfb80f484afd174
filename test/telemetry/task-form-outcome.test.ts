/**
 * Task outcome with forms (issue 11; docs/forms.md "Task outcome", docs/tasks.md): a task with a
 * form is done only when its zone was visited in the window (min stay met) AND the form was
 * submitted; the first submission counts; a form submitted after the deadline leaves the task
 * failed; late fixes reprocessed after the submission still complete it. Real SQLite file, real
 * worker pool (the outcomes after processing are judged in the worker), real submissions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { submitForm } from '../../src/forms/submit.ts';
import { attachForm, detachForm } from '../../src/forms/task-forms.ts';
import { pack } from '../../src/gateway/packing.ts';
import type { Geocoder } from '../../src/geocoder/types.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { openFixStore } from '../../src/store/fixes.ts';
import { openStore } from '../../src/store/index.ts';
import { TelemetryScheduler } from '../../src/telemetry/scheduler.ts';
import { TaskJudge } from '../../src/telemetry/task-judge.ts';
import type { DeviceRecord } from '../../protocols/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-form-outcome-'));
const config = loadConfig({ FSM_DATA_DIR: dir });
const store = openStore(config.dbFile);
afterAll(() => {
  try {
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const T0 = Date.UTC(2030, 0, 1, 8); // the window: 08:00-09:00 UTC
const min = (m: number) => T0 + m * 60_000;
const ZONE = { lat: 54.7, lng: 25.3 };
const geocoder: Geocoder = { reverse: async () => null, search: async () => [] };
let userId: number;
let templateId: number;
let device = 0;

beforeAll(async () => {
  userId = (await createUser({ store, config, mailer: createMailer(config.mail), now: () => T0 }, { login: 'outcome@example.com', password: 'outcome-1' })).id;
  templateId = store.formTemplates.create(userId, { label: 'Check', description: '', fields: JSON.stringify([{ id: 'ok', label: 'OK', type: 'rating', required: false, description: '', max_stars: 5 }]), submit_in_zone: false }, T0);
});

/** A tracker with a task (window 0-60 min) and, unless `form` is false, a form on it. */
async function setup(o: { minStay?: number; maxDelay?: number; form?: boolean } = {}) {
  const trackerId = store.trackers.add({ userId, deviceId: `form-outcome-${++device}`, protocol: 'teltonika', label: 'Van', tariffId: 1, now: T0 });
  const sourceId = store.trackers.getAny(trackerId)!.source_id;
  const taskId = store.tasks.create(userId, {
    type: 'task',
    draft: { label: 'Inspect', description: '', lat: ZONE.lat, lng: ZONE.lng, address: 'Depot', radius: 100, from_time: min(0), to_time: min(60), external_id: null, max_delay: o.maxDelay ?? 0, min_stay_duration: o.minStay ?? 0, form_template_id: null },
    trackerId,
    status: 'assigned',
    origin: 'manual',
    now: T0,
  });
  const formId = o.form === false ? 0 : await attachForm({ store, geocoder, now: () => T0 }, userId, store.tasks.get(userId, taskId)!, templateId);
  return { trackerId, sourceId, taskId, formId };
}

/** Fixes every 30 s inside the zone from minute `a` to `b`, then one outside. */
function drive(sourceId: number, a: number, b: number) {
  const records: DeviceRecord[] = [];
  for (let t = min(a); t <= min(b); t += 30_000) records.push({ time: t, lat: ZONE.lat, lng: ZONE.lng, speed: 0, course: 0, satellites: 9, valid: true, attributes: {} });
  records.push({ time: min(b) + 30_000, lat: ZONE.lat + 0.05, lng: ZONE.lng, speed: 30, course: 0, satellites: 9, valid: true, attributes: {} });
  const writer = openFixStore(config.dbFile, 'NORMAL');
  try {
    writer.fixes.write([pack(sourceId, records, min(b))], min(b));
  } finally {
    writer.close();
  }
}

/** One telemetry pass at `now` over whatever was written. */
async function process(now: number) {
  const errors: string[] = [];
  const scheduler = new TelemetryScheduler(store, { dbFile: config.dbFile, threads: 1, now: () => now, log: (m, d) => errors.push(`${m} ${JSON.stringify(d)}`) });
  try {
    scheduler.start();
    expect(await scheduler.idle(30_000)).toBe(true);
  } finally {
    await scheduler.close();
  }
  expect(errors).toEqual([]);
}

const submit = (formId: number, time: number, now = time) => submitForm({ store, geocoder, now: () => now }, { userId, formId, values: { ok: { type: 'rating', value: 5 } }, location: ZONE, time, origin: 'employee', timeZone: 'UTC' });
const task = (id: number) => store.tasks.get(userId, id)!;
const judgeAt = (now: number) => new TaskJudge(store.telemetry, store.trackers, () => now).judge(store.telemetry.tasksDue(now));

describe('task outcome with a form', () => {
  it('visited but not submitted: arrived, not done; submitted later in the window: done at the submission', async () => {
    const t = await setup();
    drive(t.sourceId, 10, 20);
    await process(min(30));
    expect(task(t.taskId)).toMatchObject({ status: 'arrived', arrival_date: min(10), completion_date: null });
    const r = await submit(t.formId, min(40));
    expect(r.changes).toEqual([expect.objectContaining({ id: t.taskId, previous: 'arrived', status: 'done', at: min(40) })]);
    expect(task(t.taskId)).toMatchObject({ status: 'done', status_change_date: min(40), completion_date: min(40), arrival_date: min(10) });
    // A resubmission never moves the completion.
    await submit(t.formId, min(50));
    expect(task(t.taskId)).toMatchObject({ status: 'done', completion_date: min(40) });
    expect(store.forms.get(userId, t.formId)).toMatchObject({ first_submitted: min(40), submitted: min(50) });
  });

  it('the same visit without a form is done at once (the rule is the form\'s)', async () => {
    const t = await setup({ form: false });
    drive(t.sourceId, 10, 20);
    await process(min(30));
    expect(task(t.taskId)).toMatchObject({ status: 'done', completion_date: min(10) });
  });

  it('submitted before the visit: done when the stay is reached', async () => {
    const t = await setup({ minStay: 5 });
    await submit(t.formId, min(5), min(6));
    expect(task(t.taskId).status).toBe('assigned');
    drive(t.sourceId, 10, 20);
    await process(min(30));
    expect(task(t.taskId)).toMatchObject({ status: 'done', completion_date: min(15) });
  });

  it('submitted after `to` within max_delay: delayed at the submission', async () => {
    const t = await setup({ maxDelay: 30 });
    drive(t.sourceId, 10, 20);
    await process(min(30));
    await submit(t.formId, min(70));
    expect(task(t.taskId)).toMatchObject({ status: 'delayed', completion_date: min(70) });
  });

  it('never submitted: arrived until the deadline, then failed (the minute timer); a submission after it leaves it failed', async () => {
    const t = await setup();
    drive(t.sourceId, 10, 20);
    await process(min(30));
    expect(task(t.taskId).status).toBe('arrived');
    judgeAt(min(59));
    expect(task(t.taskId).status).toBe('arrived');
    judgeAt(min(61));
    expect(task(t.taskId)).toMatchObject({ status: 'failed', status_change_date: min(60) });
    await submit(t.formId, min(65));
    expect(task(t.taskId)).toMatchObject({ status: 'failed', status_change_date: min(60), completion_date: null });
  });

  it('late fixes: submitted while the tracker was offline, its buffered visit arrives after the deadline: done by the fixes\' own times', async () => {
    const t = await setup();
    await submit(t.formId, min(25), min(26));
    await process(min(61)); // nothing written yet: the deadline passed with no visit
    judgeAt(min(61));
    expect(task(t.taskId).status).toBe('failed');
    drive(t.sourceId, 10, 20); // the buffer arrives
    await process(min(90));
    expect(task(t.taskId)).toMatchObject({ status: 'done', arrival_date: min(10), completion_date: min(25) });
  });

  it('deleting the form of an arrived task judges it again: done without the form', async () => {
    const t = await setup();
    drive(t.sourceId, 10, 20);
    await process(min(30));
    expect(task(t.taskId).status).toBe('arrived');
    await detachForm({ store, geocoder, now: () => min(31) }, userId, task(t.taskId));
    expect(task(t.taskId)).toMatchObject({ status: 'done', completion_date: min(10) });
  });
});

describe('a check-in form (no task)', () => {
  it('is created from a template, submitted without any task rule, and read back', async () => {
    const { createCheckinForm } = await import('../../src/forms/task-forms.ts');
    const trackerId = store.trackers.add({ userId, deviceId: 'form-checkin', protocol: 'teltonika', label: 'Phone', tariffId: 1, now: T0 });
    const formId = await createCheckinForm({ store, geocoder, now: () => T0 }, userId, templateId, trackerId);
    const r = await submit(formId, min(5));
    expect(r.changes).toEqual([]);
    expect(store.forms.get(userId, formId)).toMatchObject({ task_id: null, tracker_id: trackerId, submitted: min(5), submit_origin: 'employee' });
    await expect(createCheckinForm({ store, geocoder, now: () => T0 }, userId, 999_999, trackerId)).rejects.toThrow('Not found in the database: form template 999999');
  });
});
