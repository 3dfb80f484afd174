/** Status listings, their ordered statuses, trackers' current statuses and the change history (migration 017). */
import type { DB } from './db.ts';

export interface StatusListingRow {
  id: number;
  user_id: number;
  label: string;
  employee_controlled: number;
  supervisor_controlled: number;
}

export interface StatusRow {
  id: number;
  listing_id: number;
  label: string;
  color: string;
  ordinal: number;
}

export type StatusOrigin = 'employee' | 'supervisor';

export interface StatusChangeRow {
  id: number;
  tracker_id: number;
  old_status_id: number | null;
  new_status_id: number | null;
  lat: number | null;
  lng: number | null;
  address: string;
  changed: number;
  origin: StatusOrigin;
}

export interface ListingFields {
  label: string;
  employeeControlled: boolean;
  supervisorControlled: boolean;
}

export class StatusStore {
  private listingsStmt;
  private listingStmt;
  private listingCountStmt;
  private insertListingStmt;
  private updateListingStmt;
  private deleteListingStmt;
  private unassignListingStmt;
  private statusesStmt;
  private statusStmt;
  private statusCountStmt;
  private insertStatusStmt;
  private updateStatusStmt;
  private deleteStatusStmt;
  private orderStmt;
  private setListingStmt;
  private currentStmt;
  private setCurrentStmt;
  private clearCurrentStmt;
  private insertChangeStmt;
  private lastChangeStmt;

