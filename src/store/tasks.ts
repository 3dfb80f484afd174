/**
 * Tasks, routes and checkpoints (migration 006; docs/tasks-api.md): one table, one id space.
 * Status, arrival_date, stay_duration and completion_date move only through `setOutcome`, which
 * belongs to the telemetry core; the API sets status only by assignment (unassigned/assigned).
 */
import type { Statement } from 'better-sqlite3';
import type { DB } from './db.ts';
import { FieldStore, type FieldValues } from './fields.ts';
import type { TagStore } from './tags.ts';
import type { FieldMap } from '../lists/conditions.ts';

export type TaskType = 'task' | 'route' | 'checkpoint';
export const TASK_STATUSES = ['unassigned', 'assigned', 'done', 'failed', 'delayed', 'arrived', 'faulty'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export type TaskOrigin = 'manual' | 'scheduled' | 'imported';

export interface TaskRow {
  id: number;
  user_id: number;
  type: TaskType;
  route_id: number | null;
  ord: number | null;
  tracker_id: number | null;
  label: string;
  description: string;
  lat: number | null;
  lng: number | null;
  address: string;
  radius: number | null;
  from_time: number | null;
  to_time: number | null;
  external_id: string | null;
  status: TaskStatus;
  status_change_date: number;
  max_delay: number;
  min_stay_duration: number;
  arrival_date: number | null;
  stay_duration: number;
  completion_date: number | null;
  origin: TaskOrigin;
  form_template_id: number | null;
  creation_date: number;
}

/** What task/create and task/update write (a route uses label, description and external_id only). */
export interface TaskDraft {
  label: string;
  description: string;
  lat: number | null;
  lng: number | null;
  address: string;
  radius: number | null;
  from_time: number | null;
  to_time: number | null;
  external_id: string | null;
  max_delay: number;
  min_stay_duration: number;
  form_template_id: number | null;
  /** Absent: unchanged on update, none on create. */
  tags?: number[];
  fields?: FieldValues;
}

/** Filters of task/list and task/route/list; SQL fragments come only from this file and the conditions compiler. */
export interface TaskQuery {
  userId: number;
  routes: boolean;
  externalId?: string | null;
  statuses?: string[];
  trackers?: number[];
  from?: number;
  to?: number;
  conditions?: { sql: string; params: unknown[] };
  filter?: string;
  filters?: string[];
  tagIds?: number[];
  location?: { lat: number; lng: number; radius: number };
  orderBy: string;
  offset?: number;
  limit?: number;
}

export interface Outcome {
  status: Exclude<TaskStatus, 'unassigned'>;
  /** When the status changed (ms UTC); kept when the status stays the same. */
  at: number;
  arrival_date?: number | null;
  stay_duration?: number;
  completion_date?: number | null;
}

const EARTH_M = 6_371_008.8;
const rad = (d: number) => (d * Math.PI) / 180;
/** Great-circle distance in meters (haversine). */
export function distanceM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const a = Math.sin(rad(lat2 - lat1) / 2) ** 2 + Math.cos(rad(lat1)) * Math.cos(rad(lat2)) * Math.sin(rad(lng2 - lng1) / 2) ** 2;
  return 2 * EARTH_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

const like = (s: string) => `%${s.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
const LIKE = "LIKE ? ESCAPE '\\'";
const TRACKER_LABEL = '(SELECT tr.label FROM trackers tr WHERE tr.id = t.tracker_id)';

export class TaskStore {
  /** Condition and sort fields of task/list (spec: Task list condition / sort fields), over alias t. */
  readonly listFields: FieldMap;
  private getStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private assignStmt;
  private assignRouteStmt;
  private checkpointsStmt;
  private shiftStmt;
  private renumberStmt;
  private toCheckpointStmt;
  private spanStmt;
  private countStmt;
  private externalCountStmt;
  private activeStmt;
  private outcomeStmt;
  private deliveryStmt;
  private queries = new Map<string, Statement>();

  constructor(private db: DB, private tags: TagStore, private fields: FieldStore) {
    db.function('fsm_distance_m', { deterministic: true }, (a: unknown, b: unknown, c: unknown, d: unknown) =>
      a === null || b === null ? null : distanceM(Number(a), Number(b), Number(c), Number(d)),
    );
    this.getStmt = db.prepare<[number, number], TaskRow>('SELECT * FROM tasks WHERE id = ? AND user_id = ?');
    this.insertStmt = db.prepare(`INSERT INTO tasks (user_id, type, route_id, ord, tracker_id, label, description, lat, lng, address, radius,
      from_time, to_time, external_id, status, status_change_date, max_delay, min_stay_duration, origin, form_template_id, creation_date)
      VALUES (@user_id, @type, @route_id, @ord, @tracker_id, @label, @description, @lat, @lng, @address, @radius,
      @from_time, @to_time, @external_id, @status, @now, @max_delay, @min_stay_duration, @origin, @form_template_id, @now)`);
    this.updateStmt = db.prepare(`UPDATE tasks SET label = @label, description = @description, lat = @lat, lng = @lng, address = @address,
      radius = @radius, from_time = @from_time, to_time = @to_time, external_id = @external_id, max_delay = @max_delay,
      min_stay_duration = @min_stay_duration, form_template_id = @form_template_id WHERE id = @id AND user_id = @user_id`);
    this.deleteStmt = db.prepare('DELETE FROM tasks WHERE id = ? AND user_id = ?');
    const assignSet = `tracker_id = @tracker_id, status_change_date = CASE WHEN status = @status THEN status_change_date ELSE @now END, status = @status`;
    this.assignStmt = db.prepare(`UPDATE tasks SET ${assignSet} WHERE id = @id AND user_id = @user_id`);
    this.assignRouteStmt = db.prepare(`UPDATE tasks SET ${assignSet} WHERE route_id = @id AND user_id = @user_id`);
    this.checkpointsStmt = db.prepare<[number], TaskRow>('SELECT * FROM tasks WHERE route_id = ? ORDER BY ord, id');
    this.shiftStmt = db.prepare('UPDATE tasks SET ord = ord + 1 WHERE route_id = ? AND ord >= ?');
    this.renumberStmt = db.prepare('UPDATE tasks SET ord = ? WHERE id = ?');
    this.toCheckpointStmt = db.prepare(`UPDATE tasks SET type = 'checkpoint', route_id = @route_id, ord = @ord, tracker_id = @tracker_id,
      status_change_date = CASE WHEN status = @status THEN status_change_date ELSE @now END, status = @status WHERE id = @id`);
    this.spanStmt = db.prepare(`UPDATE tasks SET from_time = (SELECT MIN(from_time) FROM tasks WHERE route_id = @id),
      to_time = (SELECT MAX(to_time) FROM tasks WHERE route_id = @id) WHERE id = @id`);
    this.countStmt = db.prepare<[number], number>("SELECT COUNT(*) FROM tasks WHERE user_id = ? AND type <> 'route'").pluck();
    this.externalCountStmt = db.prepare<[number, string], number>("SELECT COUNT(*) FROM tasks WHERE user_id = ? AND external_id = ?").pluck();
    this.activeStmt = db.prepare<[number], TaskRow>(
      "SELECT * FROM tasks WHERE tracker_id = ? AND type <> 'route' AND status IN ('assigned', 'arrived', 'delayed') ORDER BY from_time, id",
    );
    this.outcomeStmt = db.prepare(`UPDATE tasks SET status_change_date = CASE WHEN status = @status THEN status_change_date ELSE @at END,
      status = @status, arrival_date = COALESCE(@arrival_date, arrival_date), stay_duration = COALESCE(@stay_duration, stay_duration),
      completion_date = COALESCE(@completion_date, completion_date) WHERE id = @id`);
    this.deliveryStmt = db.prepare<[number, string, number], TaskRow>(`SELECT * FROM tasks WHERE user_id = ? AND external_id = ? AND type <> 'route'
      AND from_time <= ? AND status IN ('arrived', 'assigned', 'delayed') ORDER BY CASE type WHEN 'task' THEN 0 ELSE 1 END, from_time, id`);
    this.listFields = listFields();
  }

  get(userId: number, id: number): TaskRow | undefined {
    return this.getStmt.get(id, userId);
  }
  checkpoints(routeId: number): TaskRow[] {
    return this.checkpointsStmt.all(routeId);
  }
  /** Tasks and checkpoints of the user (task/count). */
  count(userId: number): number {
    return this.countStmt.get(userId)!;
  }
  /** How many of the user's tasks, checkpoints and routes carry `externalId` (external_id_counts). */
  externalIdCount(userId: number, externalId: string): number {
    return this.externalCountStmt.get(userId, externalId)!;
  }

  /** A task or a route with its checkpoints (in order), tags and custom fields, in one transaction. */
  create(userId: number, t: { type: 'task' | 'route'; draft: TaskDraft; trackerId: number | null; status: TaskStatus; origin: TaskOrigin; now: number }, checkpoints: TaskDraft[] = []): number {
    return this.db.transaction(() => {
      const status = t.status;
      const id = this.insert(userId, t.type, t.draft, { trackerId: t.trackerId, status, origin: t.origin, now: t.now, routeId: null, ord: null });
      checkpoints.forEach((c, ord) => this.insert(userId, 'checkpoint', c, { trackerId: t.trackerId, status, origin: t.origin, now: t.now, routeId: id, ord }));
      if (t.type === 'route') this.spanStmt.run({ id });
      return id;
    })();
  }

  private insert(userId: number, type: TaskType, d: TaskDraft, o: { trackerId: number | null; status: TaskStatus; origin: TaskOrigin; now: number; routeId: number | null; ord: number | null }): number {
    const { tags, fields, ...cols } = d;
    const id = Number(
      this.insertStmt.run({ ...cols, user_id: userId, type, route_id: o.routeId, ord: o.ord, tracker_id: o.trackerId, status: o.status, origin: o.origin, now: o.now }).lastInsertRowid,
    );
    if (tags?.length) this.tags.setEntityTags('task', id, tags);
    if (fields) this.fields.save('task', id, fields);
    return id;
  }

  /** Replace the editable fields (tags and fields only when given); a checkpoint's route gets its new span. */
  update(row: TaskRow, d: TaskDraft): void {
    this.db.transaction(() => {
      const { tags, fields, ...cols } = d;
      this.updateStmt.run({ ...cols, id: row.id, user_id: row.user_id });
      if (tags) this.tags.setEntityTags('task', row.id, tags);
      if (fields) this.fields.save('task', row.id, fields);
      if (row.route_id !== null) this.spanStmt.run({ id: row.route_id });
    })();
  }

  /** Delete a task, a checkpoint (the rest of its route closes up) or a route with its checkpoints. */
  delete(row: TaskRow): void {
    this.db.transaction(() => {
      this.deleteStmt.run(row.id, row.user_id);
      if (row.route_id !== null) this.closeUp(row.route_id);
    })();
  }

  private closeUp(routeId: number): void {
    this.checkpoints(routeId).forEach((c, i) => c.ord !== i && this.renumberStmt.run(i, c.id));
    this.spanStmt.run({ id: routeId });
  }

  /** Assign (tracker) or unassign (null) a task, or a route together with its checkpoints. */
  assign(row: TaskRow, trackerId: number | null, status: TaskStatus, now: number): void {
    const p = { id: row.id, user_id: row.user_id, tracker_id: trackerId, status, now };
    this.db.transaction(() => {
      this.assignStmt.run(p);
      if (row.type === 'route') this.assignRouteStmt.run(p);
    })();
  }

  /** Make a task the checkpoint of `route` at zero-based `order`; it follows the route's assignment. */
  transmute(task: TaskRow, route: TaskRow, order: number, now: number): void {
    this.db.transaction(() => {
      this.shiftStmt.run(route.id, order);
      const status = route.status;
      this.toCheckpointStmt.run({ id: task.id, route_id: route.id, ord: order, tracker_id: route.tracker_id, status, now });
      this.spanStmt.run({ id: route.id });
    })();
  }

  /** One page of task/list (or task/route/list) and the total count, both in SQL. */
  list(q: TaskQuery): { rows: TaskRow[]; count: number } {
    const where: string[] = ['t.user_id = ?', q.routes ? "t.type = 'route'" : "t.type <> 'route'"];
    const params: unknown[] = [q.userId];
    const add = (sql: string, ...p: unknown[]) => {
      where.push(sql);
      params.push(...p);
    };
    if (q.externalId !== undefined && q.externalId !== null) add('t.external_id = ?', q.externalId);
    if (q.statuses) add(`t.status IN (${q.statuses.map(() => '?').join(', ') || 'NULL'})`, ...q.statuses);
    if (q.trackers) add(`t.tracker_id IN (${q.trackers.map(() => '?').join(', ') || 'NULL'})`, ...q.trackers);
    // Actual after `from` / before `to`: the task window [from, to] overlaps the asked one.
    if (q.from !== undefined) add('t.to_time >= ?', q.from);
    if (q.to !== undefined) add('t.from_time <= ?', q.to);
    if (q.conditions && q.conditions.sql !== '1=1') add(`(${q.conditions.sql})`, ...q.conditions.params);
    if (q.filter) {
      // Tracker labels and custom field values are matched once (uncorrelated), not per task.
      const p = like(q.filter);
      add(
        `(t.label ${LIKE} OR t.description ${LIKE} OR t.address ${LIKE} OR t.external_id ${LIKE} OR t.status ${LIKE} OR t.id = ?
          OR t.tracker_id IN (SELECT tr.id FROM trackers tr WHERE tr.user_id = ? AND tr.label ${LIKE})
          OR t.id IN (SELECT v.entity_id FROM entity_field_values v WHERE v.entity_type = 'task'
            AND v.field_id IN (SELECT f.id FROM entity_fields f WHERE f.user_id = ? AND f.entity_type = 'task') AND v.text ${LIKE}))`,
        p, p, p, p, p, /^\d{1,15}$/.test(q.filter) ? Number(q.filter) : null, q.userId, p, q.userId, p,
      );
    }
    for (const f of q.filters ?? []) add(`(t.label ${LIKE} OR t.description ${LIKE} OR t.address ${LIKE})`, like(f), like(f), like(f));
    if (q.tagIds?.length) add(`EXISTS (SELECT 1 FROM entity_tags et WHERE et.entity_type = 'task' AND et.entity_id = t.id AND et.tag_id IN (${q.tagIds.map(() => '?').join(', ')}))`, ...q.tagIds);
    if (q.location) this.near(q.location, add);
    const whereSql = where.join(' AND ');
    const count = this.query(`SELECT COUNT(*) FROM tasks t WHERE ${whereSql}`).pluck().get(...params) as number;
    let sql = `SELECT t.* FROM tasks t WHERE ${whereSql} ORDER BY ${q.orderBy}`;
    let pageParams: unknown[] = [];
    if (q.limit !== undefined || q.offset) {
      // Page over ids first, then read the page's rows: skipped rows are never read from the table.
      sql = `SELECT t.* FROM tasks t WHERE t.id IN (SELECT t.id FROM tasks t WHERE ${whereSql} ORDER BY ${q.orderBy} LIMIT ? OFFSET ?) ORDER BY ${q.orderBy}`;
      pageParams = [q.limit ?? -1, q.offset ?? 0];
    }
    const rows = this.query(sql).all(...params, ...pageParams) as TaskRow[];
    return { rows, count };
  }

  /** Zone centers within the circle: a bounding box the lat/lng index can use, then the exact distance. */
  private near(c: { lat: number; lng: number; radius: number }, add: (sql: string, ...p: unknown[]) => void): void {
    const dLat = (c.radius / EARTH_M) * (180 / Math.PI);
    const cos = Math.cos(rad(c.lat));
    const dLng = cos < 1e-9 ? 360 : dLat / cos;
    add('t.lat BETWEEN ? AND ?', c.lat - dLat, c.lat + dLat);
    if (dLng < 180 && c.lat + dLat < 90 && c.lat - dLat > -90) {
      const lo = c.lng - dLng;
      const hi = c.lng + dLng;
      if (lo < -180) add('(t.lng >= ? OR t.lng <= ?)', lo + 360, hi);
      else if (hi > 180) add('(t.lng >= ? OR t.lng <= ?)', lo, hi - 360);
      else add('t.lng BETWEEN ? AND ?', lo, hi);
    }
    add('fsm_distance_m(t.lat, t.lng, ?, ?) <= ?', c.lat, c.lng, c.radius);
  }

  /** Dynamic list statements, prepared once per shape (values are always bound). */
  private query(sql: string): Statement {
    let s = this.queries.get(sql);
    if (!s) {
      if (this.queries.size >= 500) this.queries.clear();
      s = this.db.prepare(sql);
      this.queries.set(sql, s);
    }
    return s;
  }

  /** Checkpoint ids of many routes, in order (route/list). */
  checkpointIds(routeIds: number[]): Map<number, number[]> {
    const out = new Map<number, number[]>(routeIds.map((id) => [id, []]));
    if (!routeIds.length) return out;
    const rows = this.db.prepare(`SELECT id, route_id FROM tasks WHERE route_id IN (${routeIds.map(() => '?').join(',')}) ORDER BY route_id, ord, id`).all(...routeIds) as Array<{ id: number; route_id: number }>;
    for (const r of rows) out.get(r.route_id)!.push(r.id);
    return out;
  }

  /** Employees (id, tracker) among `ids` of the user, in the given order; `missing` lists ids not found. */
  employeeTrackers(userId: number, ids: number[]): { found: Array<{ id: number; tracker_id: number | null }>; missing: number[] } {
    const unique = [...new Set(ids)];
    const rows = this.db.prepare(`SELECT id, tracker_id FROM employees WHERE user_id = ? AND id IN (${unique.map(() => '?').join(',')})`).all(userId, ...unique) as Array<{ id: number; tracker_id: number | null }>;
    const byId = new Map(rows.map((r) => [r.id, r]));
    return { found: unique.filter((i) => byId.has(i)).map((i) => byId.get(i)!), missing: unique.filter((i) => !byId.has(i)) };
  }

  // --- For the telemetry core (the only writer of outcomes) and the delivery calls ---

  /** Tasks and checkpoints a tracker is working on: assigned, arrived or delayed, earliest first. */
  activeForTracker(trackerId: number): TaskRow[] {
    return this.activeStmt.all(trackerId);
  }
  /** Record an outcome decided by the telemetry core (status, arrival, stay, completion). */
  setOutcome(id: number, o: Outcome): boolean {
    return this.outcomeStmt.run({ id, status: o.status, at: o.at, arrival_date: o.arrival_date ?? null, stay_duration: o.stay_duration ?? null, completion_date: o.completion_date ?? null }).changes > 0;
  }
  /** Delivery search: tasks first, then checkpoints, started at or before `now`, status arrived, assigned or delayed. */
  findForDelivery(userId: number, externalId: string, now: number): TaskRow[] {
    return this.deliveryStmt.all(userId, externalId, now);
  }
}

/** The employee of a task is the one bound to its tracker (migration 004: at most one per tracker). */
function listFields(): FieldMap {
  const employee = '(SELECT e.id FROM employees e WHERE e.tracker_id = t.tracker_id AND e.user_id = t.user_id)';
  const fullName = "(SELECT TRIM(TRIM(e.first_name || ' ' || e.middle_name) || ' ' || e.last_name) FROM employees e WHERE e.tracker_id = t.tracker_id AND e.user_id = t.user_id)";
  return {
    id: { sql: 't.id', kind: 'number' },
    employee: { sql: employee, kind: 'number', nullable: true, sortSql: `COALESCE(${fullName}, ${TRACKER_LABEL}) COLLATE NOCASE` },
    status: { sql: 't.status', kind: 'string' },
    label: { sql: 't.label', kind: 'string', sortSql: 't.label COLLATE NOCASE' },
    location: { sql: 't.address', kind: 'string', sortSql: 't.address COLLATE NOCASE' },
    from: { sql: 't.from_time', kind: 'datetime' },
    to: { sql: 't.to_time', kind: 'datetime' },
    status_change_date: { sql: 't.status_change_date', kind: 'datetime' },
    arrival_date: { sql: 't.arrival_date', kind: 'datetime', nullable: true },
    stay_duration: { sql: 't.stay_duration', kind: 'number' },
    description: { sql: 't.description', kind: 'string', sortSql: 't.description COLLATE NOCASE' },
    external_id: { sql: 't.external_id', kind: 'string', nullable: true },
    // Forms are a later issue: the template id of the attached form; sorted by it until form labels exist.
    form: { sql: 't.form_template_id', kind: 'number', nullable: true },
  };
}

/** A custom task field as a condition field (FieldStore keeps values as text). */
export function customTaskField(type: string): { sql: string; kind: 'number' | 'string' | 'boolean'; nullable: true } {
  const v = FieldStore.valueSql('task', 't.id');
  if (type === 'number') return { sql: `CAST(${v} AS REAL)`, kind: 'number', nullable: true };
  if (type === 'boolean') return { sql: `(${v} = 'true')`, kind: 'boolean', nullable: true };
  if (type === 'responsible_employee') return { sql: `CAST(${v} AS INTEGER)`, kind: 'number', nullable: true };
  return { sql: v, kind: 'string', nullable: true };
}
