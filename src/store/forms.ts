/**
 * Forms (migrations 018, 019; docs/forms.md): a copy of a template attached to a task (or made for
 * a check-in), its submitted values and submit location, and task/form/list's query.
 */
import type { Statement } from './sqlite.ts';
import type { DB } from './db.ts';
import type { FormTemplateRow } from './form-templates.ts';
import { geoAreaRows, type GeoSnapshot } from './geo.ts';
import { containsTerm } from './conditions.ts';
import { groupReads } from './name-groups.ts';

export interface FormRow {
  id: number;
  user_id: number;
  template_id: number | null;
  template_version: number;
  label: string;
  description: string;
  /** JSON array of field definitions, copied from the template. */
  fields: string;
  submit_in_zone: number;
  task_id: number | null;
  tracker_id: number | null;
  created: number;
  values_json: string | null;
  submitted: number | null;
  first_submitted: number | null;
  submit_origin: string | null;
  submit_lat: number | null;
  submit_lng: number | null;
  submit_address: string;
}

export interface Submission {
  values: string;
  time: number;
  lat: number;
  lng: number;
  address: string;
  trackerId: number | null;
  origin: 'employee' | 'supervisor';
}

export const FORM_ORDER_KEYS = [
  'task_id', 'created', 'submitted', 'task_address', 'submit_address', 'employee_full_name', 'vehicle_label', 'tracker_label',
  'task_label', 'task_creation_date', 'task_from', 'task_to', 'task_arrival_date', 'task_completion_date', 'form_label', 'form_description',
] as const;
export type FormOrderKey = (typeof FORM_ORDER_KEYS)[number];

export const FORM_TEXT_FILTERS = ['employee_full_name', 'form_description', 'form_label', 'submit_address', 'task_address', 'task_label', 'tracker_label', 'vehicle_label'] as const;
export type FormTextFilter = (typeof FORM_TEXT_FILTERS)[number];

export const FORM_PERIODS = ['submit_period', 'task_creation_period', 'task_from_period', 'task_to_period', 'task_arrival_period', 'task_completion_period'] as const;
export type FormPeriod = (typeof FORM_PERIODS)[number];

export interface FormListQuery {
  userId: number;
  templateId?: number;
  taskIds?: number[];
  orderBy: FormOrderKey;
  ascending: boolean;
  includeUnsubmitted: boolean;
  text: Partial<Record<FormTextFilter, string>>;
  taskId?: number;
  periods: Partial<Record<FormPeriod, { from: number; to: number }>>;
  offset?: number;
  limit?: number;
}

/** A task/form/list item's facts: the form, its task, the tracker and the employee bound to it. */
export interface FormListRow extends FormRow {
  t_label: string;
  t_from: number | null;
  t_to: number | null;
  t_creation: number;
  t_arrival: number | null;
  t_address: string;
  t_status: string;
  t_completion: number | null;
  t_stay: number;
  tr_id: number | null;
  tr_label: string | null;
  e_id: number | null;
  e_first: string | null;
  e_middle: string | null;
  e_last: string | null;
}

/** The tracker of a listed form: the one that submitted it, else the task's (kept in forms.tracker_id, migration 028). */
const TRACKER = 'f.tracker_id';
const employeeName = (tracker: string, user: string) => `(SELECT TRIM(TRIM(e.first_name || ' ' || e.middle_name) || ' ' || e.last_name) FROM employees e WHERE e.tracker_id = ${tracker} AND e.user_id = ${user})`;
const FULL_NAME = employeeName(TRACKER, 'f.user_id');
/** The employee names of trackers (a JSON list of ids) for a user: the groups of an employee order. */
const TRACKER_NAMES = `SELECT tr.value AS id, ${employeeName('tr.value', '?')} AS name FROM json_each(?) tr`;
const TRACKER_LABEL = `(SELECT tr.label FROM trackers tr WHERE tr.id = ${TRACKER})`;

