/** Trackers (a user's view of a device), their sources (the physical device) and tag bindings. */
import { VersionedCache } from './cache.ts';
import type { DB } from './db.ts';

export interface TrackerRow {
  id: number;
  user_id: number;
  source_id: number;
  label: string;
  clone: number;
  deleted: number;
  status_listing_id: number | null;
  avatar_file_name: string | null;
  // source columns
  device_id: string;
  model: string;
  protocol: string;
  blocked: number;
  tariff_id: number;
  phone: string | null;
  has_gsm: number;
  bundled_sim: number;
  corrupted: number;
  first_seen: number | null;
  last_seen: number | null;
  source_creation_date: number;
  tariff_end_date: number | null;
  /** Department id of the tracker's employee; 0 when the employee has none; -1 without an employee. */
  group_id: number;
}

export interface NewTracker {
  userId: number;
  deviceId: string;
  protocol: string;
  label: string;
  model?: string;
  phone?: string | null;
  tariffId: number;
  hasGsm?: boolean;
  bundledSim?: boolean;
  now: number;
}

const SELECT = `SELECT t.id, t.user_id, t.source_id, t.label, t.clone, t.deleted, t.status_listing_id, t.avatar_file_name,
  s.device_id, s.model, s.protocol, s.blocked, s.tariff_id, s.phone, s.has_gsm, s.bundled_sim, s.corrupted,
  s.first_seen, s.last_seen, s.creation_date AS source_creation_date, s.tariff_end_date,
  CASE WHEN e.id IS NULL THEN -1 ELSE COALESCE(e.department_id, 0) END AS group_id
  FROM trackers t JOIN sources s ON s.id = t.source_id LEFT JOIN employees e ON e.tracker_id = t.id`;

export class TrackerStore {
  private listStmt;
  private getStmt;
  private getAnyStmt;
  private bindingsStmt;
  private insertSource;
  private insertTracker;
  private deviceStmt;
  private phoneStmt;
  private setPhoneStmt;
  private setBlockedStmt;
  private corruptSourceStmt;
  private markDeletedStmt;
  private setLabelStmt;
  private rulesStmt;
  private vehiclesStmt;
  private vehicleLabelStmt;
  private versionStmt;
  private bySourceStmt;
  private cache: VersionedCache<string, unknown>;

