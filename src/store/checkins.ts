/**
 * Check-ins (migration 018; spec: Check-in, Check-ins base path /checkin; docs/checkins.md): the
 * rows the field app creates, and the checkin/list query with its condition and sort fields.
 * A list reads ids in the sort order (from an index where one fits), cut by LIMIT/OFFSET, then the
 * page's rows; the count is one COUNT over the same terms.
 */
import type { Statement } from './sqlite.ts';
import type { Condition, ContainsCondition, SortKey } from '../core/conditions.ts';
import { EARTH_RADIUS_M } from '../core/geo.ts';
import type { DB } from './db.ts';
import { compileConditions, compileSort, JSON_LIST, type FieldMap } from './conditions.ts';
import { LIKE, ownerRange, Search } from './text-search.ts';

export interface CheckinRow {
  id: number;
  user_id: number;
  tracker_id: number;
  employee_id: number | null;
  marker_time: number;
  lat: number;
  lng: number;
  address: string;
  precision: number | null;
  comment: string | null;
  form_id: number | null;
}

export type NewCheckin = Omit<CheckinRow, 'id'>;

export interface CheckinQuery {
  userId: number;
  trackers?: number[];
  from?: number;
  to?: number;
  conditions?: Condition[];
  timeZone: string;
  location?: { lat: number; lng: number; radius: number };
  sort?: SortKey[];
  offset?: number;
  limit?: number;
}

/** Condition and sort fields of checkin/list (spec: Check-in condition fields, sort fields). The
 * employee and form sorts go by the names a check-in keeps (migration 037), each with its index. */
export const CHECKIN_FIELDS: FieldMap = {
  employee: { sql: 'c.employee_id', kind: 'number', nullable: true, sortSql: 'c.employee_name COLLATE NOCASE' },
  tracker_id: { sql: 'c.tracker_id', kind: 'number' },
  marker_time: { sql: 'c.marker_time', kind: 'datetime' },
  location: { sql: 'c.address', kind: 'string', sortSql: 'c.address COLLATE NOCASE' },
  comment: { sql: 'c.comment', kind: 'string', nullable: true, sortSql: 'c.comment COLLATE NOCASE' },
  form: { sql: '(SELECT f.template_id FROM forms f WHERE f.id = c.form_id)', kind: 'number', nullable: true, sortSql: 'c.form_label COLLATE NOCASE' },
};

/** Condition fields whose top-level `contains` checkins_fts answers (migration 038), and their columns. */
const TEXT_COLUMNS = { location: 'address', comment: 'comment' } as const;
const FTS_COLUMNS = ['address', 'comment'] as const;

export class CheckinStore {
  private getStmt;
  private insertStmt;
  private ownedStmt;
  private deleteStmt;
  private checkinFormsStmt;
  private deleteFormStmt;
  private formLabelsStmt;
  private queries = new Map<string, Statement>();
  private listTx: (q: CheckinQuery) => { rows: CheckinRow[]; count: number };

  constructor(private db: DB) {
    this.getStmt = db.prepare<[number, number], CheckinRow>('SELECT * FROM checkins WHERE id = ? AND user_id = ?');
    this.insertStmt = db.prepare(`INSERT INTO checkins (user_id, tracker_id, employee_id, marker_time, lat, lng, address, precision, comment, form_id)
      VALUES (@user_id, @tracker_id, @employee_id, @marker_time, @lat, @lng, @address, @precision, @comment, @form_id)`);
    this.ownedStmt = db.prepare<[number, string], { id: number }>(`SELECT id FROM checkins WHERE user_id = ? AND id IN ${JSON_LIST}`);
    this.deleteStmt = db.prepare(`DELETE FROM checkins WHERE user_id = ? AND id IN ${JSON_LIST}`);
    this.checkinFormsStmt = db.prepare<[number, string], { form_id: number }>(`SELECT c.form_id FROM checkins c JOIN forms f ON f.id = c.form_id AND f.task_id IS NULL WHERE c.user_id = ? AND c.id IN ${JSON_LIST}`);
    this.deleteFormStmt = db.prepare('DELETE FROM forms WHERE id = ? AND task_id IS NULL');
    this.formLabelsStmt = db.prepare<[string], { id: number; label: string }>(`SELECT id, label FROM forms WHERE id IN ${JSON_LIST}`);
    this.listTx = db.transaction((q: CheckinQuery) => this.listNow(q));
  }

  get(userId: number, id: number): CheckinRow | undefined {
    return this.getStmt.get(id, userId);
  }

  /** A check-in and, in the same transaction, whatever `bind` does (binding its files); rolled back when it throws. */
  create(c: NewCheckin, bind: (id: number) => void = () => {}): number {
    return this.db.transaction(() => {
      const id = Number(this.insertStmt.run(c).lastInsertRowid);
      bind(id);
      return id;
    })();
  }

  /** Ids among `ids` that are not the user's check-ins. */
  missing(userId: number, ids: number[]): number[] {
    const found = new Set(this.ownedStmt.all(userId, JSON.stringify(ids)).map((r) => r.id));
    return [...new Set(ids)].filter((i) => !found.has(i));
  }

  /** Deletes the check-ins with their forms (a check-in's form lives only with it); their file rows go by cascade. */
  delete(userId: number, ids: number[]): void {
    const list = JSON.stringify(ids);
    this.db.transaction(() => {
      const forms = this.checkinFormsStmt.all(userId, list).map((r) => r.form_id);
      this.deleteStmt.run(userId, list);
      for (const f of forms) this.deleteFormStmt.run(f);
    })();
  }

