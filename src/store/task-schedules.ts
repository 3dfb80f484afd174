/**
 * Task schedules and the days they already created (migration 029; docs/schedules.md); route
 * schedules and their checkpoint schedules are rows of the same table (migration 045).
 */
import type { DB } from './db.ts';

export interface TaskScheduleRow {
  id: number;
  user_id: number;
  label: string;
  description: string;
  lat: number;
  lng: number;
  address: string;
  radius: number;
  tracker_id: number | null;
  max_delay: number;
  min_stay_duration: number;
  external_id: string | null;
  tags: string | null;
  fields: string | null;
  form_template_id: number | null;
  kind: 'weekdays' | 'month_days';
  days: string;
  from_time: string;
  to_time: string;
  /** Minutes; null: made with to_time (a wall-clock end). Migration 041. */
  duration: number | null;
  min_arrival_duration: number;
  days_ahead: number;
  enabled: number;
  last_error: string | null;
  created: number;
  updated: number;
  /** Migration 045: a task schedule, a route schedule, or one checkpoint of a route schedule. */
  type: 'task' | 'route' | 'checkpoint';
  /** The route schedule of a checkpoint; null otherwise. */
  parent_id: number | null;
  /** A checkpoint's zero-based place in its route; null otherwise. */
  ord: number | null;
}

/** The columns a user writes. */
export type TaskScheduleDraft = Omit<TaskScheduleRow, 'id' | 'user_id' | 'last_error' | 'created' | 'updated' | 'type' | 'parent_id' | 'ord'>;

const COLUMNS = ['label', 'description', 'lat', 'lng', 'address', 'radius', 'tracker_id', 'max_delay', 'min_stay_duration', 'external_id', 'tags', 'fields', 'form_template_id', 'kind', 'days', 'from_time', 'to_time', 'duration', 'min_arrival_duration', 'days_ahead', 'enabled'] as const;

/** The columns a user writes, of a stored row. */
export function draftOf(r: TaskScheduleRow): TaskScheduleDraft {
  return Object.fromEntries(COLUMNS.map((c) => [c, r[c]])) as unknown as TaskScheduleDraft;
}

export class TaskScheduleStore {
  private getStmt;
  private listStmt;
  private countStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private enabledStmt;
  private dayStmt;
  private markStmt;
  private errorStmt;
  private checkpointsStmt;
  private placeStmt;
  private loosenStmt;
  private copyDaysStmt;

  constructor(private db: DB) {
    this.getStmt = db.prepare<[number, number], TaskScheduleRow>('SELECT * FROM task_schedules WHERE id = ? AND user_id = ?');
    // Checkpoints are read through their route (checkpoints()) or by id (get()).
    this.listStmt = db.prepare<[number], TaskScheduleRow>("SELECT * FROM task_schedules WHERE user_id = ? AND type <> 'checkpoint' ORDER BY id");
    this.countStmt = db.prepare<[number], number>("SELECT COUNT(*) FROM task_schedules WHERE user_id = ? AND type <> 'checkpoint'").pluck();
    this.insertStmt = db.prepare(`INSERT INTO task_schedules (user_id, type, parent_id, ord, ${COLUMNS.join(', ')}, created, updated)
      VALUES (@user_id, @type, @parent_id, @ord, ${COLUMNS.map((c) => `@${c}`).join(', ')}, @now, @now)`);
    this.updateStmt = db.prepare(`UPDATE task_schedules SET ${COLUMNS.map((c) => `${c} = @${c}`).join(', ')}, last_error = NULL, updated = @now WHERE id = @id AND user_id = @user_id`);
    this.deleteStmt = db.prepare('DELETE FROM task_schedules WHERE id = ? AND user_id = ?');
    this.enabledStmt = db.prepare<[], TaskScheduleRow>("SELECT * FROM task_schedules WHERE enabled = 1 AND type <> 'checkpoint' ORDER BY id");
    this.dayStmt = db.prepare<[number, string], number>('SELECT 1 FROM task_schedule_days WHERE schedule_id = ? AND day = ?').pluck();
    this.markStmt = db.prepare('INSERT INTO task_schedule_days (schedule_id, day, task_id) VALUES (?, ?, ?)');
    this.errorStmt = db.prepare('UPDATE task_schedules SET last_error = ? WHERE id = ?');
    this.checkpointsStmt = db.prepare<[number], TaskScheduleRow>("SELECT * FROM task_schedules WHERE parent_id = ? AND type = 'checkpoint' ORDER BY ord");
    this.placeStmt = db.prepare('UPDATE task_schedules SET ord = ? WHERE id = ?');
    this.loosenStmt = db.prepare("UPDATE task_schedules SET type = 'task', parent_id = NULL, ord = NULL, last_error = NULL, updated = ? WHERE id = ?");
    this.copyDaysStmt = db.prepare('INSERT OR IGNORE INTO task_schedule_days (schedule_id, day, task_id) SELECT ?, day, task_id FROM task_schedule_days WHERE schedule_id = ?');
  }

