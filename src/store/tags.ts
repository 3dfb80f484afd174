/** Tags and their bindings to places, zones, employees and tasks (trackers: tracker_tags, with ordinals). */
import type { DB } from './db.ts';
import { like, LIKE } from './text-search.ts';

export interface TagRow {
  id: number;
  user_id: number;
  name: string;
  color: string;
}

export type TaggedEntity = 'place' | 'zone' | 'employee' | 'task';

export class TagStore {
  private listStmt;
  private filterStmt;
  private getStmt;
  private byNameStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private unbindStmt;
  private bindStmt;

  constructor(private db: DB) {
    this.listStmt = db.prepare<[number], TagRow>('SELECT * FROM tags WHERE user_id = ? ORDER BY name COLLATE NOCASE, id');
    this.filterStmt = db.prepare<[number, string], TagRow>(`SELECT * FROM tags WHERE user_id = ? AND name ${LIKE} ORDER BY name COLLATE NOCASE, id`);
    this.getStmt = db.prepare<[number, number], TagRow>('SELECT * FROM tags WHERE id = ? AND user_id = ?');
    this.byNameStmt = db.prepare<[number, string], TagRow>('SELECT * FROM tags WHERE user_id = ? AND name = ? COLLATE NOCASE');
    this.insertStmt = db.prepare('INSERT INTO tags (user_id, name, color) VALUES (?, ?, ?)');
    this.updateStmt = db.prepare('UPDATE tags SET name = ?, color = ? WHERE id = ? AND user_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM tags WHERE id = ? AND user_id = ?');
    this.unbindStmt = db.prepare('DELETE FROM entity_tags WHERE entity_type = ? AND entity_id = ?');
    this.bindStmt = db.prepare('INSERT OR IGNORE INTO entity_tags (entity_type, entity_id, tag_id) VALUES (?, ?, ?)');
  }

  list(userId: number, filter?: string): TagRow[] {
    if (!filter) return this.listStmt.all(userId);
    return this.filterStmt.all(userId, like(filter));
  }
  get(userId: number, id: number): TagRow | undefined {
    return this.getStmt.get(id, userId);
  }
  byName(userId: number, name: string): TagRow | undefined {
    return this.byNameStmt.get(userId, name);
  }
  create(userId: number, name: string, color: string): number {
    return Number(this.insertStmt.run(userId, name, color).lastInsertRowid);
  }
  update(userId: number, id: number, name: string, color: string): boolean {
    return this.updateStmt.run(name, color, id, userId).changes > 0;
  }
  delete(userId: number, id: number): boolean {
    return this.deleteStmt.run(id, userId).changes > 0;
  }

  /** Ids among `ids` that are not the user's tags (empty when all are). */
  missing(userId: number, ids: number[]): number[] {
    if (!ids.length) return [];
    const unique = [...new Set(ids)];
    const found = new Set(this.db.prepare<[number, string], number>('SELECT id FROM tags WHERE user_id = ? AND id IN (SELECT value FROM json_each(?))').pluck().all(userId, JSON.stringify(unique)));
    return unique.filter((id) => !found.has(id));
  }

  /** Replace the tags of an entity (call inside the entity's write transaction). */
  setEntityTags(type: TaggedEntity, entityId: number, tagIds: number[]): void {
    this.unbindStmt.run(type, entityId);
    for (const t of new Set(tagIds)) this.bindStmt.run(type, entityId, t);
  }
  clearEntityTags(type: TaggedEntity, entityId: number): void {
    this.unbindStmt.run(type, entityId);
  }

  /** Ids of the owner's entities of `type` carrying every one of `tagIds`, ascending (tag/search). */
  withAllTags(userId: number, type: TaggedEntity, tagIds: number[]): number[] {
    const unique = [...new Set(tagIds)];
    if (!unique.length) return [];
    // Bindings only ever join an entity to tags of its own user, so the tags' owner scopes them.
    return this.db
      .prepare<[string, number, string, number], number>(
        `SELECT et.entity_id FROM entity_tags et JOIN tags t ON t.id = et.tag_id
         WHERE et.entity_type = ? AND t.user_id = ? AND et.tag_id IN (SELECT value FROM json_each(?))
         GROUP BY et.entity_id HAVING COUNT(DISTINCT et.tag_id) = ? ORDER BY et.entity_id`,
      )
      .pluck()
      .all(type, userId, JSON.stringify(unique), unique.length);
  }

  /** Tag ids of many entities at once, in tag id order. */
  entityTags(type: TaggedEntity, entityIds: number[]): Map<number, number[]> {
    const out = new Map<number, number[]>();
    for (const id of entityIds) out.set(id, []);
    if (!entityIds.length) return out;
    // The ids as one JSON array parameter, however many (no placeholder per id).
    const rows = this.db
      .prepare<[string, string], { entity_id: number; tag_id: number }>('SELECT entity_id, tag_id FROM entity_tags WHERE entity_type = ? AND entity_id IN (SELECT value FROM json_each(?)) ORDER BY tag_id')
      .all(type, JSON.stringify(entityIds));
    for (const r of rows) out.get(r.entity_id)!.push(r.tag_id);
    return out;
  }
}
