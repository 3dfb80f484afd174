/** Places (spec: Place): rows, their tags and custom field values, and the place/list query. */
import type { Condition, ContainsCondition } from '../core/conditions.ts';
import { invalidParams } from '../core/errors.ts';
import { compileConditions, JSON_LIST, type Compiled, type FieldMap, type FieldSpec } from './conditions.ts';
import type { Statement } from './sqlite.ts';
import type { DB } from './db.ts';
import { FieldStore, type FieldDef, type FieldValues } from './fields.ts';
import type { TagStore } from './tags.ts';
import { ftsPhrase, ID_MASK, like, LIKE, ownerRange, Search } from './text-search.ts';

export interface PlaceRow {
  id: number;
  user_id: number;
  label: string;
  description: string;
  lat: number;
  lng: number;
  address: string;
  radius: number;
  external_id: string | null;
  icon_id: number | null;
  avatar_file_name: string | null;
}

/** What create and update write (icon and avatar are set elsewhere: avatar/assign). */
export interface PlaceInput {
  label: string;
  description: string;
  lat: number;
  lng: number;
  address: string;
  radius: number;
  external_id: string | null;
}

/** Built-in condition and sort fields of place/list (constants of ours, never request text). */
export const PLACE_FIELDS: FieldMap = {
  id: { sql: 'p.id', kind: 'number' },
  label: { sql: 'p.label', kind: 'string', sortSql: 'p.label COLLATE NOCASE' },
  description: { sql: 'p.description', kind: 'string', sortSql: 'p.description COLLATE NOCASE' },
  location: { sql: 'p.address', kind: 'string', sortSql: 'p.address COLLATE NOCASE' },
  address: { sql: 'p.address', kind: 'string', sortSql: 'p.address COLLATE NOCASE' },
  external_id: { sql: 'p.external_id', kind: 'string', nullable: true },
  lat: { sql: 'p.lat', kind: 'number' },
  lng: { sql: 'p.lng', kind: 'number' },
  radius: { sql: 'p.radius', kind: 'number' },
};

/** A custom place field as a condition/sort field; its id is bound as the parameter of valueSql. */
export function placeCustomField(def: FieldDef): FieldSpec & { params: unknown[] } {
  const text = FieldStore.valueSql('place', 'p.id');
  if (def.type === 'number' || def.type === 'responsible_employee') return { sql: `CAST(${text} AS REAL)`, kind: 'number', params: [def.id] };
  if (def.type === 'boolean') return { sql: `(CASE ${text} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`, kind: 'boolean', params: [def.id] };
  return { sql: text, kind: 'string', params: [def.id] };
}

/** Condition fields of place/list whose top-level `contains` the full-text index answers, and their columns. */
export const PLACE_TEXT_COLUMNS = { label: 'label', description: 'description', location: 'address', address: 'address', external_id: 'external_id' } as const;
export type PlaceTextField = keyof typeof PLACE_TEXT_COLUMNS;

export interface PlaceQuery {
  ids?: number[];
  /** Places carrying every one of these tags (documented place/list tag_ids; issue 23). */
  tagIds?: number[];
  /** Text matched (case-insensitive, anywhere) against label, description, address, external_id and custom field values. */
  filter?: string;
  /** Checked conditions (src/core/conditions.ts); fields are PLACE_FIELDS or custom place field ids. */
  conditions?: Condition[];
  /** The user's time zone, for date/time values in conditions. */
  timeZone: string;
  /** A field of PLACE_FIELDS or a custom place field id (7 naming `order_by` otherwise). */
  orderBy: string;
  ascending: boolean;
  limit: number;
  offset: number;
}

/** place/list's query compiled: WHERE, full-text `contains` and ORDER BY. */
interface CompiledPlaceQuery {
  where: Compiled;
  /** Top-level `contains` conditions on built-in text fields, taken out of `where` (full-text searchable). */
  contains: Array<{ field: PlaceTextField; value: string }>;
  order: { sql: string; params: unknown[] };
}

