/** Map layers: a label and one KML document per layer, scoped to their owner (migration 023). */
import type { DB } from './db.ts';

export interface MapLayerItem {
  id: number;
  label: string;
}

export class MapLayerStore {
  private listStmt;
  private countStmt;
  private kmlStmt;
  private insertStmt;
  private renameStmt;
  private deleteStmt;
  constructor(db: DB) {
    this.listStmt = db.prepare<[number], MapLayerItem>('SELECT id, label FROM map_layers WHERE user_id = ? ORDER BY id');
    this.countStmt = db.prepare<[number], number>('SELECT count(*) FROM map_layers WHERE user_id = ?').pluck();
    this.kmlStmt = db.prepare<[number, number], string>('SELECT kml FROM map_layers WHERE user_id = ? AND id = ?').pluck();
    this.insertStmt = db.prepare('INSERT INTO map_layers (user_id, label, kml, bytes, created) VALUES (?, ?, ?, ?, ?)');
    this.renameStmt = db.prepare('UPDATE map_layers SET label = ? WHERE user_id = ? AND id = ?');
    this.deleteStmt = db.prepare('DELETE FROM map_layers WHERE user_id = ? AND id = ?');
  }
  /** The owner's layers without their documents, in id order. */
  list(userId: number): MapLayerItem[] {
    return this.listStmt.all(userId);
  }
  count(userId: number): number {
    return this.countStmt.get(userId)!;
  }
  /** The layer's KML text; undefined for another user's or an unknown layer. */
  kml(userId: number, id: number): string | undefined {
    return this.kmlStmt.get(userId, id);
  }
  create(userId: number, label: string, kml: string, now: number): number {
    return Number(this.insertStmt.run(userId, label, kml, Buffer.byteLength(kml), now).lastInsertRowid);
  }
  /** false when the owner has no such layer. */
  rename(userId: number, id: number, label: string): boolean {
    return this.renameStmt.run(label, userId, id).changes > 0;
  }
  /** false when the owner has no such layer. */
  delete(userId: number, id: number): boolean {
    return this.deleteStmt.run(userId, id).changes > 0;
  }
}
