/** Report schedules (migration 030; docs/schedules.md "Report schedules"). */
import type { DB } from './db.ts';

export type ReportPeriod = 'previous_day' | 'previous_week' | 'previous_month';

export interface ReportScheduleRow {
  id: number;
  owner_id: number;
  user_id: number;
  title: string | null;
  plugin: string;
  trackers: string | null;
  employees: string | null;
  time_filter: string | null;
  geocoder: string | null;
  period: ReportPeriod;
  run_time: string;
  format: 'xlsx' | 'pdf';
  recipients: string;
  enabled: number;
  last_period: string | null;
  last_run: number | null;
  last_error: string | null;
  report_id: number | null;
  mail_attempts: number;
  /** JSON {type: 'weekdays', weekdays} or {type: 'month_days', month_days}: the days it fires on; null: the period's default (migration 041). */
  run_days: string | null;
  /** The last report queued, also once mailed (migration 041). */
  last_report_id: number | null;
  created: number;
  updated: number;
}

/** The columns a user writes (last_period too: set to the period already due, so nothing fires at once). */
export type ReportScheduleDraft = Pick<ReportScheduleRow, 'title' | 'plugin' | 'trackers' | 'employees' | 'time_filter' | 'geocoder' | 'period' | 'run_time' | 'format' | 'recipients' | 'enabled' | 'last_period' | 'run_days'>;

const COLUMNS = ['title', 'plugin', 'trackers', 'employees', 'time_filter', 'geocoder', 'period', 'run_time', 'format', 'recipients', 'enabled', 'last_period', 'run_days'] as const;

export class ReportScheduleStore {
  private getStmt;
  private listStmt;
  private countStmt;
  private insertStmt;
  private updateStmt;
  private deleteStmt;
  private enabledStmt;
  private pendingStmt;
  private queuedStmt;
  private doneStmt;
  private errorStmt;
  private attemptStmt;

  constructor(private db: DB) {
    this.getStmt = db.prepare<[number, number], ReportScheduleRow>('SELECT * FROM report_schedules WHERE id = ? AND owner_id = ?');
    this.listStmt = db.prepare<[number], ReportScheduleRow>('SELECT * FROM report_schedules WHERE owner_id = ? ORDER BY id');
    this.countStmt = db.prepare<[number], number>('SELECT COUNT(*) FROM report_schedules WHERE owner_id = ?').pluck();
    this.insertStmt = db.prepare(`INSERT INTO report_schedules (owner_id, user_id, ${COLUMNS.join(', ')}, created, updated)
      VALUES (@owner_id, @user_id, ${COLUMNS.map((c) => `@${c}`).join(', ')}, @now, @now)`);
    this.updateStmt = db.prepare(`UPDATE report_schedules SET ${COLUMNS.map((c) => `${c} = @${c}`).join(', ')}, last_error = NULL, updated = @now WHERE id = @id AND owner_id = @owner_id`);
    this.deleteStmt = db.prepare('DELETE FROM report_schedules WHERE id = ? AND owner_id = ?');
    this.enabledStmt = db.prepare<[], ReportScheduleRow>('SELECT * FROM report_schedules WHERE enabled = 1 ORDER BY id');
    this.pendingStmt = db.prepare<[], ReportScheduleRow>('SELECT * FROM report_schedules WHERE report_id IS NOT NULL ORDER BY id');
    this.queuedStmt = db.prepare('UPDATE report_schedules SET last_period = ?, last_run = ?, report_id = ?, last_report_id = COALESCE(?, last_report_id), mail_attempts = 0, last_error = ? WHERE id = ?');
    this.doneStmt = db.prepare('UPDATE report_schedules SET report_id = NULL, last_error = ? WHERE id = ? AND report_id = ?');
    this.errorStmt = db.prepare('UPDATE report_schedules SET last_error = ? WHERE id = ?');
    this.attemptStmt = db.prepare('UPDATE report_schedules SET mail_attempts = mail_attempts + 1, last_error = ? WHERE id = ?');
  }

  get(ownerId: number, id: number): ReportScheduleRow | undefined {
    return this.getStmt.get(id, ownerId);
  }
  list(ownerId: number): ReportScheduleRow[] {
    return this.listStmt.all(ownerId);
  }
  count(ownerId: number): number {
    return this.countStmt.get(ownerId) as number;
  }
  create(ownerId: number, userId: number, d: ReportScheduleDraft, now: number): number {
    return Number(this.insertStmt.run({ ...d, owner_id: ownerId, user_id: userId, now }).lastInsertRowid);
  }
  update(ownerId: number, id: number, d: ReportScheduleDraft, now: number): void {
    this.updateStmt.run({ ...d, id, owner_id: ownerId, now });
  }
  delete(ownerId: number, id: number): void {
    this.deleteStmt.run(id, ownerId);
  }
  /** Every enabled schedule of every user (the runner's round). */
  enabled(): ReportScheduleRow[] {
    return this.enabledStmt.all();
  }
  /** Schedules whose queued report is still to be mailed. */
  pending(): ReportScheduleRow[] {
    return this.pendingStmt.all();
  }
  /** The period was queued (reportId) or skipped (null, with the reason). */
  queued(id: number, period: string, at: number, reportId: number | null, error: string | null): void {
    this.queuedStmt.run(period, at, reportId, reportId, error, id);
  }
  /** The report was mailed (error null) or given up on. */
  done(id: number, reportId: number, error: string | null): void {
    this.doneStmt.run(error, id, reportId);
  }
  setError(id: number, error: string | null): void {
    this.errorStmt.run(error, id);
  }
  /** A mail try failed; the next round tries again. */
  mailFailed(id: number, error: string): void {
    this.attemptStmt.run(error, id);
  }
}
