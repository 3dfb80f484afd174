/**
 * Tasks, routes and checkpoints (migration 006; docs/tasks-api.md): one table, one id space.
 * Status, arrival_date, stay_duration and completion_date move only through `setOutcome`, which
 * belongs to the telemetry core; the API sets status only by assignment (unassigned/assigned).
 */
import type { Statement } from './sqlite.ts';
import type { DB } from './db.ts';
import { FieldStore, type FieldValues } from './fields.ts';
import type { TagStore } from './tags.ts';
import type { Condition, ContainsCondition, SortKey } from '../core/conditions.ts';
import { compileConditions, compileSort, JSON_LIST, type CompileOptions, type FieldMap } from './conditions.ts';
import { distanceM, EARTH_RADIUS_M } from '../core/geo.ts';
import { asciiLower, ftsPhrase, ID_MASK, like, LIKE, ownerRange, Search } from './text-search.ts';

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

/** Filters of task/list and task/route/list: values and field names; the SQL is made here and in ./conditions.ts. */
export interface TaskQuery {
  userId: number;
  routes: boolean;
  externalId?: string | null;
  statuses?: string[];
  trackers?: number[];
  from?: number;
  to?: number;
  /** Checked conditions (src/core/conditions.ts) over the list fields or custom task field ids. */
  conditions?: Condition[];
  /** The user's time zone, for date/time values in conditions. */
  timeZone?: string;
  filter?: string;
  filters?: string[];
  tagIds?: number[];
  location?: { lat: number; lng: number; radius: number };
  /** Sort keys over the list fields (7 naming `sort.<i>` for others); id last. */
  sort?: SortKey[];
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

// Geodesy lives once, in src/core/geo.ts.
const EARTH_M = EARTH_RADIUS_M;
const rad = (d: number) => (d * Math.PI) / 180;
export { distanceM };

const TRACKER_LABEL = '(SELECT tr.label FROM trackers tr WHERE tr.id = t.tracker_id)';

/** Condition fields of task/list whose top-level `contains` the full-text index answers, and their columns. */
export const TASK_TEXT_COLUMNS = { label: 'label', description: 'description', location: 'address', external_id: 'external_id' } as const;
export type TaskTextField = keyof typeof TASK_TEXT_COLUMNS;

export class TaskStore {
  /** Condition and sort fields of task/list (spec: Task list condition / sort fields), over alias t. */
  private readonly listFields: FieldMap;
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
  private longestStmt;
  private filterOthersStmt;
  private trackerRowsStmt;
  private queries = new Map<string, Statement>();
  private orderPlans = new Map<string, boolean>();
  private listTx: (q: TaskQuery) => { rows: TaskRow[]; count: number };

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
    this.countStmt = db.prepare<[number], number>('SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE user_id = ? AND route = 0').pluck();
    this.longestStmt = db.prepare<[number], number | null>("SELECT MAX(to_time - from_time) FROM tasks WHERE user_id = ? AND type <> 'route'").pluck();
    this.filterOthersStmt = db
      .prepare<[number, string, number, string], number>(
        `SELECT EXISTS (SELECT 1 FROM trackers tr WHERE tr.user_id = ? AND tr.label ${LIKE})
          OR EXISTS (SELECT 1 FROM entity_field_values v WHERE v.entity_type = 'task'
            AND v.field_id IN (SELECT f.id FROM entity_fields f WHERE f.user_id = ? AND f.entity_type = 'task') AND v.text ${LIKE})`,
      )
      .pluck();
    this.externalCountStmt = db.prepare<[number, string], number>("SELECT COUNT(*) FROM tasks WHERE user_id = ? AND external_id = ?").pluck();
    this.activeStmt = db.prepare<[number], TaskRow>(
      "SELECT * FROM tasks WHERE tracker_id = ? AND type <> 'route' AND status IN ('assigned', 'arrived', 'delayed') ORDER BY from_time, id",
    );
    this.outcomeStmt = db.prepare(`UPDATE tasks SET status_change_date = CASE WHEN status = @status THEN status_change_date ELSE @at END,
      status = @status, arrival_date = COALESCE(@arrival_date, arrival_date), stay_duration = COALESCE(@stay_duration, stay_duration),
      completion_date = COALESCE(@completion_date, completion_date) WHERE id = @id`);
    this.deliveryStmt = db.prepare<[number, string, number], TaskRow>(`SELECT * FROM tasks WHERE user_id = ? AND external_id = ? AND type <> 'route'
      AND from_time <= ? AND status IN ('arrived', 'assigned', 'delayed') ORDER BY CASE type WHEN 'task' THEN 0 ELSE 1 END, from_time, id`);
    this.trackerRowsStmt = db
      .prepare<[number, number, number, string], number>(
        `SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE user_id = ? AND route = ?
          AND tracker_id IN (SELECT tr.id FROM trackers tr WHERE tr.user_id = ? AND tr.label ${LIKE})`,
      )
      .pluck();
    this.listFields = listFields();
    this.listTx = db.transaction((q: TaskQuery) => this.listNow(q));
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