  get(userId: number, id: number): TaskScheduleRow | undefined {
    return this.getStmt.get(id, userId);
  }
  list(userId: number): TaskScheduleRow[] {
    return this.listStmt.all(userId);
  }
  count(userId: number): number {
    return this.countStmt.get(userId) as number;
  }
  create(userId: number, d: TaskScheduleDraft, now: number): number {
    return this.insert(userId, d, now, 'task', null, null);
  }
  private insert(userId: number, d: TaskScheduleDraft, now: number, type: TaskScheduleRow['type'], parentId: number | null, ord: number | null): number {
    return Number(this.insertStmt.run({ ...d, user_id: userId, now, type, parent_id: parentId, ord }).lastInsertRowid);
  }
  /** A route schedule's checkpoints, in order. */
  checkpoints(routeId: number): TaskScheduleRow[] {
    return this.checkpointsStmt.all(routeId);
  }
  /**
   * Write a route schedule and its checkpoints in one transaction: a new one (no `routeId`), or the
   * existing one replaced, whose checkpoints become `checkpoints` in that order (an entry with `id`
   * updates that checkpoint, one without is new, the others are deleted). Answers the route's id.
   */
  saveRoute(userId: number, routeId: number | undefined, route: TaskScheduleDraft, checkpoints: Array<{ id?: number; draft: TaskScheduleDraft }>, now: number): number {
    return this.db.transaction(() => {
      let id = routeId;
      if (id === undefined) id = this.insert(userId, route, now, 'route', null, null);
      else {
        this.update(userId, id, route, now);
        const kept = new Set(checkpoints.flatMap((c) => (c.id === undefined ? [] : [c.id])));
        for (const c of this.checkpoints(id)) if (!kept.has(c.id)) this.delete(userId, c.id);
      }
      checkpoints.forEach((c, ord) => {
        if (c.id === undefined) this.insert(userId, c.draft, now, 'checkpoint', id, ord);
        else {
          this.update(userId, c.id, c.draft, now);
          this.placeStmt.run(ord, c.id);
        }
      });
      return id;
    })();
  }
  update(userId: number, id: number, d: TaskScheduleDraft, now: number): void {
    this.updateStmt.run({ ...d, id, user_id: userId, now });
  }
  /**
   * A checkpoint schedule becomes a task schedule of its own and its route schedule (with the other
   * checkpoints) is deleted. The days the route created count as created for it (their task_id is
   * the route), so it creates no task on a day that has its route.
   */
  transmute(checkpoint: TaskScheduleRow, now: number): void {
    this.db.transaction(() => {
      this.loosenStmt.run(now, checkpoint.id);
      this.copyDaysStmt.run(checkpoint.id, checkpoint.parent_id);
      this.delete(checkpoint.user_id, checkpoint.parent_id!);
    })();
  }
  delete(userId: number, id: number): void {
    this.deleteStmt.run(id, userId);
  }
  /** Every enabled schedule of every user (the runner's round). */
  enabled(): TaskScheduleRow[] {
    return this.enabledStmt.all();
  }
  hasDay(scheduleId: number, day: string): boolean {
    return this.dayStmt.get(scheduleId, day) !== undefined;
  }
  /** Record that the day was created (with its task, or null when none could be). */
  markDay(scheduleId: number, day: string, taskId: number | null): void {
    this.markStmt.run(scheduleId, day, taskId);
  }
  setError(scheduleId: number, error: string | null): void {
    this.errorStmt.run(error, scheduleId);
  }
}
