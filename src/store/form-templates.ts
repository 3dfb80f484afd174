/** Form templates (migration 018; docs/forms.md): fields as JSON, version grows on every change. */
import type { DB } from './db.ts';

export interface FormTemplateRow {
  id: number;
  user_id: number;
  label: string;
  description: string;
  /** JSON array of field definitions (src/forms/fields.ts). */
  fields: string;
  submit_in_zone: number;
  version: number;
  /** 1: the user's default template (migration 041); at most one per user. */
  is_default: number;
  created: number;
  updated: number;
}

export interface TemplateDraft {
  label: string;
  description: string;
  fields: string;
  submit_in_zone: boolean;
  is_default?: boolean;
}

export class FormTemplateStore {
  private getStmt;
  private listStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private clearDefaultStmt;

  constructor(private db: DB) {
    this.getStmt = db.prepare<[number, number], FormTemplateRow>('SELECT * FROM form_templates WHERE id = ? AND user_id = ?');
    this.listStmt = db.prepare<[number], FormTemplateRow>('SELECT * FROM form_templates WHERE user_id = ? ORDER BY id');
    this.insertStmt = db.prepare('INSERT INTO form_templates (user_id, label, description, fields, submit_in_zone, is_default, version, created, updated) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)');
    this.updateStmt = db.prepare('UPDATE form_templates SET label = ?, description = ?, fields = ?, submit_in_zone = ?, is_default = ?, version = version + 1, updated = ? WHERE id = ? AND user_id = ?');
    this.clearDefaultStmt = db.prepare('UPDATE form_templates SET is_default = 0 WHERE user_id = ? AND is_default = 1 AND id <> ?');
    this.deleteStmt = db.prepare('DELETE FROM form_templates WHERE id = ? AND user_id = ?');
  }

  get(userId: number, id: number): FormTemplateRow | undefined {
    return this.getStmt.get(id, userId);
  }
  list(userId: number): FormTemplateRow[] {
    return this.listStmt.all(userId);
  }
  create(userId: number, d: TemplateDraft, now: number): number {
    return this.db.transaction(() => {
      const id = Number(this.insertStmt.run(userId, d.label, d.description, d.fields, d.submit_in_zone ? 1 : 0, d.is_default ? 1 : 0, now, now).lastInsertRowid);
      if (d.is_default) this.clearDefaultStmt.run(userId, id);
      return id;
    })();
  }
  update(userId: number, id: number, d: TemplateDraft, now: number): boolean {
    return this.db.transaction(() => {
      const changed = this.updateStmt.run(d.label, d.description, d.fields, d.submit_in_zone ? 1 : 0, d.is_default ? 1 : 0, now, id, userId).changes > 0;
      if (changed && d.is_default) this.clearDefaultStmt.run(userId, id);
      return changed;
    })();
  }
  /**
   * What uses a template (form/template/stats/read): tasks whose form was made from it, counted by
   * task status (statuses without such tasks are absent), and the task schedules that name it.
   */
  usage(userId: number, id: number): { tasks: Map<string, number>; scheduled: number } {
    const rows = this.db
      .prepare<[number, number], { status: string; n: number }>(
        'SELECT t.status, COUNT(*) AS n FROM forms f JOIN tasks t ON t.id = f.task_id WHERE f.user_id = ? AND f.template_id = ? GROUP BY t.status',
      )
      .all(userId, id);
    const scheduled = this.db.prepare<[number, number], number>('SELECT COUNT(*) FROM task_schedules WHERE user_id = ? AND form_template_id = ?').pluck().get(userId, id)!;
    return { tasks: new Map(rows.map((r) => [r.status, r.n])), scheduled };
  }
  /** Forms made from it keep their copy; their template_id becomes null (foreign key ON DELETE SET NULL). */
  delete(userId: number, id: number): boolean {
    return this.deleteStmt.run(id, userId).changes > 0;
  }
}
