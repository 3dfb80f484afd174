/** The PostgreSQL engine's tags and their bindings (the SQLite engine's tags.ts: the same answers). */
import type { Area } from '../contract.ts';
import type { TagStore, TagRow, TaggedEntity } from '../tags.ts';
import { like } from '../text-search.ts';
import type { Sql } from './connect.ts';

export class PgTagStore implements Area<TagStore> {
  constructor(private sql: Sql) {}
  async list(userId: number, filter?: string): Promise<TagRow[]> {
    if (!filter) return [...(await this.sql<TagRow[]>`SELECT * FROM tags WHERE user_id = ${userId} ORDER BY ascii_lower(name), id`)];
    return [...(await this.sql<TagRow[]>`SELECT * FROM tags WHERE user_id = ${userId} AND ascii_lower(name) LIKE ascii_lower(${like(filter)}) ESCAPE '\\' ORDER BY ascii_lower(name), id`)];
  }
  async get(userId: number, id: number): Promise<TagRow | undefined> {
    return (await this.sql<TagRow[]>`SELECT * FROM tags WHERE id = ${id} AND user_id = ${userId}`)[0];
  }
  async byName(userId: number, name: string): Promise<TagRow | undefined> {
    return (await this.sql<TagRow[]>`SELECT * FROM tags WHERE user_id = ${userId} AND ascii_lower(name) = ascii_lower(${name}) ORDER BY id LIMIT 1`)[0];
  }
  async create(userId: number, name: string, color: string): Promise<number> {
    return (await this.sql`INSERT INTO tags (user_id, name, color) VALUES (${userId}, ${name}, ${color}) RETURNING id`)[0].id as number;
  }
  async update(userId: number, id: number, name: string, color: string): Promise<boolean> {
    return (await this.sql`UPDATE tags SET name = ${name}, color = ${color} WHERE id = ${id} AND user_id = ${userId}`).count > 0;
  }
  async delete(userId: number, id: number): Promise<boolean> {
    return (await this.sql`DELETE FROM tags WHERE id = ${id} AND user_id = ${userId}`).count > 0;
  }
  async missing(userId: number, ids: number[]): Promise<number[]> {
    if (!ids.length) return [];
    const unique = [...new Set(ids)];
    const found = new Set((await this.sql`SELECT id FROM tags WHERE user_id = ${userId} AND id = ANY(${unique}::bigint[])`).map((r) => r.id as number));
    return unique.filter((id) => !found.has(id));
  }
  async setEntityTags(type: TaggedEntity, entityId: number, tagIds: number[]): Promise<void> {
    await this.sql`DELETE FROM entity_tags WHERE entity_type = ${type} AND entity_id = ${entityId}`;
    const ids = [...new Set(tagIds)];
    if (ids.length) await this.sql`INSERT INTO entity_tags (entity_type, entity_id, tag_id) SELECT ${type}, ${entityId}, unnest(${ids}::bigint[]) ON CONFLICT DO NOTHING`;
  }
  async clearEntityTags(type: TaggedEntity, entityId: number): Promise<void> {
    await this.sql`DELETE FROM entity_tags WHERE entity_type = ${type} AND entity_id = ${entityId}`;
  }
  async withAllTags(userId: number, type: TaggedEntity, tagIds: number[]): Promise<number[]> {
    const unique = [...new Set(tagIds)];
    if (!unique.length) return [];
    const rows = await this.sql`
      SELECT et.entity_id FROM entity_tags et JOIN tags t ON t.id = et.tag_id
      WHERE et.entity_type = ${type} AND t.user_id = ${userId} AND et.tag_id = ANY(${unique}::bigint[])
      GROUP BY et.entity_id HAVING count(DISTINCT et.tag_id) = ${unique.length} ORDER BY et.entity_id`;
    return rows.map((r) => r.entity_id as number);
  }
  async entityTags(type: TaggedEntity, entityIds: number[]): Promise<Map<number, number[]>> {
    const out = new Map<number, number[]>();
    for (const id of entityIds) out.set(id, []);
    if (!entityIds.length) return out;
    const rows = await this.sql<{ entity_id: number; tag_id: number }[]>`SELECT entity_id, tag_id FROM entity_tags WHERE entity_type = ${type} AND entity_id = ANY(${entityIds}::bigint[]) ORDER BY tag_id`;
    for (const r of rows) out.get(r.entity_id)!.push(r.tag_id);
    return out;
  }
}