  /**
   * A route's checkpoints become `items`, in that order (task/route/update with `checkpoints`): an item
   * with `row` updates that checkpoint, one without is a new checkpoint following the route's
   * assignment, and checkpoints not among the items are deleted. Answers the ids in order.
   */
  replaceCheckpoints(route: TaskRow, items: Array<{ row?: TaskRow; draft: TaskDraft }>, now: number): number[] {
    return this.db.transaction(() => {
      const kept = new Set(items.flatMap((i) => (i.row ? [i.row.id] : [])));
      for (const c of this.checkpoints(route.id)) if (!kept.has(c.id)) this.deleteStmt.run(c.id, c.user_id);
      const ids = items.map((item, ord) => {
        if (!item.row) return this.insert(route.user_id, 'checkpoint', item.draft, { trackerId: route.tracker_id, status: route.status, origin: route.origin, now, routeId: route.id, ord });
        const { tags, fields, ...cols } = item.draft;
        this.updateStmt.run({ ...cols, id: item.row.id, user_id: item.row.user_id });
        if (tags) this.tags.setEntityTags('task', item.row.id, tags);
        if (fields) this.fields.save('task', item.row.id, fields);
        this.renumberStmt.run(ord, item.row.id);
        return item.row.id;
      });
      this.spanStmt.run({ id: route.id });
      return ids;
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

  /**
   * One page of task/list (or task/route/list) and the total count, read in one snapshot. The count
   * comes from the cheapest exact source (task_counts, the full-text index alone, or COUNT over an
   * index); the page is read in the sort order and cut by LIMIT/OFFSET in SQL (docs/lists-performance.md).
   */
  list(q: TaskQuery): { rows: TaskRow[]; count: number } {
    return this.listTx(q);
  }

  /**
   * Conditions -> SQL over the list fields and the owner's custom task fields (7 naming the
   * condition at fault). Top-level `contains` on built-in text fields are checked with the rest,
   * then taken out to be answered by the full-text index (the same rows as their LIKE).
   */
  private compileConditions(q: TaskQuery): { conditions: { sql: string; params: unknown[] }; contains: Array<{ field: TaskTextField; value: string }> } {
    const opts: CompileOptions = {
      fields: this.listFields,
      timeZone: q.timeZone ?? 'UTC',
      customField: (fid) => {
        const def = this.fields.get(q.userId, fid);
        return def?.entity_type === 'task' ? { ...customTaskField(def.type), params: [fid] } : undefined;
      },
    };
    let conditions = compileConditions(q.conditions, opts);
    const isText = (c: Condition): c is ContainsCondition & { field: TaskTextField } => c.type === 'contains' && Object.hasOwn(TASK_TEXT_COLUMNS, c.field);
    const contains = (q.conditions ?? []).filter(isText);
    if (contains.length) conditions = compileConditions(q.conditions!.filter((c) => !isText(c)), opts);
    return { conditions, contains: contains.map((c) => ({ field: c.field, value: c.value })) };
  }

  private listNow(query: TaskQuery): { rows: TaskRow[]; count: number } {
    const { conditions, contains } = this.compileConditions(query);
    const q = { ...query, conditions, contains, orderBy: compileSort(query.sort, this.listFields, 't.id') };
    const key = q.userId * 2 + (q.routes ? 1 : 0);
    const [lo, hi] = ownerRange(key);
    const s = new Search(lo, hi, 't', 'tasks_fts');
    // task_counts answers a count filtered by statuses and trackers only.
    let counted = true;
    const countTerms: string[] = [];
    const countParams: unknown[] = [];
    let drive: { from: string; params: unknown[] } = { from: 'tasks t', params: [] };
    if (q.externalId !== undefined && q.externalId !== null) s.add('t.external_id = ?', q.externalId);
    // Lists of values go to SQLite as one JSON array parameter each, however long (issue 10).
    if (q.statuses) {
      const list = JSON.stringify(q.statuses);
      s.add(`t.status IN ${JSON_LIST}`, list);
      countTerms.push(`status IN ${JSON_LIST}`);
      countParams.push(list);
    }
    if (q.trackers) {
      const list = JSON.stringify(q.trackers);
      // The listed trackers drive the query: each one's tasks looked up by (user_id, tracker_id), then
      // sorted. SQLite assumes 25 rows for a JSON list and would otherwise rather walk the owner's rows
      // in a sort index, which reads them all when the listed trackers have few tasks (bench/lists).
      drive = { from: '(SELECT DISTINCT value FROM json_each(?)) tl CROSS JOIN tasks t', params: [list] };
      s.add('t.tracker_id = tl.value');
      // tracker_id 0 stands for "none" in task_counts: only real ids (all positive) are looked up there.
      if (q.trackers.every((id) => Number.isInteger(id) && id > 0)) {
        countTerms.push(`tracker_id IN ${JSON_LIST}`);
        countParams.push(list);
      } else counted = false;
    }
    // Actual after `from` / before `to`: the task window [from, to] overlaps the asked one.
    if (q.from !== undefined) {
      s.add('t.to_time >= ?', q.from);
      // No window of the owner is longer than `span`, so it starts at or after from - span: a range
      // of the from_time index rather than everything before `to` (the same rows, fewer visited).
      const span = q.routes ? null : this.longestStmt.get(q.userId);
      if (span !== null && span !== undefined) s.add('t.from_time >= ?', q.from - span);
    }
    if (q.to !== undefined) s.add('t.from_time <= ?', q.to);
    if (q.conditions && q.conditions.sql !== '1=1') s.add(`(${q.conditions.sql})`, ...q.conditions.params);
    if (q.filter) this.filterTerm(s, q.userId, q.routes, q.filter);
    for (const f of q.filters ?? []) s.text(['label', 'description', 'address'], `(t.label ${LIKE} OR t.description ${LIKE} OR t.address ${LIKE})`, f, 3);
    for (const c of q.contains ?? []) {
      const col = TASK_TEXT_COLUMNS[c.field];
      s.text([col], `t.${col} ${LIKE}`, c.value, 1);
    }
    if (q.tagIds?.length) s.add(`EXISTS (SELECT 1 FROM entity_tags et WHERE et.entity_type = 'task' AND et.entity_id = t.id AND et.tag_id IN ${JSON_LIST})`, JSON.stringify(q.tagIds));
    if (q.location) this.near(q.location, (sql, ...p) => s.add(sql, ...p));

    const base = ['t.user_id = ?', q.routes ? "t.type = 'route'" : "t.type <> 'route'"];
    const total = () => this.query(`SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE user_id = ? AND route = ?`).pluck().get(q.userId, q.routes ? 1 : 0) as number;
    let count: number;
    if (counted && !s.textual && s.terms.length === countTerms.length) {
      const where = ['user_id = ?', 'route = ?', ...countTerms].join(' AND ');
      count = this.query(`SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE ${where}`).pluck().get(q.userId, q.routes ? 1 : 0, ...countParams) as number;
    } else if (s.ftsOnly) {
      count = this.query(`SELECT COUNT(*) FROM tasks_fts WHERE tasks_fts MATCH ? AND rowid BETWEEN ? AND ?`).pluck().get(s.match, lo, hi) as number;
    } else {
      const w = s.where(base, 'fts');
      count = this.query(`SELECT COUNT(*) FROM ${drive.from} WHERE ${w.sql}`).pluck().get(...drive.params, q.userId, ...w.params) as number;
    }

    const offset = q.offset ?? 0;
    if (q.limit === 0 || offset >= count) return { rows: [], count };
    const paged = q.limit !== undefined || offset > 0;
    const pageParams = paged ? [q.limit ?? -1, offset] : [];
    let w = s.where(base, 'scan');
    if (s.textual) {
      // Text terms read either way: in the sort order checking each row with LIKE (good when many
      // rows match), or the matching rows from the full-text index, then sorted (good when few do).
      const inner = `SELECT t.id FROM ${drive.from} WHERE ${w.sql} ORDER BY ${q.orderBy} LIMIT ? OFFSET ?`;
      const n = total();
      const want = q.limit === undefined ? Infinity : offset + q.limit;
      const visits = this.inOrder(inner, [...drive.params, q.userId, ...w.params, q.limit ?? -1, offset]) ? Math.min(n, (want * n) / count) : n;
      if (visits > 2 * count) w = s.where(base, 'fts');
    }
    // Page over ids first (from an index, in the sort order), then read the page's rows: skipped rows
    // are never read from the table.
    const sql = paged
      ? `SELECT t.* FROM tasks t WHERE t.id IN (SELECT t.id FROM ${drive.from} WHERE ${w.sql} ORDER BY ${q.orderBy} LIMIT ? OFFSET ?) ORDER BY ${q.orderBy}`
      : `SELECT t.* FROM ${drive.from} WHERE ${w.sql} ORDER BY ${q.orderBy}`;
    const rows = this.query(sql).all(...drive.params, q.userId, ...w.params, ...pageParams) as TaskRow[];
    return { rows, count };
  }

  /**
   * The text `filter`: label, description, address, external_id, status, id, the tracker's label and
   * custom field values. When only the text columns can match (no status, tracker label or custom
   * value contains it, and it is not an id), it is a plain full-text term.
   */
  private filterTerm(s: Search, userId: number, routes: boolean, filter: string): void {
    const p = like(filter);
    const trackers = `t.tracker_id IN (SELECT tr.id FROM trackers tr WHERE tr.user_id = ? AND tr.label ${LIKE})`;
    const fields = `t.id IN (SELECT v.entity_id FROM entity_field_values v WHERE v.entity_type = 'task'
      AND v.field_id IN (SELECT f.id FROM entity_fields f WHERE f.user_id = ? AND f.entity_type = 'task') AND v.text ${LIKE})`;
    const id = /^\d{1,15}$/.test(filter) ? Number(filter) : null;
    const scan = {
      sql: `(t.label ${LIKE} OR t.description ${LIKE} OR t.address ${LIKE} OR t.external_id ${LIKE} OR t.status ${LIKE} OR t.id = ? OR ${trackers} OR ${fields})`,
      params: [p, p, p, p, p, id, userId, p, userId, p],
    };
    const phrase = ftsPhrase(filter);
    if (phrase === undefined) return s.add(scan.sql, ...scan.params);
    // Statuses are lower-case ASCII: `status LIKE %filter%` is a substring test of the folded filter.
    const statuses = TASK_STATUSES.filter((st) => st.includes(asciiLower(filter)));
    const others = this.filterOthersStmt.get(userId, p, userId, p) === 1;
    if (!statuses.length && id === null && !others) return s.phrase(phrase, scan);
    // Otherwise the ids of each part, each found by an index, united (the rows are then read by id);
    // but when statuses or tracker labels alone take a large share of the owner's rows, a pass over
    // the owner's rows testing each part is cheaper.
    const route = routes ? 1 : 0;
    const list = statuses.map(() => '?').join(', ');
    let many = statuses.length ? (this.query(`SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE user_id = ? AND route = ? AND status IN (${list})`).pluck().get(userId, route, ...statuses) as number) : 0;
    if (others) many += this.trackerRowsStmt.get(userId, route, userId, p)!;
    const fts = `SELECT rowid & ${ID_MASK} FROM tasks_fts WHERE tasks_fts MATCH ? AND rowid BETWEEN ? AND ?`;
    if (many * 4 > (this.query('SELECT COALESCE(SUM(n), 0) FROM task_counts WHERE user_id = ? AND route = ?').pluck().get(userId, route) as number)) {
      const alt = [`t.id IN (${fts})`, ...(statuses.length ? [`t.status IN (${list})`] : []), ...(id !== null ? ['t.id = ?'] : []), trackers, fields];
      const params = [phrase, s.lo, s.hi, ...statuses, ...(id !== null ? [id] : []), userId, p, userId, p];
      return s.mixed({ sql: `(${alt.join(' OR ')})`, params }, scan);
    }
    const own = `user_id = ? AND type ${routes ? "= 'route'" : "<> 'route'"}`;
    const arms = [fts];
    const armParams: unknown[] = [phrase, s.lo, s.hi];
    if (statuses.length) {
      arms.push(`SELECT id FROM tasks WHERE ${own} AND status IN (${list})`);
      armParams.push(userId, ...statuses);
    }
    if (id !== null) {
      arms.push('SELECT ?');
      armParams.push(id);
    }
    if (others) {
      arms.push(`SELECT id FROM tasks WHERE ${own} AND tracker_id IN (SELECT tr.id FROM trackers tr WHERE tr.user_id = ? AND tr.label ${LIKE})`);
      arms.push(`SELECT v.entity_id FROM entity_field_values v WHERE v.entity_type = 'task'
        AND v.field_id IN (SELECT f.id FROM entity_fields f WHERE f.user_id = ? AND f.entity_type = 'task') AND v.text ${LIKE}`);
      armParams.push(userId, userId, p, userId, p);
    }
    s.mixed({ sql: `t.id IN (${arms.join(' UNION ALL ')})`, params: armParams }, scan);
  }

  /** Whether SQLite reads this statement in its ORDER BY (no sort of all matching rows); cached by SQL. */
  private inOrder(sql: string, params: unknown[]): boolean {
    let v = this.orderPlans.get(sql);
    if (v === undefined) {
      const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
      v = !plan.some((r) => r.detail === 'USE TEMP B-TREE FOR ORDER BY');
      if (this.orderPlans.size >= 500) this.orderPlans.clear();
      this.orderPlans.set(sql, v);
    }
    return v;
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
    const rows = this.query(`SELECT id, route_id FROM tasks WHERE route_id IN ${JSON_LIST} ORDER BY route_id, ord, id`).all(JSON.stringify(routeIds)) as Array<{ id: number; route_id: number }>;
    for (const r of rows) out.get(r.route_id)!.push(r.id);
    return out;
  }

  /** Employees (id, tracker) among `ids` of the user, in the given order; `missing` lists ids not found. */
  employeeTrackers(userId: number, ids: number[]): { found: Array<{ id: number; tracker_id: number | null }>; missing: number[] } {
    const unique = [...new Set(ids)];
    const rows = this.query(`SELECT id, tracker_id FROM employees WHERE user_id = ? AND id IN ${JSON_LIST}`).all(userId, JSON.stringify(unique)) as Array<{ id: number; tracker_id: number | null }>;
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
    // The template id of the attached form (null: none, or its template was deleted); sorted by the form's label (spec).
    form: { sql: '(SELECT fm.template_id FROM forms fm WHERE fm.task_id = t.id)', kind: 'number', nullable: true, sortSql: '(SELECT fm.label FROM forms fm WHERE fm.task_id = t.id) COLLATE NOCASE' },
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
