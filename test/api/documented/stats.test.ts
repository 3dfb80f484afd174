/**
 * form/template/stats/read and file/stats/read as documented: how many tasks (by status) and task
 * schedules use a template, 201 for a template not the user's; the user's uploaded files, their
 * bytes and the storage quota. Both are read calls: a sub-user without rights gets its master's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jpeg, upload } from '../../files/fixtures.ts';
import { documentedServer, type Documented } from './harness.ts';

let d: Documented;
let sub: { hash: string };
let stranger: { hash: string };
beforeAll(async () => {
  d = await documentedServer('stats-doc@example.com', 'UTC', { FSM_FILE_QUOTA_MB: '100' });
  sub = await d.s.user('stats-sub@example.com', { parent: 'stats-doc@example.com', rights: [] });
  stranger = await d.s.user('stats-other@example.com');
});
afterAll(() => d?.close());

const none = { unassigned: 0, assigned: 0, done: 0, failed: 0, delayed: 0, arrived: 0, faulty: 0 };

describe('form/template/stats/read', () => {
  it('counts the tasks with a form of the template by status, and the schedules naming it', async () => {
    const fields = [{ id: 'note', label: 'Note', type: 'text', required: false }];
    const tpl = (await d.ok('form/template/create', { template: { label: 'Service', fields } })).id;
    const other = (await d.ok('form/template/create', { template: { label: 'Other', fields } })).id;
    expect(await d.call('form/template/stats/read', { template_id: tpl })).toEqual({ success: true, tasks: none, scheduled: 0 });

    const van = d.s.addTracker(d.userId, '359633100000088', { label: 'Van' });
    const task = (over: Record<string, unknown>) => ({ label: 'Visit', location: { lat: 52.52, lng: 13.405, radius: 100 }, from: '2031-01-01 09:00:00', to: '2031-01-01 18:00:00', form_template_id: tpl, ...over });
    await d.ok('task/create', { task: task({}), create_form: true });
    await d.ok('task/create', { task: task({}), create_form: true });
    await d.ok('task/create', { task: task({ tracker_id: van }), create_form: true });
    await d.ok('task/create', { task: task({ form_template_id: other }), create_form: true });
    await d.ok('task/create', { task: task({}), create_form: false });
    // A disabled schedule creates no tasks, and counts as using the template.
    const schedule = { label: 'Weekly', location: { lat: 52.52, lng: 13.405, radius: 100 }, from_time: '09:00:00', duration: 60, parameters: { type: 'weekdays', weekdays: [1] }, form_template_id: tpl, enabled: false };
    await d.ok('task/schedule/create', { schedule });
    await d.ok('task/schedule/create', { schedule: { ...schedule, form_template_id: other } });

    expect(await d.call('form/template/stats/read', { template_id: tpl })).toEqual({ success: true, tasks: { ...none, unassigned: 2, assigned: 1 }, scheduled: 1 });
    const res = await fetch(`${d.s.url}/v2/form/template/stats/read?hash=${d.hash}&template_id=${other}`);
    expect(await res.json()).toEqual({ success: true, tasks: { ...none, unassigned: 1 }, scheduled: 1 });
    expect((await d.s.call('form/template/stats/read', { hash: sub.hash, template_id: tpl })).body.tasks.unassigned).toBe(2);
  });
  it("201 for an unknown template and another user's; 7 naming template_id", async () => {
    const tpl = (await d.ok('form/template/create', { template: { label: 'Mine', fields: [] } })).id;
    expect(await d.call('form/template/stats/read', { template_id: 999_999 })).toEqual({ success: false, status: { code: 201, description: 'Not found in the database: form template 999999' } });
    expect((await d.s.call('form/template/stats/read', { hash: stranger.hash, template_id: tpl })).body.status.code).toBe(201);
    for (const bad of [{}, { template_id: 'one' }, { template_id: -1 }]) {
      const r = await d.call('form/template/stats/read', bad);
      expect(r.status.code).toBe(7);
      expect(r.errors[0].parameter).toBe('template_id');
    }
  });
});

describe('file/stats/read', () => {
  it('answers the count and bytes of the uploaded files and the quota; announced files are not counted', async () => {
    const quota = 100 * 1024 * 1024;
    expect(await d.call('file/stats/read')).toEqual({ success: true, value: { file_count: 0, total_size: 0, quota } });
    const photo = await jpeg();
    const sizes: number[] = [];
    for (const name of ['a.jpg', 'b.jpg']) {
      const a = await d.ok('checkin/file/create', { size: photo.length, filename: name, type: 'image' });
      const up = await upload(a.url, a.fields, photo, { filename: name, type: 'image/jpeg' });
      expect(up.status).toBe(200);
      sizes.push(up.body.value.size);
    }
    // Announced, never uploaded.
    await d.ok('checkin/file/create', { size: 5000, filename: 'later.jpg', type: 'image' });
    expect(await d.call('file/stats/read')).toEqual({ success: true, value: { file_count: 2, total_size: sizes[0] + sizes[1], quota } });
    const res = await fetch(`${d.s.url}/v2/file/stats/read?hash=${d.hash}`);
    expect((await res.json()).value.file_count).toBe(2);
  });
  it("a sub-user sees its master's files; another user only its own", async () => {
    expect((await d.s.call('file/stats/read', { hash: sub.hash })).body.value.file_count).toBe(2);
    expect((await d.s.call('file/stats/read', { hash: stranger.hash })).body).toEqual({ success: true, value: { file_count: 0, total_size: 0, quota: 100 * 1024 * 1024 } });
  });
});