/** Each order key and filter as SQL; `t`: it reads the task. Vehicles have no API yet: their label is null. */
const COLUMNS: Record<FormOrderKey, { sql: string; text?: boolean; t?: boolean }> = {
  task_id: { sql: 'f.task_id' },
  created: { sql: 'f.created' },
  submitted: { sql: 'f.submitted' },
  // The task's label and address as the form keeps them (migration 036): filtering reads no task.
  task_address: { sql: 'f.task_address', text: true },
  submit_address: { sql: 'f.submit_address', text: true },
  employee_full_name: { sql: FULL_NAME, text: true },
  vehicle_label: { sql: 'NULL', text: true },
  tracker_label: { sql: TRACKER_LABEL, text: true },
  task_label: { sql: 'f.task_label', text: true },
  task_creation_date: { sql: 't.creation_date', t: true },
  task_from: { sql: 't.from_time', t: true },
  task_to: { sql: 't.to_time', t: true },
  task_arrival_date: { sql: 't.arrival_date', t: true },
  task_completion_date: { sql: 't.completion_date', t: true },
  form_label: { sql: 'f.label', text: true },
  form_description: { sql: 'f.description', text: true },
};
const PERIOD_COLUMNS: Record<FormPeriod, FormOrderKey> = {
  submit_period: 'submitted',
  task_creation_period: 'task_creation_date',
  task_from_period: 'task_from',
  task_to_period: 'task_to',
  task_arrival_period: 'task_arrival_date',
  task_completion_period: 'task_completion_date',
};

/** Task order keys with an index over (user_id, key) for tasks (migration 006), as that index spells them. */
const TASK_ORDERED: Partial<Record<FormOrderKey, string>> = { task_label: 't.label COLLATE NOCASE', task_from: 't.from_time' };

export class FormStore {
  private getStmt;
  private byTaskStmt;
  private insertStmt;
  private deleteStmt;
  private submitStmt;
  private valuesStmt;
  private pageStmt;
  private queries = new Map<string, Statement>();
  private areasVersionStmt;
  private taskCountStmt;

  constructor(private db: DB) {
    this.areasVersionStmt = db.prepare("SELECT value FROM versions WHERE name = 'geo_areas'").pluck();
    // The user's tasks and checkpoints, from the counts kept by triggers (migration 010), not a scan.
    this.taskCountStmt = db.prepare<[number], number>('SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE user_id = ? AND route = 0').pluck();
    this.getStmt = db.prepare<[number, number], FormRow>('SELECT * FROM forms WHERE id = ? AND user_id = ?');
    this.byTaskStmt = db.prepare<[number], FormRow>('SELECT * FROM forms WHERE task_id = ?');
    this.insertStmt = db.prepare(`INSERT INTO forms (user_id, template_id, template_version, label, description, fields, submit_in_zone, task_id, tracker_id, created)
      VALUES (@user_id, @template_id, @template_version, @label, @description, @fields, @submit_in_zone, @task_id, @tracker_id, @created)`);
    this.deleteStmt = db.prepare('DELETE FROM forms WHERE id = ? AND user_id = ?');
    this.submitStmt = db.prepare(`UPDATE forms SET values_json = @values, submitted = @time, first_submitted = COALESCE(first_submitted, @time),
      submit_lat = @lat, submit_lng = @lng, submit_address = @address, tracker_id = COALESCE(@trackerId, tracker_id), submit_origin = @origin WHERE id = @id`);
    this.valuesStmt = db.prepare('UPDATE forms SET values_json = ? WHERE id = ?');
    this.pageStmt = db.prepare<[string], FormListRow>(`SELECT f.*, t.label AS t_label, t.from_time AS t_from, t.to_time AS t_to, t.creation_date AS t_creation,
        t.arrival_date AS t_arrival, t.address AS t_address, t.status AS t_status, t.completion_date AS t_completion, t.stay_duration AS t_stay,
        tr.id AS tr_id, tr.label AS tr_label, e.id AS e_id, e.first_name AS e_first, e.middle_name AS e_middle, e.last_name AS e_last
      FROM (SELECT CAST(key AS INTEGER) AS ord, value AS id FROM json_each(?)) page
      JOIN forms f ON f.id = page.id JOIN tasks t ON t.id = f.task_id
      LEFT JOIN trackers tr ON tr.id = ${TRACKER} LEFT JOIN employees e ON e.tracker_id = ${TRACKER} AND e.user_id = f.user_id
      ORDER BY page.ord`);
  }

  /** The version of zones and places alone (migration 019). */
  areasVersion(): number {
    return this.areasVersionStmt.get() as number;
  }
  /** The geofence rows of zones and places (no task zones), with their version, read together. */
  areaRows(): GeoSnapshot {
    return this.db.transaction(() => ({
      version: this.areasVersion(),
      ...geoAreaRows(this.db),
      tasks: [],
    }))();
  }

