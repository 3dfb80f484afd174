/** What the gateway reads of registered devices, and the list of unknown devices that tried to connect. */
import type { DB } from './db.ts';

export interface SourceEntry {
  id: number;
  device_id: string;
  protocol: string;
  blocked: number;
  /** Live trackers over the source (the original first, then clones). */
  tracker_ids: string | null;
}

export interface UnknownDevice {
  device_id: string;
  protocol: string;
  address: string;
  first_seen: number;
  last_seen: number;
  count: number;
}

/** One unknown device's attempts since the last batch. */
export interface UnknownAttempts {
  deviceId: string;
  protocol: string;
  address: string;
  first: number;
  last: number;
  attempts: number;
}

/** The unknown-device list keeps the devices seen most recently, this many. */
export const UNKNOWN_DEVICES_KEPT = 1000;

export class DeviceStore {
  private sourcesStmt;
  private versionStmt;
  private unknownStmt;
  private unknownTrim;
  private unknownList;
  constructor(private db: DB) {
    this.sourcesStmt = db.prepare<[], SourceEntry>(
      `SELECT s.id, s.device_id, s.protocol, s.blocked,
              (SELECT group_concat(t.id) FROM trackers t WHERE t.source_id = s.id AND t.deleted = 0) AS tracker_ids
       FROM sources s WHERE s.corrupted = 0`,
    );
    this.versionStmt = db.prepare("SELECT value FROM versions WHERE name = 'trackers'").pluck();
    this.unknownStmt = db.prepare(
      `INSERT INTO unknown_devices (device_id, protocol, address, first_seen, last_seen, count) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (device_id, protocol) DO UPDATE SET address = excluded.address, last_seen = max(last_seen, excluded.last_seen), count = count + excluded.count`,
    );
    this.unknownTrim = db.prepare('DELETE FROM unknown_devices WHERE rowid IN (SELECT rowid FROM unknown_devices ORDER BY last_seen DESC, rowid DESC LIMIT -1 OFFSET ?)');
    this.unknownList = db.prepare<[], UnknownDevice>('SELECT * FROM unknown_devices ORDER BY last_seen DESC');
  }
  /** Every registered, uncorrupted source. */
  sources(): SourceEntry[] {
    return this.sourcesStmt.all();
  }
  /** Changes whenever trackers or sources change (migration 002 triggers). */
  version(): number {
    return this.versionStmt.get() as number;
  }
  /**
   * Adds a batch of attempts in one transaction (a repeat counts on its device's row), then drops
   * all but the `keep` devices seen most recently.
   */
  recordUnknown(batch: UnknownAttempts[], keep = UNKNOWN_DEVICES_KEPT): void {
    if (!batch.length) return;
    this.db.transaction(() => {
      for (const u of batch) this.unknownStmt.run(u.deviceId, u.protocol, u.address, u.first, u.last, u.attempts);
      this.unknownTrim.run(keep);
    })();
  }
  unknown(): UnknownDevice[] {
    return this.unknownList.all();
  }
}
