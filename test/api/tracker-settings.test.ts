/** tracker/processing_settings/read|update over real HTTP (issue 5; named tracker/settings/* before issue 23; docs/telemetry.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskJudge } from '../../src/telemetry/task-judge.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let s: TestServer;
let ann: { id: number; hash: string };
let bob: { id: number; hash: string };
let tracker: number;
beforeAll(async () => {
  s = await startTestServer();
  ann = await s.user('ann@example.com');
  bob = await s.user('bob@example.com');
  tracker = s.addTracker(ann.id, '356307042441013');
});
afterAll(() => s.close());

describe('tracker settings', () => {
  it('reads the defaults', async () => {
    expect((await s.call('tracker/processing_settings/read', { hash: ann.hash, tracker_id: tracker })).body).toEqual({
      success: true,
      value: { parking_min_seconds: 300, parking_speed_kmh: 3, ignition_ends_trip: true, max_jump_speed_kmh: 300, future_tolerance_seconds: 300, interval_mode_gap_seconds: 900, cluster_radius_meters: 300, speed_limit: null },
    });
  });
  it('updates some settings, keeps the others, and marks the history for reprocessing', async () => {
    const source = s.store.trackers.getAny(tracker)!.source_id;
    expect((await s.call('tracker/processing_settings/update', { hash: ann.hash, tracker_id: tracker, settings: { parking_min_seconds: 600, ignition_ends_trip: false } })).body).toEqual({ success: true });
    const v = (await s.call('tracker/processing_settings/read', { hash: ann.hash, tracker_id: tracker })).body.value;
    expect(v).toMatchObject({ parking_min_seconds: 600, ignition_ends_trip: false, parking_speed_kmh: 3 });
    expect(s.sql.prepare('SELECT from_time FROM telemetry_pending WHERE source_id = ?').pluck().get(source)).toBe(0);
  });
  it('7 naming the setting out of range; nothing changed', async () => {
    const r = await s.call('tracker/processing_settings/update', { hash: ann.hash, tracker_id: tracker, settings: { parking_min_seconds: 5 } });
    expect(r.body.status.code).toBe(7);
    expect(r.body.errors[0].parameter).toBe('settings.parking_min_seconds');
    expect((await s.call('tracker/processing_settings/read', { hash: ann.hash, tracker_id: tracker })).body.value.parking_min_seconds).toBe(600);
  });
  it('speed_limit (km/h, docs/events.md): none by default, set, cleared with null; 7 naming it when out of range', async () => {
    const read = async () => (await s.call('tracker/processing_settings/read', { hash: ann.hash, tracker_id: tracker })).body.value.speed_limit;
    expect((await s.call('tracker/processing_settings/update', { hash: ann.hash, tracker_id: tracker, settings: { speed_limit: 90 } })).body).toEqual({ success: true });
    expect(await read()).toBe(90);
    for (const bad of [0, 5000, 'fast']) {
      const r = await s.call('tracker/processing_settings/update', { hash: ann.hash, tracker_id: tracker, settings: { speed_limit: bad } });
      expect(r.body.status.code).toBe(7);
      expect(r.body.errors[0].parameter).toBe('settings.speed_limit');
      expect(await read()).toBe(90);
    }
    expect((await s.call('tracker/processing_settings/update', { hash: ann.hash, tracker_id: tracker, settings: { speed_limit: null } })).body).toEqual({ success: true });
    expect(await read()).toBe(null);
  });
  it("204 for another user's tracker, 219 for a clone", async () => {
    expect((await s.call('tracker/processing_settings/read', { hash: bob.hash, tracker_id: tracker })).body.status.code).toBe(204);
    const clone = s.store.trackers.clone(s.store.trackers.getAny(tracker)!, bob.id, 'c');
    expect((await s.call('tracker/processing_settings/update', { hash: bob.hash, tracker_id: clone, settings: { parking_min_seconds: 400 } })).body.status.code).toBe(219);
  });
});

describe('time-based task transitions', () => {
  it('an assigned task nobody visited fails once its deadline passes, judged by the timer', async () => {
    const at = (h: number) => new Date(Date.UTC(2030, 0, 1, h)).toISOString().slice(0, 19).replace('T', ' ');
    const created = await s.call('task/create', { hash: ann.hash, task: { label: 'Visit', description: '', tracker_id: tracker, location: { lat: 54.7, lng: 25.3, address: 'x', radius: 100 }, from: at(8), to: at(10), max_delay: 30, min_stay_duration: 0 } });
    expect(created.body.success).toBe(true);
    let now = Date.UTC(2030, 0, 1, 10, 20);
    const judge = new TaskJudge(s.store.telemetry, s.store.trackers, () => now);
    judge.judge(s.store.telemetry.tasksDue(now));
    expect((await s.call('task/read', { hash: ann.hash, task_id: created.body.id })).body.value.status).toBe('assigned');
    now = Date.UTC(2030, 0, 1, 10, 31); // past to + max_delay
    judge.judge(s.store.telemetry.tasksDue(now));
    const task = (await s.call('task/read', { hash: ann.hash, task_id: created.body.id })).body.value;
    expect(task.status).toBe('failed');
    expect(task.status_change_date).toBe('2030-01-01 10:30:00');
  });
});