/** Places whose custom field values contain the pattern (values of the owner's place fields). */
const FIELD_MATCH = `p.id IN (SELECT v.entity_id FROM entity_field_values v WHERE v.entity_type = 'place'
  AND v.field_id IN (SELECT f.id FROM entity_fields f WHERE f.user_id = ? AND f.entity_type = 'place') AND v.text ${LIKE})`;

export class PlaceStore {
  private getStmt;
  private countStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private markedUpdateStmt;
  private byExternalStmt;
  private fieldMatchStmt;
  /** Prepared list statements by shape (the SQL is made of our constants only). */
  private listCache = new Map<string, Statement<unknown[]>>();
  private orderPlans = new Map<string, boolean>();
  private listTx: (userId: number, q: PlaceQuery) => { rows: PlaceRow[]; count: number };

  constructor(
    private db: DB,
    private tags: TagStore,
    private fields: FieldStore,
  ) {
    this.getStmt = db.prepare<[number, number], PlaceRow>('SELECT * FROM places WHERE id = ? AND user_id = ?');
    this.countStmt = db.prepare<[number], number>('SELECT COALESCE(SUM(n), 0) FROM place_counts WHERE user_id = ?').pluck();
    this.insertStmt = db.prepare('INSERT INTO places (user_id, label, description, lat, lng, address, radius, external_id, upload_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    this.updateStmt = db.prepare('UPDATE places SET label = ?, description = ?, lat = ?, lng = ?, address = ?, radius = ?, external_id = ? WHERE id = ? AND user_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM places WHERE id = ? AND user_id = ?');
    this.markedUpdateStmt = db.prepare('UPDATE places SET label = ?, description = ?, lat = ?, lng = ?, address = ?, radius = ?, external_id = ?, upload_id = ? WHERE id = ? AND user_id = ?');
    this.byExternalStmt = db.prepare<[number, string], PlaceRow>('SELECT * FROM places WHERE user_id = ? AND external_id = ? ORDER BY id');
    this.fieldMatchStmt = db
      .prepare<[number, string], number>(
        `SELECT EXISTS (SELECT 1 FROM entity_field_values v WHERE v.entity_type = 'place'
          AND v.field_id IN (SELECT f.id FROM entity_fields f WHERE f.user_id = ? AND f.entity_type = 'place') AND v.text ${LIKE})`,
      )
      .pluck();
    this.listTx = db.transaction((userId: number, q: PlaceQuery) => this.listNow(userId, q));
  }

  get(userId: number, id: number): PlaceRow | undefined {
    return this.getStmt.get(id, userId);
  }
  count(userId: number): number {
    return this.countStmt.get(userId) as number;
  }
  /** The user's places with this external id, oldest first. */
  byExternalId(userId: number, externalId: string): PlaceRow[] {
    return this.byExternalStmt.all(userId, externalId);
  }

  /** Insert a place with its tags and fields; call inside `transaction` when batching. */
  insert(userId: number, p: PlaceInput, tags: number[] = [], fields?: FieldValues): number {
    const id = Number(this.insertStmt.run(userId, p.label, p.description, p.lat, p.lng, p.address, p.radius, p.external_id, null).lastInsertRowid);
    this.tags.setEntityTags('place', id, tags);
    if (fields) this.fields.save('place', id, fields);
    return id;
  }
  /** Insert places of an upload, shown only by its commit (src/store/uploads.ts); one transaction. */
  stage(uploadId: number, places: PlaceInput[]): number[] {
    return this.db.transaction(() => places.map((p) => Number(this.insertStmt.run(null, p.label, p.description, p.lat, p.lng, p.address, p.radius, p.external_id, uploadId).lastInsertRowid)))();
  }
  /**
   * Overwrite a place in an upload's last transaction (place/upload, duplicate_policy=update),
   * marked with the upload's id until `UploadStore.commit` (its search entry is rewritten there).
   */
  changeInUpload(uploadId: number, userId: number, id: number, p: PlaceInput): boolean {
    return this.markedUpdateStmt.run(p.label, p.description, p.lat, p.lng, p.address, p.radius, p.external_id, uploadId, id, userId).changes === 1;
  }
  create(userId: number, p: PlaceInput, tags: number[] = [], fields?: FieldValues): number {
    return this.db.transaction(() => this.insert(userId, p, tags, fields))();
  }

  /** Overwrite a place; `tags`/`fields` undefined keep the stored ones. False when not the user's. */
  change(userId: number, id: number, p: PlaceInput, tags?: number[], fields?: FieldValues): boolean {
    if (this.updateStmt.run(p.label, p.description, p.lat, p.lng, p.address, p.radius, p.external_id, id, userId).changes === 0) return false;
    if (tags) this.tags.setEntityTags('place', id, tags);
    if (fields) this.fields.save('place', id, fields);
    return true;
  }
  update(userId: number, id: number, p: PlaceInput, tags?: number[], fields?: FieldValues): boolean {
    return this.db.transaction(() => this.change(userId, id, p, tags, fields))();
  }

  delete(userId: number, id: number): boolean {
    return this.db.transaction(() => {
      if (this.deleteStmt.run(id, userId).changes === 0) return false;
      this.tags.clearEntityTags('place', id);
      this.fields.clear('place', id);
      return true;
    })();
  }

  /** Run `fn` in one write transaction (imports: all or nothing). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /**
   * One page of place/list and the total count, read in one snapshot: the count from place_counts, the
   * full-text index alone or COUNT over an index; the page in the sort order (docs/lists-performance.md).
   */
  list(userId: number, q: PlaceQuery): { rows: PlaceRow[]; count: number } {
    return this.listTx(userId, q);
  }

  /** Conditions and sort field -> SQL (7 naming the condition or `order_by` at fault). */
  private compile(userId: number, q: PlaceQuery): CompiledPlaceQuery {
    const custom = (fieldId: number) => {
      const def = this.fields.get(userId, fieldId);
      return def && def.entity_type === 'place' ? placeCustomField(def) : undefined;
    };
    const opts = { fields: PLACE_FIELDS, timeZone: q.timeZone, customField: custom };
    // All conditions are checked as given; top-level `contains` on built-in text fields are then
    // answered by the full-text index (the same rows as their LIKE), the rest as compiled SQL.
    let where = compileConditions(q.conditions, opts);
    const isText = (c: Condition): c is ContainsCondition & { field: PlaceTextField } => c.type === 'contains' && Object.hasOwn(PLACE_TEXT_COLUMNS, c.field);
    const contains = (q.conditions ?? []).filter(isText);
    if (contains.length) where = compileConditions(q.conditions!.filter((c) => !isText(c)), opts);
    const key = q.orderBy;
    const spec: (FieldSpec & { params?: unknown[] }) | undefined = Object.hasOwn(PLACE_FIELDS, key) ? PLACE_FIELDS[key] : /^\d{1,9}$/.test(key) ? custom(Number(key)) : undefined;
    if (!spec) throw invalidParams([{ parameter: 'order_by', error: `one of ${Object.keys(PLACE_FIELDS).join(', ')} or a custom place field id` }]);
    const dir = q.ascending ? 'ASC' : 'DESC';
    return { where, contains: contains.map((c) => ({ field: c.field, value: c.value })), order: { sql: `${spec.sortSql ?? spec.sql} ${dir}, p.id ${dir}`, params: spec.params ?? [] } };
  }

  private listNow(userId: number, query: PlaceQuery): { rows: PlaceRow[]; count: number } {
    const q = { ...query, ...this.compile(userId, query) };
    const [lo, hi] = ownerRange(userId);
    const s = new Search(lo, hi, 'p', 'places_fts');
    // The ids as one JSON array parameter (10,000 ids would pass SQLite's bound-variable limit).
    if (q.ids) s.add(q.ids.length ? `p.id IN ${JSON_LIST}` : '0', ...(q.ids.length ? [JSON.stringify(q.ids)] : []));
    if (q.filter) this.filterTerm(s, userId, q.filter);
    if (q.tagIds?.length) {
      const tags = [...new Set(q.tagIds)];
      s.add(`(SELECT COUNT(*) FROM entity_tags et WHERE et.entity_type = 'place' AND et.entity_id = p.id AND et.tag_id IN ${JSON_LIST}) = ?`, JSON.stringify(tags), tags.length);
    }
    if (q.where.sql !== '1=1') s.add(`(${q.where.sql})`, ...q.where.params);
    for (const c of q.contains) {
      const col = PLACE_TEXT_COLUMNS[c.field];
      s.text([col], `p.${col} ${LIKE}`, c.value, 1);
    }
    const base = ['p.user_id = ?'];
    let count: number;
    if (!s.terms.length && !s.textual) count = this.count(userId);
    else if (s.ftsOnly) count = this.statement('SELECT COUNT(*) FROM places_fts WHERE places_fts MATCH ? AND rowid BETWEEN ? AND ?').pluck().get(s.match, lo, hi) as number;
    else {
      const w = s.where(base, 'fts');
      count = this.statement(`SELECT COUNT(*) FROM places p WHERE ${w.sql}`).pluck().get(userId, ...w.params) as number;
    }
    if (q.offset >= count) return { rows: [], count };
    let w = s.where(base, 'scan');
    const page = () => `SELECT p.* FROM places p WHERE ${w.sql} ORDER BY ${q.order.sql} LIMIT ? OFFSET ?`;
    if (s.textual) {
      // As in task/list: LIKE on the rows read in the sort order when many match, else the full-text matches.
      const n = this.count(userId);
      const params = [userId, ...w.params, ...q.order.params, q.limit, q.offset];
      const visits = this.inOrder(page(), params) ? Math.min(n, ((q.offset + q.limit) * n) / count) : n;
      if (visits > 2 * count) w = s.where(base, 'fts');
    }
    const rows = this.statement(page()).all(userId, ...w.params, ...q.order.params, q.limit, q.offset) as PlaceRow[];
    return { rows, count };
  }

  /** The text `filter`: label, description, address, external_id and custom field values. */
  private filterTerm(s: Search, userId: number, filter: string): void {
    const p = like(filter);
    const scan = { sql: `(p.label ${LIKE} OR p.description ${LIKE} OR p.address ${LIKE} OR p.external_id ${LIKE} OR ${FIELD_MATCH})`, params: [p, p, p, p, userId, p] };
    const phrase = ftsPhrase(filter);
    if (phrase === undefined) return s.add(scan.sql, ...scan.params);
    // No custom value contains it: a plain full-text term (all columns of places_fts).
    if (this.fieldMatchStmt.get(userId, p) !== 1) return s.phrase(phrase, scan);
    s.mixed(
      { sql: `(p.id IN (SELECT rowid & ${ID_MASK} FROM places_fts WHERE places_fts MATCH ? AND rowid BETWEEN ? AND ?) OR ${FIELD_MATCH})`, params: [phrase, s.lo, s.hi, userId, p] },
      scan,
    );
  }

  /** Whether SQLite reads this statement in its ORDER BY (no sort of all matching rows); cached by SQL. */
  private inOrder(sql: string, params: unknown[]): boolean {
    let v = this.orderPlans.get(sql);
    if (v === undefined) {
      const plan = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
      v = !plan.some((r) => r.detail === 'USE TEMP B-TREE FOR ORDER BY');
      if (this.orderPlans.size >= 200) this.orderPlans.clear();
      this.orderPlans.set(sql, v);
    }
    return v;
  }

  private statement(sql: string) {
    let s = this.listCache.get(sql);
    if (!s) {
      if (this.listCache.size >= 200) this.listCache.delete(this.listCache.keys().next().value!);
      s = this.db.prepare<unknown[]>(sql);
      this.listCache.set(sql, s);
    }
    return s;
  }
}
