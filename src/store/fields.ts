/**
 * Custom fields ("entity fields"): a user's field definitions per entity type, and the values an
 * entity carries as `fields: {"<field id>": {type, value}}`. Values are kept in one table so the
 * list calls can filter and sort on them by field id.
 */
import type { DB } from './db.ts';

export const FIELD_ENTITY_TYPES = ['place', 'task', 'employee'] as const;
export type FieldEntity = (typeof FIELD_ENTITY_TYPES)[number];
export const FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'responsible_employee'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface FieldDef {
  id: number;
  user_id: number;
  entity_type: FieldEntity;
  label: string;
  type: FieldType;
  required: number;
  ordinal: number;
}

export type FieldValues = Record<string, { type: string; value: unknown }>;

export class FieldStore {
  private listStmt;
  private getStmt;
  private insertStmt;
  private deleteStmt;
  private clearStmt;
  private putStmt;
  private employeeStmt;
  private loadStmt;

  constructor(private db: DB) {
    this.loadStmt = db.prepare<[string, string], { entity_id: number; field_id: number; value: string; type: string }>(
      `SELECT v.entity_id, v.field_id, v.value, f.type FROM entity_field_values v JOIN entity_fields f ON f.id = v.field_id
        WHERE v.entity_type = ? AND v.entity_id IN (SELECT value FROM json_each(?))`,
    );
    this.employeeStmt = db.prepare<[number, number], number>('SELECT 1 FROM employees WHERE id = ? AND user_id = ?').pluck();
    this.listStmt = db.prepare<[number, string], FieldDef>('SELECT * FROM entity_fields WHERE user_id = ? AND entity_type = ? ORDER BY ordinal, id');
    this.getStmt = db.prepare<[number, number], FieldDef>('SELECT * FROM entity_fields WHERE id = ? AND user_id = ?');
    this.insertStmt = db.prepare('INSERT INTO entity_fields (user_id, entity_type, label, type, required, ordinal) VALUES (?, ?, ?, ?, ?, ?)');
    this.deleteStmt = db.prepare('DELETE FROM entity_fields WHERE id = ? AND user_id = ?');
    this.clearStmt = db.prepare('DELETE FROM entity_field_values WHERE entity_type = ? AND entity_id = ?');
    this.putStmt = db.prepare('INSERT INTO entity_field_values (entity_type, entity_id, field_id, value, text) VALUES (?, ?, ?, ?, ?)');
  }

  list(userId: number, type: FieldEntity): FieldDef[] {
    return this.listStmt.all(userId, type);
  }
  get(userId: number, id: number): FieldDef | undefined {
    return this.getStmt.get(id, userId);
  }
  create(userId: number, f: { entity_type: FieldEntity; label: string; type: FieldType; required: boolean; ordinal: number }): number {
    return Number(this.insertStmt.run(userId, f.entity_type, f.label, f.type, f.required ? 1 : 0, f.ordinal).lastInsertRowid);
  }
  delete(userId: number, id: number): boolean {
    return this.deleteStmt.run(id, userId).changes > 0;
  }

  /**
   * Problems of a `fields` map against the user's definitions for the entity type, as
   * `{parameter, error}` (empty when valid). `requireAll` also reports required fields that are missing.
   */
  validate(userId: number, type: FieldEntity, fields: FieldValues | undefined, opts: { requireAll: boolean; parameter?: string }): Array<{ parameter: string; error: string }> {
    return fieldProblems(type, this.list(userId, type), fields, opts, (id) => !!this.employeeStmt.get(id, userId));
  }

  /** Replace the values of an entity (call inside the entity's write transaction, after validate). */
  save(type: FieldEntity, entityId: number, fields: FieldValues | undefined): void {
    this.clearStmt.run(type, entityId);
    for (const [key, v] of Object.entries(fields ?? {})) {
      if (v.value === null || v.value === undefined) continue;
      this.putStmt.run(type, entityId, Number(key), JSON.stringify(v.value), typeof v.value === 'string' ? v.value : JSON.stringify(v.value));
    }
  }
  clear(type: FieldEntity, entityId: number): void {
    this.clearStmt.run(type, entityId);
  }

  /** Values of many entities, as the API's `fields` maps. */
  load(type: FieldEntity, entityIds: number[]): Map<number, FieldValues> {
    const out = new Map<number, FieldValues>();
    for (const id of entityIds) out.set(id, {});
    if (!entityIds.length) return out;
    // The ids as one JSON array parameter, however many (no placeholder per id).
    const rows = this.loadStmt.all(type, JSON.stringify(entityIds));
    for (const r of rows) out.get(r.entity_id)![String(r.field_id)] = { type: r.type, value: JSON.parse(r.value) };
    return out;
  }

  /** SQL to read a custom field's value of an entity in a list query (for conditions and sort). */
  static valueSql(type: FieldEntity, idSql: string): string {
    return `(SELECT text FROM entity_field_values WHERE entity_type = '${type}' AND entity_id = ${idSql} AND field_id = ?)`;
  }
}

/**
 * `FieldStore.validate` over the user's definitions of the entity type (every engine's): the
 * problems as `{parameter, error}`. `isEmployee(id)`: whether the id is one of the user's employees.
 */
export function fieldProblems(
  type: FieldEntity,
  list: FieldDef[],
  fields: FieldValues | undefined,
  opts: { requireAll: boolean; parameter?: string },
  isEmployee: (id: number) => boolean,
): Array<{ parameter: string; error: string }> {
  const parameter = opts.parameter ?? 'fields';
  const defs = new Map(list.map((d) => [String(d.id), d]));
  const errors: Array<{ parameter: string; error: string }> = [];
  for (const [key, v] of Object.entries(fields ?? {})) {
    const def = defs.get(key);
    const p = `${parameter}.${key}`;
    if (!def) {
      errors.push({ parameter: p, error: `no custom field ${key} for ${type}s` });
      continue;
    }
    if (!v || typeof v !== 'object') {
      errors.push({ parameter: p, error: 'expected {type, value}' });
      continue;
    }
    if (v.type !== def.type) errors.push({ parameter: `${p}.type`, error: `field ${key} is of type ${def.type}` });
    else if (v.value !== null && !valueFits(def.type, v.value)) errors.push({ parameter: `${p}.value`, error: `not a valid ${def.type}` });
    else if (v.value === null && def.required) errors.push({ parameter: `${p}.value`, error: 'required' });
    // A reference to an employee is checked like any other reference: the owner's, else "no such" (issue 10).
    else if (def.type === 'responsible_employee' && v.value !== null && !isEmployee(v.value as number)) errors.push({ parameter: `${p}.value`, error: `no such employee: ${v.value}` });
  }
  if (opts.requireAll) for (const [key, def] of defs) if (def.required && !(key in (fields ?? {}))) errors.push({ parameter: `${parameter}.${key}`, error: `required field ${def.label} is missing` });
  return errors;
}

function valueFits(type: FieldType, v: unknown): boolean {
  switch (type) {
    case 'text':
      return typeof v === 'string' && v.length <= 1024;
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'date':
      return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v));
    case 'responsible_employee':
      return Number.isInteger(v) && (v as number) > 0;
  }
}
