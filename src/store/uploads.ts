/**
 * Uploads that write many rows (place/upload, zone/upload) in many short transactions and show
 * them in one (migration 040; docs/places-zones.md#uploads-all-or-nothing). Until `commit`, the
 * rows have no owner (`user_id` NULL) and carry the upload's id: every read names an owner, so no
 * call sees them, no count includes them, no search finds them, and the geofence readers skip them.
 */
import type { DB } from './db.ts';

export type UploadKind = 'place' | 'zone';

export class UploadStore {
  private beginStmt;
  private commitPlacesStmt;
  private commitZonesStmt;
  private endStmt;
  private discardPlacesStmt;
  private discardZonesStmt;
  private pendingStmt;
  private countPlacesStmt;
  private bumpGeoStmt;
  private unindexChangedStmt;
  private unmarkChangedStmt;

  constructor(private db: DB) {
    this.beginStmt = db.prepare('INSERT INTO uploads (user_id, kind, started) VALUES (?, ?, ?)');
    this.commitPlacesStmt = db.prepare('UPDATE places SET user_id = ?, upload_id = NULL WHERE upload_id = ? AND user_id IS NULL');
    this.commitZonesStmt = db.prepare('UPDATE zones SET user_id = ?, upload_id = NULL WHERE upload_id = ? AND user_id IS NULL');
    this.endStmt = db.prepare('DELETE FROM uploads WHERE id = ?');
    // `upload_id IS ?` with NULL: ownerless rows of any upload (what a crash left).
    this.discardPlacesStmt = db.prepare('DELETE FROM places WHERE id IN (SELECT id FROM places WHERE user_id IS NULL AND (? IS NULL OR upload_id = ?) LIMIT ?)');
    this.discardZonesStmt = db.prepare('DELETE FROM zones WHERE id IN (SELECT id FROM zones WHERE user_id IS NULL AND (? IS NULL OR upload_id = ?) LIMIT ?)');
    this.pendingStmt = db.prepare<[], number>('SELECT COUNT(*) FROM uploads').pluck();
    this.countPlacesStmt = db.prepare('INSERT INTO place_counts (user_id, n) VALUES (?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n');
    this.unindexChangedStmt = db.prepare('DELETE FROM places_fts WHERE rowid IN (SELECT (user_id << 36) | id FROM places WHERE upload_id = ? AND user_id IS NOT NULL)');
    this.unmarkChangedStmt = db.prepare('UPDATE places SET upload_id = NULL WHERE upload_id = ? AND user_id IS NOT NULL');
    this.bumpGeoStmt = db.prepare("UPDATE versions SET value = value + 1 WHERE name IN ('geo', 'geo_areas')");
  }

  /** A new upload of `userId`'s: its id marks the rows it writes. */
  begin(userId: number, kind: UploadKind, now: number): number {
    return Number(this.beginStmt.run(userId, kind, now).lastInsertRowid);
  }

  /**
   * Give the upload's rows their owner and end it: call inside the transaction that also made the
   * upload's other changes (place updates), after them. Answers how many rows it showed.
   */
  commit(uploadId: number, userId: number): number {
    // Places the upload changed (PlaceStore.changeInUpload): their search entries go in one
    // statement and come back, rewritten, when their mark is cleared below.
    this.unindexChangedStmt.run(uploadId);
    const places = this.commitPlacesStmt.run(userId, uploadId).changes;
    const n = places + this.commitZonesStmt.run(userId, uploadId).changes;
    // Once for all rows (their per-row triggers skip rows that get their first owner: migration 040).
    if (places) this.countPlacesStmt.run(userId, places);
    if (n) this.bumpGeoStmt.run();
    this.unmarkChangedStmt.run(uploadId);
    this.endStmt.run(uploadId);
    return n;
  }

  /**
   * Delete at most `places` places and `zones` zones (their points go with them) of one
   * upload (`uploadId`) or of every unfinished one (null); ends the upload(s) once nothing is left.
   * Answers whether rows remain. One transaction a call: callers loop, yielding between calls.
   */
  discard(uploadId: number | null, places: number, zones: number): boolean {
    return this.db.transaction(() => {
      const n = this.discardPlacesStmt.run(uploadId, uploadId, places).changes + this.discardZonesStmt.run(uploadId, uploadId, zones).changes;
      if (n > 0) return true;
      if (uploadId === null) this.db.exec('DELETE FROM uploads');
      else this.endStmt.run(uploadId);
      return false;
    }).immediate();
  }

  /** Uploads begun and not yet committed or discarded. */
  pending(): number {
    return this.pendingStmt.get() as number;
  }
}
