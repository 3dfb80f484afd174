/** Zones (spec: Zone): circles, polygons and sausages, their points, tags and the rules using them. */
import type { DB } from './db.ts';
import type { TagStore } from './tags.ts';

export type ZoneType = 'circle' | 'polygon' | 'sausage';

export interface ZoneRow {
  id: number;
  user_id: number;
  type: ZoneType;
  label: string;
  address: string;
  color: string;
  radius: number | null;
  center_lat: number | null;
  center_lng: number | null;
  /** The box of the points (polygon, sausage; migration 041), null for circles. */
  min_lat: number | null;
  max_lat: number | null;
  min_lng: number | null;
  max_lng: number | null;
}

export interface ZonePoint {
  lat: number;
  lng: number;
  node: boolean;
}

/** What create and update write. */
export interface ZoneInput {
  type: ZoneType;
  label: string;
  address: string;
  color: string;
  radius: number | null;
  center: { lat: number; lng: number } | null;
}

export class ZoneStore {
  private getStmt;
  private listStmt;
  private countStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private pointsStmt;
  private clearPointsStmt;
  private insertPointStmt;
  private boxStmt;

  constructor(
    private db: DB,
    private tags: TagStore,
  ) {
    this.getStmt = db.prepare<[number, number], ZoneRow>('SELECT * FROM zones WHERE id = ? AND user_id = ?');
    this.listStmt = db.prepare<[number], ZoneRow>('SELECT * FROM zones WHERE user_id = ? ORDER BY id');
    this.countStmt = db.prepare<[number], number>('SELECT COUNT(*) FROM zones WHERE user_id = ?').pluck();
    this.insertStmt = db.prepare('INSERT INTO zones (user_id, type, label, address, color, radius, center_lat, center_lng, upload_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    this.updateStmt = db.prepare('UPDATE zones SET label = ?, address = ?, color = ?, radius = ?, center_lat = ?, center_lng = ? WHERE id = ? AND user_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM zones WHERE id = ? AND user_id = ?');
    this.pointsStmt = db.prepare<[number], { lat: number; lng: number; node: number }>('SELECT lat, lng, node FROM zone_points WHERE zone_id = ? ORDER BY ordinal');
    this.clearPointsStmt = db.prepare('DELETE FROM zone_points WHERE zone_id = ?');
    this.insertPointStmt = db.prepare('INSERT INTO zone_points (zone_id, ordinal, lat, lng, node) VALUES (?, ?, ?, ?, ?)');
    this.boxStmt = db.prepare('UPDATE zones SET min_lat = ?, max_lat = ?, min_lng = ?, max_lng = ? WHERE id = ?');
  }

  get(userId: number, id: number): ZoneRow | undefined {
    return this.getStmt.get(id, userId);
  }
  list(userId: number): ZoneRow[] {
    return this.listStmt.all(userId);
  }
  count(userId: number): number {
    return this.countStmt.get(userId) as number;
  }

  /** Insert zones (with points and tags) in one transaction, all or nothing; answers their ids. */
  createMany(userId: number, zones: Array<{ zone: ZoneInput; points?: ZonePoint[]; tags?: number[] }>): number[] {
    return this.insertMany(userId, null, zones);
  }

  /** Insert zones of an upload (with points), shown only by its commit (src/store/uploads.ts); one transaction. */
  stage(uploadId: number, zones: Array<{ zone: ZoneInput; points?: ZonePoint[] }>): number[] {
    return this.insertMany(null, uploadId, zones);
  }

  private insertMany(userId: number | null, uploadId: number | null, zones: Array<{ zone: ZoneInput; points?: ZonePoint[]; tags?: number[] }>): number[] {
    return this.db.transaction(() =>
      zones.map(({ zone: z, points, tags }) => {
        const id = Number(this.insertStmt.run(userId, z.type, z.label, z.address, z.color, z.radius, z.center?.lat ?? null, z.center?.lng ?? null, uploadId).lastInsertRowid);
        if (points) this.writePoints(id, points);
        if (tags?.length) this.tags.setEntityTags('zone', id, tags);
        return id;
      }),
    )();
  }

  /** Overwrite a zone's members (not its type nor its points) and its tags. */
  update(userId: number, id: number, z: ZoneInput, tags: number[]): boolean {
    return this.db.transaction(() => {
      if (this.updateStmt.run(z.label, z.address, z.color, z.radius, z.center?.lat ?? null, z.center?.lng ?? null, id, userId).changes === 0) return false;
      this.tags.setEntityTags('zone', id, tags);
      return true;
    })();
  }

  /** Delete zones (all the user's: the caller checked), their points and tags. */
  delete(userId: number, ids: number[]): void {
    this.db.transaction(() => {
      for (const id of ids) {
        if (this.deleteStmt.run(id, userId).changes) this.tags.clearEntityTags('zone', id);
      }
    })();
  }

  /** Ids among `ids` that are not the user's zones. */
  missing(userId: number, ids: number[]): number[] {
    return [...new Set(ids)].filter((id) => !this.get(userId, id));
  }

  /** Rule ids that use any of the zones. */
  rulesUsing(zoneIds: number[]): number[] {
    if (!zoneIds.length) return [];
    return this.db.prepare<[string], number>('SELECT DISTINCT rule_id FROM rule_zones WHERE zone_id IN (SELECT value FROM json_each(?)) ORDER BY rule_id').pluck().all(JSON.stringify(zoneIds));
  }

  points(zoneId: number): ZonePoint[] {
    return this.pointsStmt.all(zoneId).map((p) => ({ lat: p.lat, lng: p.lng, node: !!p.node }));
  }
  setPoints(zoneId: number, points: ZonePoint[]): void {
    this.db.transaction(() => this.writePoints(zoneId, points))();
  }
  private writePoints(zoneId: number, points: ZonePoint[]): void {
    this.clearPointsStmt.run(zoneId);
    points.forEach((p, i) => this.insertPointStmt.run(zoneId, i, p.lat, p.lng, p.node ? 1 : 0));
    const lats = points.map((p) => p.lat);
    const lngs = points.map((p) => p.lng);
    if (points.length) this.boxStmt.run(Math.min(...lats), Math.max(...lats), Math.min(...lngs), Math.max(...lngs), zoneId);
  }
}
