/** Departments: groups of employees (migration 004; docs/employees.md). */
import type { DB } from './db.ts';

export interface DepartmentRow {
  id: number;
  user_id: number;
  label: string;
  lat: number | null;
  lng: number | null;
  address: string;
  radius: number | null;
}

/** What a department stores; location null = none. */
export interface DepartmentData {
  label: string;
  location: { lat: number; lng: number; address: string; radius: number | null } | null;
}

export class DepartmentStore {
  private listStmt;
  private getStmt;
  private insertStmt;
  private updateStmt;
  private releaseStmt;
  private deleteStmt;

  constructor(private db: DB) {
    this.listStmt = db.prepare<[number], DepartmentRow>('SELECT * FROM departments WHERE user_id = ? ORDER BY id');
    this.getStmt = db.prepare<[number, number], DepartmentRow>('SELECT * FROM departments WHERE id = ? AND user_id = ?');
    this.insertStmt = db.prepare('INSERT INTO departments (user_id, label, lat, lng, address, radius) VALUES (?, ?, ?, ?, ?, ?)');
    this.updateStmt = db.prepare('UPDATE departments SET label = ?, lat = ?, lng = ?, address = ?, radius = ? WHERE id = ? AND user_id = ?');
    this.releaseStmt = db.prepare('UPDATE employees SET department_id = NULL WHERE department_id = ? AND user_id = ?');
    this.deleteStmt = db.prepare('DELETE FROM departments WHERE id = ? AND user_id = ?');
  }

  list(userId: number): DepartmentRow[] {
    return this.listStmt.all(userId);
  }
  get(userId: number, id: number): DepartmentRow | undefined {
    return this.getStmt.get(id, userId);
  }
  create(userId: number, d: DepartmentData): number {
    const l = d.location;
    return Number(this.insertStmt.run(userId, d.label, l?.lat ?? null, l?.lng ?? null, l?.address ?? '', l?.radius ?? null).lastInsertRowid);
  }
  update(userId: number, id: number, d: DepartmentData): boolean {
    const l = d.location;
    return this.updateStmt.run(d.label, l?.lat ?? null, l?.lng ?? null, l?.address ?? '', l?.radius ?? null, id, userId).changes > 0;
  }
  /** Deletes the department; its employees stay, without a department. */
  delete(userId: number, id: number): boolean {
    return this.db.transaction(() => {
      this.releaseStmt.run(id, userId);
      return this.deleteStmt.run(id, userId).changes > 0;
    })();
  }
}