  constructor(private db: DB) {
    this.listingsStmt = db.prepare<[number], StatusListingRow>('SELECT * FROM status_listings WHERE user_id = ? ORDER BY id');
    this.listingStmt = db.prepare<[number, number], StatusListingRow>('SELECT * FROM status_listings WHERE id = ? AND user_id = ?');
    this.listingCountStmt = db.prepare<[number], number>('SELECT count(*) FROM status_listings WHERE user_id = ?').pluck();
    this.insertListingStmt = db.prepare('INSERT INTO status_listings (user_id, label, employee_controlled, supervisor_controlled) VALUES (?, ?, ?, ?)');
    this.updateListingStmt = db.prepare('UPDATE status_listings SET label = ?, employee_controlled = ?, supervisor_controlled = ? WHERE id = ? AND user_id = ?');
    this.deleteListingStmt = db.prepare('DELETE FROM status_listings WHERE id = ? AND user_id = ?');
    this.unassignListingStmt = db.prepare('UPDATE trackers SET status_listing_id = NULL WHERE status_listing_id = ?');
    this.statusesStmt = db.prepare<[number], StatusRow>('SELECT * FROM statuses WHERE listing_id = ? ORDER BY ordinal, id');
    this.statusStmt = db.prepare<[number, number], StatusRow>('SELECT s.* FROM statuses s JOIN status_listings l ON l.id = s.listing_id WHERE s.id = ? AND l.user_id = ?');
    this.statusCountStmt = db.prepare<[number], number>('SELECT count(*) FROM statuses WHERE listing_id = ?').pluck();
    this.insertStatusStmt = db.prepare('INSERT INTO statuses (listing_id, label, color, ordinal) VALUES (?, ?, ?, (SELECT COALESCE(max(ordinal) + 1, 0) FROM statuses WHERE listing_id = ?))');
    this.updateStatusStmt = db.prepare('UPDATE statuses SET label = ?, color = ? WHERE id = ?');
    this.deleteStatusStmt = db.prepare('DELETE FROM statuses WHERE id = ?');
    this.orderStmt = db.prepare('UPDATE statuses SET ordinal = ? WHERE id = ? AND listing_id = ?');
    this.setListingStmt = db.prepare('UPDATE trackers SET status_listing_id = ? WHERE id = ?');
    this.currentStmt = db.prepare<[number], StatusRow>('SELECT s.* FROM tracker_statuses ts JOIN statuses s ON s.id = ts.status_id WHERE ts.tracker_id = ?');
    this.setCurrentStmt = db.prepare('INSERT INTO tracker_statuses (tracker_id, status_id) VALUES (?, ?) ON CONFLICT (tracker_id) DO UPDATE SET status_id = excluded.status_id');
    this.clearCurrentStmt = db.prepare('DELETE FROM tracker_statuses WHERE tracker_id = ?');
    this.insertChangeStmt = db.prepare('INSERT INTO status_changes (tracker_id, old_status_id, new_status_id, lat, lng, address, changed, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    this.lastChangeStmt = db.prepare<[number], StatusChangeRow>('SELECT * FROM status_changes WHERE tracker_id = ? ORDER BY id DESC LIMIT 1');
  }

  listings(userId: number): StatusListingRow[] {
    return this.listingsStmt.all(userId);
  }
  /** The user's listing, or undefined when it does not exist or is someone else's. */
  listing(userId: number, id: number): StatusListingRow | undefined {
    return this.listingStmt.get(id, userId);
  }
  listingCount(userId: number): number {
    return this.listingCountStmt.get(userId)!;
  }
  createListing(userId: number, f: ListingFields): number {
    return Number(this.insertListingStmt.run(userId, f.label, f.employeeControlled ? 1 : 0, f.supervisorControlled ? 1 : 0).lastInsertRowid);
  }
  /** Fields and the order of the listing's statuses (`entries`: all its status ids, checked by the caller). */
  updateListing(userId: number, id: number, f: ListingFields, entries: number[]): void {
    this.db.transaction(() => {
      this.updateListingStmt.run(f.label, f.employeeControlled ? 1 : 0, f.supervisorControlled ? 1 : 0, id, userId);
      entries.forEach((statusId, i) => this.orderStmt.run(i, statusId, id));
    })();
  }
  /** Deletes the listing with its statuses (and so the current statuses they were); its trackers keep no listing. */
  deleteListing(userId: number, id: number): boolean {
    return this.db.transaction(() => {
      if (!this.listingStmt.get(id, userId)) return false;
      this.unassignListingStmt.run(id);
      this.deleteListingStmt.run(id, userId);
      return true;
    })();
  }

  /** The listing's statuses in `entries` order. */
  statuses(listingId: number): StatusRow[] {
    return this.statusesStmt.all(listingId);
  }
  /** A status of one of the user's listings. */
  status(userId: number, id: number): StatusRow | undefined {
    return this.statusStmt.get(id, userId);
  }
  statusCount(listingId: number): number {
    return this.statusCountStmt.get(listingId)!;
  }
  /** Appends the status at the end of the listing's entries. */
  createStatus(listingId: number, label: string, color: string): number {
    return Number(this.insertStatusStmt.run(listingId, label, color, listingId).lastInsertRowid);
  }
  updateStatus(id: number, label: string, color: string): void {
    this.updateStatusStmt.run(label, color, id);
  }
  /** Deletes the status; trackers whose current status it was have none (tracker_statuses cascades). */
  deleteStatus(id: number): void {
    this.deleteStatusStmt.run(id);
  }

  /** Assigns the listing (null: none) to the tracker; a tracker's current status belongs to its listing, so it is cleared. */
  setTrackerListing(trackerId: number, listingId: number | null): void {
    this.db.transaction(() => {
      this.setListingStmt.run(listingId, trackerId);
      this.clearCurrentStmt.run(trackerId);
    })();
  }
  current(trackerId: number): StatusRow | undefined {
    return this.currentStmt.get(trackerId);
  }
  /** Sets the current status and records the change, in one transaction; answers the record's id. */
  change(c: Omit<StatusChangeRow, 'id'>): number {
    return this.db.transaction(() => {
      if (c.new_status_id === null) this.clearCurrentStmt.run(c.tracker_id);
      else this.setCurrentStmt.run(c.tracker_id, c.new_status_id);
      return Number(this.insertChangeStmt.run(c.tracker_id, c.old_status_id, c.new_status_id, c.lat, c.lng, c.address, c.changed, c.origin).lastInsertRowid);
    })();
  }
  lastChange(trackerId: number): StatusChangeRow | undefined {
    return this.lastChangeStmt.get(trackerId);
  }
}
