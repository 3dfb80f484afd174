/** The PostgreSQL engine's custom fields: definitions and the values entities carry (the SQLite engine's fields.ts: the same answers). */
import type { Area } from '../contract.ts';
import { fieldProblems, type FieldStore, type FieldDef, type FieldEntity, type FieldType, type FieldValues } from '../fields.ts';
import type { Sql } from './connect.ts';

export class PgFieldStore implements Area<FieldStore> {
  constructor(private sql: Sql) {}
  async list(userId: number, type: FieldEntity): Promise<FieldDef[]> {
    return [...(await this.sql<FieldDef[]>`SELECT * FROM entity_fields WHERE user_id = ${userId} AND entity_type = ${type} ORDER BY ordinal, id`)];
  }
  async get(userId: number, id: number): Promise<FieldDef | undefined> {
    return (await this.sql<FieldDef[]>`SELECT * FROM entity_fields WHERE id = ${id} AND user_id = ${userId}`)[0];
  }
  async create(userId: number, f: { entity_type: FieldEntity; label: string; type: FieldType; required: boolean; ordinal: number }): Promise<number> {
    return (await this.sql`INSERT INTO entity_fields (user_id, entity_type, label, type, required, ordinal)
      VALUES (${userId}, ${f.entity_type}, ${f.label}, ${f.type}, ${f.required ? 1 : 0}, ${f.ordinal}) RETURNING id`)[0].id as number;
  }
  async delete(userId: number, id: number): Promise<boolean> {
    return (await this.sql`DELETE FROM entity_fields WHERE id = ${id} AND user_id = ${userId}`).count > 0;
  }
  /**
   * The same checks as the SQLite engine's (`fieldProblems`); the employees the values name are
   * looked up first, in one query: a dry run collects the ids the checks would ask about.
   */
  async validate(userId: number, type: FieldEntity, fields: FieldValues | undefined, opts: { requireAll: boolean; parameter?: string }): Promise<Array<{ parameter: string; error: string }>> {
    const defs = await this.list(userId, type);
    const asked: number[] = [];
    fieldProblems(type, defs, fields, opts, (id) => (asked.push(id), true));
    const ids = [...new Set(asked.filter(Number.isSafeInteger))];
    const found = new Set(ids.length ? (await this.sql`SELECT id FROM employees WHERE user_id = ${userId} AND id = ANY(${ids}::bigint[])`).map((r) => r.id as number) : []);
    return fieldProblems(type, defs, fields, opts, (id) => found.has(id));
  }
  /** Replaces the values of an entity in one statement: the fields no longer set go, the rest are written. */
  async save(type: FieldEntity, entityId: number, fields: FieldValues | undefined): Promise<void> {
    const set = Object.entries(fields ?? {}).filter(([, v]) => v.value !== null && v.value !== undefined);
    if (!set.length) return this.clear(type, entityId);
    const ids = set.map(([key]) => Number(key));
    await this.sql`
      WITH gone AS (DELETE FROM entity_field_values WHERE entity_type = ${type} AND entity_id = ${entityId} AND field_id <> ALL(${ids}::bigint[]))
      INSERT INTO entity_field_values (entity_type, entity_id, field_id, value, text)
      SELECT ${type}, ${entityId}::bigint, f, v, t FROM unnest(${ids}::bigint[], ${set.map(([, v]) => JSON.stringify(v.value))}::text[],
        ${set.map(([, v]) => (typeof v.value === 'string' ? v.value : JSON.stringify(v.value)))}::text[]) AS n(f, v, t)
      ON CONFLICT (entity_type, entity_id, field_id) DO UPDATE SET value = excluded.value, text = excluded.text`;
  }
  async clear(type: FieldEntity, entityId: number): Promise<void> {
    await this.sql`DELETE FROM entity_field_values WHERE entity_type = ${type} AND entity_id = ${entityId}`;
  }
  async load(type: FieldEntity, entityIds: number[]): Promise<Map<number, FieldValues>> {
    const out = new Map<number, FieldValues>();
    for (const id of entityIds) out.set(id, {});
    if (!entityIds.length) return out;
    const rows = await this.sql<{ entity_id: number; field_id: number; value: string; type: string }[]>`
      SELECT v.entity_id, v.field_id, v.value, f.type FROM entity_field_values v JOIN entity_fields f ON f.id = v.field_id
      WHERE v.entity_type = ${type} AND v.entity_id = ANY(${entityIds}::bigint[])`;
    for (const r of rows) out.get(r.entity_id)![String(r.field_id)] = { type: r.type, value: JSON.parse(r.value) };
    return out;
  }
}