  constructor(private db: DB) {
    this.cache = new VersionedCache(db, 'trackers');
    this.listStmt = db.prepare<[number], TrackerRow>(`${SELECT} WHERE t.user_id = ? AND t.deleted = 0 ORDER BY t.id`);
    this.getStmt = db.prepare<[number, number], TrackerRow>(`${SELECT} WHERE t.id = ? AND t.user_id = ? AND t.deleted = 0`);
    this.getAnyStmt = db.prepare<[number], TrackerRow>(`${SELECT} WHERE t.id = ?`);
    this.bindingsStmt = db.prepare<[number], { tracker_id: number; tag_id: number; ordinal: number }>(
      'SELECT tt.tracker_id, tt.tag_id, tt.ordinal FROM tracker_tags tt JOIN trackers t ON t.id = tt.tracker_id WHERE t.user_id = ? AND t.deleted = 0 ORDER BY tt.tracker_id, tt.ordinal',
    );
    this.insertSource = db.prepare(
      'INSERT INTO sources (device_id, model, protocol, tariff_id, phone, has_gsm, bundled_sim, creation_date) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertTracker = db.prepare('INSERT INTO trackers (user_id, source_id, label, clone) VALUES (?, ?, ?, ?)');
    this.deviceStmt = db.prepare<[string], { id: number }>('SELECT id FROM sources WHERE device_id = ?');
    this.phoneStmt = db.prepare<[string, number], { id: number }>('SELECT id FROM sources WHERE phone = ? AND id <> ? AND corrupted = 0 LIMIT 1');
    this.setPhoneStmt = db.prepare('UPDATE sources SET phone = ?, apn_name = ?, apn_user = ?, apn_password = ? WHERE id = ?');
    this.setBlockedStmt = db.prepare('UPDATE sources SET blocked = ? WHERE id = ?');
    this.corruptSourceStmt = db.prepare("UPDATE sources SET corrupted = 1, device_id = 'corrupted-' || id || '-' || device_id, phone = NULL WHERE id = ?");
    this.markDeletedStmt = db.prepare('UPDATE trackers SET deleted = 1 WHERE id = ?');
    this.setLabelStmt = db.prepare('UPDATE trackers SET label = ? WHERE id = ?');
    this.rulesStmt = db.prepare<[number], { id: number }>('SELECT rule_id AS id FROM rule_trackers WHERE tracker_id = ? ORDER BY rule_id');
    this.vehicleLabelStmt = db.prepare<[number, number], string>('SELECT label FROM vehicles WHERE user_id = ? AND tracker_id = ? ORDER BY id LIMIT 1').pluck();
    this.vehiclesStmt = db.prepare<[number], { id: number }>('SELECT id FROM vehicles WHERE tracker_id = ? ORDER BY id');
    this.versionStmt = db.prepare<[], { value: number }>("SELECT value FROM versions WHERE name = 'trackers'");
    this.bySourceStmt = db.prepare<[number], TrackerRow>(`${SELECT} WHERE t.source_id = ? AND t.deleted = 0 ORDER BY t.clone, t.id`);
  }

  /** The user's live trackers. Treat the rows as read-only. */
  list(userId: number): TrackerRow[] {
    return this.listing(userId).trackers;
  }
  /** Trackers with their tag bindings in one look-up, cached until trackers, sources or tags change. */
  listing(userId: number): { trackers: TrackerRow[]; bindings: Map<number, Array<{ tag_id: number; ordinal: number }>> } {
    return this.cache.get(`l${userId}`, () => ({ trackers: this.listStmt.all(userId), bindings: this.loadBindings(userId) })) as ReturnType<TrackerStore['listing']>;
  }
  /** Tag bindings of all the user's trackers, grouped by tracker id. */
  private loadBindings(userId: number): Map<number, Array<{ tag_id: number; ordinal: number }>> {
    const out = new Map<number, Array<{ tag_id: number; ordinal: number }>>();
    for (const b of this.bindingsStmt.all(userId)) {
      let list = out.get(b.tracker_id);
      if (!list) out.set(b.tracker_id, (list = []));
      list.push({ tag_id: b.tag_id, ordinal: b.ordinal });
    }
    return out;
  }
  /** The user's tracker, or undefined when it does not exist, is deleted or belongs to someone else. */
  get(userId: number, trackerId: number): TrackerRow | undefined {
    return this.getStmt.get(trackerId, userId);
  }
  getAny(trackerId: number): TrackerRow | undefined {
    return this.getAnyStmt.get(trackerId);
  }
  /** Live trackers over one source: the original first, then its clones. */
  bySource(sourceId: number): TrackerRow[] {
    return this.bySourceStmt.all(sourceId);
  }
  deviceExists(deviceId: string): boolean {
    return !!this.deviceStmt.get(deviceId);
  }

  add(t: NewTracker): number {
    return this.db.transaction(() => {
      const s = this.insertSource.run(t.deviceId, t.model ?? '', t.protocol, t.tariffId, t.phone ?? null, t.hasGsm === false ? 0 : 1, t.bundledSim ? 1 : 0, t.now);
      return Number(this.insertTracker.run(t.userId, Number(s.lastInsertRowid), t.label, 0).lastInsertRowid);
    })();
  }
  clone(of: TrackerRow, toUserId: number, label: string): number {
    return Number(this.insertTracker.run(toUserId, of.source_id, label, 1).lastInsertRowid);
  }
  setBlocked(sourceId: number, blocked: boolean): void {
    this.setBlockedStmt.run(blocked ? 1 : 0, sourceId);
  }
  phoneInUse(phone: string, exceptSourceId: number): boolean {
    return !!this.phoneStmt.get(phone, exceptSourceId);
  }
  changePhone(sourceId: number, phone: string, apn: { name: string; user: string; password: string }): void {
    this.setPhoneStmt.run(phone, apn.name, apn.user, apn.password, sourceId);
  }
  /** Marks the tracker deleted and spoils its source's device id and phone, so the device can be registered anew. */
  corrupt(t: TrackerRow): void {
    this.db.transaction(() => {
      this.markDeletedStmt.run(t.id);
      this.corruptSourceStmt.run(t.source_id);
    })();
  }
  markDeleted(trackerId: number): void {
    this.markDeletedStmt.run(trackerId);
  }
  /** tracker/settings/update (issue 23); the listing's version moves by the trackers trigger. */
  setLabel(trackerId: number, label: string): void {
    this.setLabelStmt.run(label, trackerId);
  }
  /** The tariff of the devices the user owns (its own trackers' sources, not clones of others'): the admin command's `tariff set`. */
  setOwnedSourcesTariff(userId: number, tariffId: number): void {
    this.db.prepare('UPDATE sources SET tariff_id = ? WHERE id IN (SELECT source_id FROM trackers WHERE user_id = ? AND clone = 0)').run(tariffId, userId);
  }
  /** What keeps a tracker from being deleted. */
  /** The label of the first vehicle using the tracker (null: none; vehicles have no API yet). */
  vehicleLabel(userId: number, trackerId: number): string | null {
    return this.vehicleLabelStmt.get(userId, trackerId) ?? null;
  }
  dependents(trackerId: number): { rules: number[]; vehicles: number[] } {
    return { rules: this.rulesStmt.all(trackerId).map((r) => r.id), vehicles: this.vehiclesStmt.all(trackerId).map((r) => r.id) };
  }
  /** Changes whenever a tracker or source is added, changed, blocked or corrupted (triggers, migration 002): the gateway reloads its registry on change. */
  sourcesVersion(): number {
    return this.versionStmt.get()!.value;
  }
}
