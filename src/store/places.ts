/** Places (spec: Place): rows, their tags and custom field values, and the place/list query. */
import type { Compiled, FieldMap, FieldSpec } from '../lists/conditions.ts';
import type { Statement } from 'better-sqlite3';
import type { DB } from './db.ts';
import { FieldStore, type FieldDef, type FieldValues } from './fields.ts';
import type { TagStore } from './tags.ts';

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

export interface PlaceQuery {
  ids?: number[];
  /** Text matched (case-insensitive, anywhere) against label, description, address, external_id and custom field values. */
  filter?: string;
  where: Compiled;
  /** ORDER BY terms built from PLACE_FIELDS / placeCustomField, with their parameters. */
  order: { sql: string; params: unknown[] };
  limit: number;
  offset: number;
}

const like = (s: string) => `%${s.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

export class PlaceStore {
  private getStmt;
  private countStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private byExternalStmt;
  /** Prepared list statements by shape (the SQL is made of our constants only). */
  private listCache = new Map<string, Statement<unknown[]>>();

  constructor(
    private db: DB,
    private tags: TagStore,
    private fields: FieldStore,
  ) {
    this.getStmt = db.prepare<[number, number], PlaceRow>('SELECT * FROM places WHERE id = ? AND user_id = ?');
    this.countStmt = db.prepare<[number], number>('SELECT COUNT(*) FROM places WHERE user_id = ?').pluck();
    this.insertStmt = db.prepare('INSERT INTO places (user_id, label, description, lat, lng, address, radius, external_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.updateStmt = db.prepare('UPDATE places SET label = ?, description = ?, lat = ?, lng = ?, address = ?, radius = ?, external_id = ? WHERE id = ? AND user_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM places WHERE id = ? AND user_id = ?');
    this.byExternalStmt = db.prepare<[number, string], PlaceRow>('SELECT * FROM places WHERE user_id = ? AND external_id = ? ORDER BY id');
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
    const id = Number(this.insertStmt.run(userId, p.label, p.description, p.lat, p.lng, p.address, p.radius, p.external_id).lastInsertRowid);
    this.tags.setEntityTags('place', id, tags);
    if (fields) this.fields.save('place', id, fields);
    return id;
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

  /** One page of place/list and the total count, in two statements. */
  list(userId: number, q: PlaceQuery): { rows: PlaceRow[]; count: number } {
    const where = ['p.user_id = ?'];
    const params: unknown[] = [userId];
    if (q.ids) {
      where.push(q.ids.length ? `p.id IN (${q.ids.map(() => '?').join(',')})` : '0');
      params.push(...q.ids);
    }
    if (q.filter) {
      where.push(
        "(p.label LIKE ? ESCAPE '\\' OR p.description LIKE ? ESCAPE '\\' OR p.address LIKE ? ESCAPE '\\' OR p.external_id LIKE ? ESCAPE '\\'" +
          " OR EXISTS (SELECT 1 FROM entity_field_values v WHERE v.entity_type = 'place' AND v.entity_id = p.id AND v.text LIKE ? ESCAPE '\\'))",
      );
      params.push(...Array(5).fill(like(q.filter)));
    }
    where.push(`(${q.where.sql})`);
    params.push(...q.where.params);
    const from = `FROM places p WHERE ${where.join(' AND ')}`;
    const count = this.statement(`SELECT COUNT(*) ${from}`).pluck().get(...params) as number;
    const rows = this.statement(`SELECT p.* ${from} ORDER BY ${q.order.sql} LIMIT ? OFFSET ?`).all(...params, ...q.order.params, q.limit, q.offset) as PlaceRow[];
    return { rows, count };
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
