/**
 * Employees (migration 004; docs/employees.md), their tracker bindings and the side effects of
 * those bindings on tracker labels (spec: Employees, "Side effects").
 */
import type { DB } from './db.ts';

export interface EmployeeRow {
  id: number;
  user_id: number;
  tracker_id: number | null;
  first_name: string;
  middle_name: string;
  last_name: string;
  email: string;
  phone: string;
  driver_license_number: string;
  driver_license_cats: string;
  driver_license_valid_till: string | null;
  /** Documented members kept since migration 041. */
  driver_license_issue_date: string | null;
  ssn: string;
  hardware_key: string | null;
  icon_id: number | null;
  avatar_file_name: string | null;
  department_id: number | null;
  lat: number | null;
  lng: number | null;
  address: string;
  personnel_number: string;
  fuel_consumption: number;
  fuel_cost: number;
}

/** The members a client sets (icon_id and avatar_file_name change only through avatar calls). */
export type EmployeeData = Omit<EmployeeRow, 'id' | 'user_id' | 'icon_id' | 'avatar_file_name'>;

/** Prefix of the label of a tracker whose employee left it (docs/employees.md). */
export const FORMER_PREFIX = 'Deleted ';

const COLUMNS = [
  'tracker_id', 'first_name', 'middle_name', 'last_name', 'email', 'phone', 'driver_license_number', 'driver_license_cats',
  'driver_license_valid_till', 'hardware_key', 'department_id', 'lat', 'lng', 'address', 'personnel_number', 'fuel_consumption', 'fuel_cost',
  'driver_license_issue_date', 'ssn',
] as const satisfies ReadonlyArray<keyof EmployeeData>;

export class EmployeeStore {
  private listStmt;
  private getStmt;
  private byTrackerStmt;
  private insertStmt;
  private updateStmt;
  private setTrackerStmt;
  private deleteStmt;
  private labelStmt;
  private formerStmt;

  constructor(private db: DB) {
    this.listStmt = db.prepare<[number], EmployeeRow>('SELECT * FROM employees WHERE user_id = ? ORDER BY id');
    this.getStmt = db.prepare<[number, number], EmployeeRow>('SELECT * FROM employees WHERE id = ? AND user_id = ?');
    this.byTrackerStmt = db.prepare<[number], EmployeeRow>('SELECT * FROM employees WHERE tracker_id = ?');
    // Column names are the constant list above, never input.
    this.insertStmt = db.prepare(`INSERT INTO employees (user_id, ${COLUMNS.join(', ')}) VALUES (?, ${COLUMNS.map(() => '?').join(', ')})`);
    this.updateStmt = db.prepare(`UPDATE employees SET ${COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ? AND user_id = ?`);
    this.setTrackerStmt = db.prepare('UPDATE employees SET tracker_id = ? WHERE id = ?');
    this.deleteStmt = db.prepare('DELETE FROM employees WHERE id = ? AND user_id = ?');
    this.labelStmt = db.prepare('UPDATE trackers SET label = ? WHERE id = ? AND label <> ?');
    this.formerStmt = db.prepare(`UPDATE trackers SET label = '${FORMER_PREFIX}' || label WHERE id = ? AND label NOT LIKE '${FORMER_PREFIX}%'`);
  }

  /** Runs `fn` in one write transaction (checks and writes of a call together). */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  list(userId: number): EmployeeRow[] {
    return this.listStmt.all(userId);
  }
  get(userId: number, id: number): EmployeeRow | undefined {
    return this.getStmt.get(id, userId);
  }
  /** The employee bound to a tracker (telemetry reads its fuel_consumption), if any. */
  byTracker(trackerId: number): EmployeeRow | undefined {
    return this.byTrackerStmt.get(trackerId);
  }
  create(userId: number, e: EmployeeData): number {
    return Number(this.insertStmt.run(userId, ...COLUMNS.map((c) => e[c])).lastInsertRowid);
  }
  update(userId: number, id: number, e: EmployeeData): boolean {
    return this.updateStmt.run(...COLUMNS.map((c) => e[c]), id, userId).changes > 0;
  }
  setTracker(id: number, trackerId: number | null): void {
    this.setTrackerStmt.run(trackerId, id);
  }
  delete(userId: number, id: number): boolean {
    return this.deleteStmt.run(id, userId).changes > 0;
  }

  /** The tracker's label becomes `label` (the employee's full name). */
  labelTracker(trackerId: number, label: string): void {
    this.labelStmt.run(label, trackerId, label);
  }
  /** The label of a tracker its employee left gets the "Deleted " prefix (once). */
  markTrackerFormer(trackerId: number): void {
    this.formerStmt.run(trackerId);
  }
}