  /** Labels of the owner's zones and places by id. */
  geoLabels(userId: number, kind: 'zone' | 'place', ids: number[]): Map<number, string> {
    if (!ids.length) return new Map();
    const rows = this.query(geoLabelsSql(kind)).all(JSON.stringify(ids), userId) as Array<{ id: number; label: string }>;
    return new Map(rows.map((r) => [r.id, r.label]));
  }

  get(userId: number, id: number): FormRow | undefined {
    return this.getStmt.get(id, userId);
  }
  /** The form attached to a task (the caller owns the task). */
  ofTask(taskId: number): FormRow | undefined {
    return this.byTaskStmt.get(taskId);
  }
  /** A copy of the template; attached to `taskId` (null: a check-in's form). */
  create(userId: number, template: FormTemplateRow, taskId: number | null, trackerId: number | null, now: number): number {
    const r = this.insertStmt.run({
      user_id: userId,
      template_id: template.id,
      template_version: template.version,
      label: template.label,
      description: template.description,
      fields: template.fields,
      submit_in_zone: template.submit_in_zone,
      task_id: taskId,
      tracker_id: trackerId,
      created: now,
    });
    return Number(r.lastInsertRowid);
  }
  /** The form goes with its files (foreign key ON DELETE CASCADE). */
  delete(userId: number, id: number): boolean {
    return this.deleteStmt.run(id, userId).changes > 0;
  }
  submit(id: number, s: Submission): void {
    this.submitStmt.run({ id, ...s });
  }
  /** A supervisor's correction: the values only (submission time and place stay). */
  setValues(id: number, values: string): void {
    this.valuesStmt.run(values, id);
  }

  /** task/form/list: the page (form ids in order, then their rows with one join each) and the total. */
  list(q: FormListQuery): { rows: FormListRow[]; count: number } {
    return this.db.transaction(() => {
      const where: string[] = ['f.user_id = ?', 'f.task_id IS NOT NULL'];
      const params: unknown[] = [q.userId];
      let needsTask = false;
      if (q.templateId !== undefined) {
        where.push('f.template_id = ?');
        params.push(q.templateId);
      }
      if (q.taskIds) {
        where.push('f.task_id IN (SELECT value FROM json_each(?))');
        params.push(JSON.stringify(q.taskIds));
      }
      if (q.taskId !== undefined) {
        where.push('f.task_id = ?');
        params.push(q.taskId);
      }
      if (!q.includeUnsubmitted) where.push('f.submitted IS NOT NULL');
      for (const [k, v] of Object.entries(q.text) as Array<[FormTextFilter, string]>) {
        const c = COLUMNS[k];
        needsTask ||= !!c.t;
        const term = containsTerm(c.sql, v);
        where.push(term.sql);
        params.push(term.param);
      }
      for (const [k, p] of Object.entries(q.periods) as Array<[FormPeriod, { from: number; to: number }]>) {
        const c = COLUMNS[PERIOD_COLUMNS[k]];
        needsTask ||= !!c.t;
        where.push(`${c.sql} BETWEEN ? AND ?`);
        params.push(p.from, p.to);
      }
      const order = COLUMNS[q.orderBy];
      let from = needsTask || order.t ? 'forms f CROSS JOIN tasks t ON t.id = f.task_id' : 'forms f';
      const w = where.join(' AND ');
      const dir = q.ascending ? 'ASC' : 'DESC';
      let key = order.sql === 'NULL' ? '' : `${order.sql}${order.text ? ' COLLATE NOCASE' : ''} ${dir}, `;
      // Ties by task id under a task order in either plan below (a task has at most one form), so pages agree.
      let tail = TASK_ORDERED[q.orderBy] ? `f.task_id ${dir}` : `f.id ${dir}`;
      const offset = q.offset ?? 0;
      const limit = q.limit ?? -1;
      // A text filter (LIKE '%…%') can use no index: the count and the page would each test every
      // form of the selection. One pass gives both: the matches' ids in order, counted and sliced.
      if (Object.keys(q.text).length && q.orderBy !== 'employee_full_name') {
        const all = this.query(`SELECT f.id FROM ${from} WHERE ${w} ORDER BY ${key}${tail}`).pluck().all(...params) as number[];
        return { rows: this.rowsOf(limit >= 0 ? all.slice(offset, offset + limit) : all.slice(offset)), count: all.length };
      }
      const count = this.query(`SELECT COUNT(*) FROM ${needsTask ? from : 'forms f'} WHERE ${w}`).pluck().get(...params) as number;
      if (q.orderBy === 'employee_full_name' && limit >= 0) {
        return { rows: this.rowsOf(this.employeePage(q.userId, from, w, params, q.ascending, offset, limit)), count };
      }
      // Ordered by a task column the tasks index keeps in order (label, from): walking that index and
      // probing each task's form beats sorting every match, when matches are dense enough that the
      // page is reached after few tasks (expected tasks read: page end × tasks / matches).
      if (TASK_ORDERED[q.orderBy] && !q.taskIds && count > 0 && limit >= 0) {
        const tasks = this.taskCountStmt.get(q.userId) as number;
        if (((offset + limit) * tasks) / count < count) {
          from = 'tasks t CROSS JOIN forms f ON f.task_id = t.id';
          where.push('t.user_id = ?', "t.type <> 'route'");
          params.push(q.userId);
          key = `${TASK_ORDERED[q.orderBy]} ${dir}, `;
          tail = `t.id ${dir}`; // the index's own tie order, so the walk needs no sort
        }
      }
      const ids = this.query(`SELECT f.id FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${key}${tail} LIMIT ? OFFSET ?`)
        .pluck()
        .all(...params, limit, offset) as number[];
      return { rows: this.rowsOf(ids), count };
    })();
  }