  formLabels(formIds: number[]): Map<number, string> {
    if (!formIds.length) return new Map();
    return new Map(this.formLabelsStmt.all(JSON.stringify(formIds)).map((r) => [r.id, r.label]));
  }

  list(q: CheckinQuery): { rows: CheckinRow[]; count: number } {
    return this.listTx(q);
  }

  private listNow(q: CheckinQuery): { rows: CheckinRow[]; count: number } {
    const [lo, hi] = ownerRange(q.userId);
    const s = new Search(lo, hi, 'c', 'checkins_fts', FTS_COLUMNS);
    if (q.trackers) s.add(`c.tracker_id IN ${JSON_LIST}`, JSON.stringify(q.trackers));
    if (q.from !== undefined) s.add('c.marker_time >= ?', q.from);
    if (q.to !== undefined) s.add('c.marker_time <= ?', q.to);
    // Every condition is checked (7 naming the one at fault); top-level `contains` on location or
    // comment are then answered by the full-text index (the same rows as their LIKE).
    const opts = { fields: CHECKIN_FIELDS, timeZone: q.timeZone };
    let cond = compileConditions(q.conditions, opts);
    const isText = (c: Condition): c is ContainsCondition & { field: keyof typeof TEXT_COLUMNS } => c.type === 'contains' && Object.hasOwn(TEXT_COLUMNS, c.field);
    const contains = (q.conditions ?? []).filter(isText);
    if (contains.length) cond = compileConditions(q.conditions!.filter((c) => !isText(c)), opts);
    if (cond.sql !== '1=1') s.add(`(${cond.sql})`, ...cond.params);
    for (const c of contains) s.text([TEXT_COLUMNS[c.field]], `c.${TEXT_COLUMNS[c.field]} ${LIKE}`, c.value, 1);
    if (q.location) near(q.location, (sql, ...p) => s.add(sql, ...p));
    const base = ['c.user_id = ?'];
    const total = () => this.query('SELECT COALESCE(SUM(n), 0) FROM checkin_counts WHERE user_id = ?').pluck().get(q.userId) as number;
    let count: number;
    if (!s.textual && s.terms.length === (q.trackers ? 1 : 0)) {
      // Only the user and trackers: the per-tracker counts answer (checkin_counts, kept by triggers).
      count = q.trackers
        ? (this.query(`SELECT COALESCE(SUM(n), 0) FROM checkin_counts WHERE user_id = ? AND tracker_id IN ${JSON_LIST}`).pluck().get(q.userId, JSON.stringify(q.trackers)) as number)
        : total();
    } else if (s.ftsOnly) {
      count = this.query(s.countSql).pluck().get(s.match, lo, hi) as number;
    } else {
      const w = s.where(base, 'fts');
      count = this.query(`SELECT COUNT(*) FROM checkins c WHERE ${w.sql}`).pluck().get(q.userId, ...w.params) as number;
    }
    const orderBy = compileSort(q.sort, CHECKIN_FIELDS, 'c.id');
    const offset = q.offset ?? 0;
    if (q.limit === 0 || offset >= count) return { rows: [], count };
    let w = s.where(base, 'scan');
    if (s.textual) {
      // Walking the sort order and testing each row with LIKE reads about page end × rows / matches
      // rows; the full-text index reads the matches (then sorted): the cheaper of the two.
      const want = q.limit === undefined ? Infinity : offset + q.limit;
      const n = total();
      if (Math.min(n, (want * n) / count) > 2 * count) w = s.where(base, 'fts');
    }
    const paged = q.limit !== undefined || offset > 0;
    // Ids first, in the sort order, cut to the page; then the page's rows by id.
    const sql = paged
      ? `SELECT c.* FROM checkins c WHERE c.id IN (SELECT c.id FROM checkins c WHERE ${w.sql} ORDER BY ${orderBy} LIMIT ? OFFSET ?) ORDER BY ${orderBy}`
      : `SELECT c.* FROM checkins c WHERE ${w.sql} ORDER BY ${orderBy}`;
    const rows = this.query(sql).all(q.userId, ...w.params, ...(paged ? [q.limit ?? -1, offset] : [])) as CheckinRow[];
    return { rows, count };
  }

  private query(sql: string): Statement {
    let s = this.queries.get(sql);
    if (!s) {
      if (this.queries.size >= 200) this.queries.clear();
      s = this.db.prepare(sql);
      this.queries.set(sql, s);
    }
    return s;
  }
}

/** Within the circle: a bounding box on lat/lng, then the exact distance (fsm_distance_m, registered by the task store). */
function near(c: { lat: number; lng: number; radius: number }, add: (sql: string, ...params: unknown[]) => void): void {
  const dLat = (c.radius / EARTH_RADIUS_M) * (180 / Math.PI);
  const cos = Math.cos((c.lat * Math.PI) / 180);
  const dLng = cos < 1e-9 ? 360 : dLat / cos;
  add('c.lat BETWEEN ? AND ?', c.lat - dLat, c.lat + dLat);
  if (dLng < 180 && c.lat + dLat < 90 && c.lat - dLat > -90) {
    const lo = c.lng - dLng;
    const hi = c.lng + dLng;
    if (lo < -180) add('(c.lng >= ? OR c.lng <= ?)', lo + 360, hi);
    else if (hi > 180) add('(c.lng >= ? OR c.lng <= ?)', lo, hi - 360);
    else add('c.lng BETWEEN ? AND ?', lo, hi);
  }
  add('fsm_distance_m(c.lat, c.lng, ?, ?) <= ?', c.lat, c.lng, c.radius);
}
