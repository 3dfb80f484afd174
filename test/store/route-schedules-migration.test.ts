/**
 * Migration 045 (issue 23, route schedules) on a database of before: task schedules stay task
 * schedules; a route schedule's checkpoints go with it when it is deleted, its created days too,
 * and the routes it created stay.
 */
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/store/db.ts';
import Database from '../../src/store/sqlite.ts';
import { TaskScheduleStore, type TaskScheduleDraft } from '../../src/store/task-schedules.ts';

const draft = (label: string, fromTime: string): TaskScheduleDraft => ({
  label, description: '', lat: 54.6, lng: 25.2, address: 'Yard', radius: 100, tracker_id: null, max_delay: 0, min_stay_duration: 0, external_id: null, tags: '[]', fields: null,
  form_template_id: null, kind: 'weekdays', days: '[1]', from_time: fromTime, to_time: '23:00:00', duration: 60, min_arrival_duration: 0, days_ahead: 7, enabled: 1,
});

describe('migration 045', () => {
  it('keeps task schedules as they were; a route schedule takes its checkpoints and days along when deleted', () => {
    const db = new Database(':memory:');
    try {
      db.pragma('foreign_keys = ON');
      migrate(db, { until: 44 });
      const user = Number(db.prepare("INSERT INTO users (dealer_id, tariff_id, login, login_key, password_hash, creation_date) VALUES (1, 1, 'old@example.com', 'old@example.com', 'x', 0)").run().lastInsertRowid);
      const old = Number(db.prepare(`INSERT INTO task_schedules (user_id, label, lat, lng, radius, kind, days, from_time, to_time, days_ahead, created, updated)
        VALUES (?, 'Boiler', 54.6, 25.2, 100, 'weekdays', '[1]', '08:00:00', '09:00:00', 7, 0, 0)`).run(user).lastInsertRowid);
      migrate(db);
      const schedules = new TaskScheduleStore(db);
      expect(schedules.get(user, old)).toMatchObject({ type: 'task', parent_id: null, ord: null, label: 'Boiler' });

      const route = schedules.saveRoute(user, undefined, draft('Round', '08:00:00'), [{ draft: draft('A', '08:00:00') }, { draft: draft('B', '09:00:00') }], 0);
      const [a, b] = schedules.checkpoints(route);
      expect([a.label, a.ord, a.parent_id, b.label, b.ord]).toEqual(['A', 0, route, 'B', 1]);
      expect(schedules.list(user).map((r) => [r.id, r.type])).toEqual([[old, 'task'], [route, 'route']]);
      expect(schedules.count(user)).toBe(2);
      // Replaced: B kept and moved first, A deleted, C new.
      schedules.saveRoute(user, route, draft('Round', '08:00:00'), [{ id: b.id, draft: draft('B', '09:00:00') }, { draft: draft('C', '10:00:00') }], 1);
      expect(schedules.checkpoints(route).map((c) => [c.label, c.ord, c.id === b.id])).toEqual([['B', 0, true], ['C', 1, false]]);
      expect(schedules.get(user, a.id)).toBeUndefined();

      const task = Number(db.prepare("INSERT INTO tasks (user_id, type, label, status_change_date, creation_date) VALUES (?, 'route', 'Round', 0, 0)").run(user).lastInsertRowid);
      schedules.markDay(route, '2030-03-04', task);
      schedules.delete(user, route);
      expect(db.prepare('SELECT COUNT(*) FROM task_schedules WHERE id = ? OR parent_id = ?').pluck().get(route, route)).toBe(0);
      expect(db.prepare('SELECT COUNT(*) FROM task_schedule_days').pluck().get()).toBe(0);
      expect(db.prepare('SELECT COUNT(*) FROM tasks').pluck().get()).toBe(1);
      expect(schedules.list(user).map((r) => r.id)).toEqual([old]);
    } finally {
      db.close();
    }
  });
});