  /** The page's rows with their task, tracker and employee, in the order of `ids`. */
  private rowsOf(ids: number[]): FormListRow[] {
    return ids.length ? this.pageStmt.all(JSON.stringify(ids)) : [];
  }

  /**
   * Ordered by employee name: the matches counted per tracker (index forms_list_tracker, migration
   * 035), the trackers put in their employees' name order, and only the trackers the page touches
   * read, each by form id (the ties' order) from that index: the same ids as ORDER BY the name looked
   * up for every match. Trackers whose employees' names are equal are read apart and merged by id.
   */
  private employeePage(userId: number, from: string, w: string, params: unknown[], ascending: boolean, offset: number, limit: number): number[] {
    const counts = this.query(`SELECT ${TRACKER} AS k, COUNT(*) AS n FROM ${from} WHERE ${w} GROUP BY ${TRACKER}`).all(...params) as Array<{ k: number | null; n: number }>;
    const trackers = counts.map((c) => c.k).filter((k): k is number => k !== null);
    const names = new Map((trackers.length ? (this.query(TRACKER_NAMES).all(userId, JSON.stringify(trackers)) as Array<{ id: number; name: string | null }>) : []).map((r) => [r.id, r.name]));
    const groups = counts.map((c) => ({ ...c, name: c.k === null ? null : (names.get(c.k) ?? null) }));
    const dir = ascending ? 'ASC' : 'DESC';
    const ofTracker = (k: number | null, take: number, skip: number) =>
      this.query(`SELECT f.id FROM ${from} WHERE ${w} AND ${TRACKER} ${k === null ? 'IS NULL' : '= ?'} ORDER BY f.id ${dir} LIMIT ? OFFSET ?`)
        .pluck()
        .all(...params, ...(k === null ? [] : [k]), take, skip) as number[];
    return groupReads(groups, !ascending, offset, limit).flatMap(({ keys, skip, take }) => {
      if (keys.length === 1) return ofTracker(keys[0], take, skip);
      const merged = keys.flatMap((k) => ofTracker(k, skip + take, 0)).sort((a, b) => (ascending ? a - b : b - a));
      return merged.slice(skip, skip + take);
    });
  }

  private query(sql: string): Statement {
    let s = this.queries.get(sql);
    if (!s) {
      if (this.queries.size > 500) this.queries.clear();
      this.queries.set(sql, (s = this.db.prepare(sql)));
    }
    return s;
  }
}

/** Labels of the owner's zones or places by id (submit_places). */
export function geoLabelsSql(kind: 'zone' | 'place'): string {
  return `SELECT id, label FROM ${kind === 'zone' ? 'zones' : 'places'} WHERE id IN (SELECT value FROM json_each(?)) AND user_id = ? ORDER BY id`;
}
