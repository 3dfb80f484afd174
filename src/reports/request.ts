/**
 * What report/tracker/generate and the report schedules (docs/schedules.md) both check of a report
 * request's subjects, so a scheduled report is refused for the same reasons as one asked by hand.
 */
import { DomainError } from '../core/errors.ts';
import type { DataStore } from '../store/contract.ts';
import type { Store } from '../store/index.ts';
import type { TrackerRow } from '../store/trackers.ts';

export interface ReportSubjects {
  trackers?: number[];
  employees?: number[];
}

/**
 * The trackers the report is about: owned, live, not blocked (217), with reports in their tariff (236).
 * Through the asynchronous store (also a transaction's `tx`).
 */
export async function reportTrackersOf(data: DataStore, ownerId: number, q: ReportSubjects): Promise<number[]> {
  const employees = q.employees ? await Promise.all(q.employees.map((e) => data.employees.get(ownerId, e))) : undefined;
  const ids = trackerIds(q, employees);
  const rows = present(ids, await Promise.all(ids.map((t) => data.trackers.get(ownerId, t))));
  withReports(rows, await Promise.all(rows.map((t) => data.tariffs.get(t.tariff_id))));
  return ids;
}

/**
 * The same checks through the synchronous store, for the callers that are still synchronous
 * (src/api/report.ts, src/api/report-schedule.ts); they move to `reportTrackersOf`.
 */
export function reportTrackers(store: Store, ownerId: number, q: ReportSubjects): number[] {
  const ids = trackerIds(q, q.employees?.map((e) => store.employees.get(ownerId, e)));
  const rows = present(ids, ids.map((t) => store.trackers.get(ownerId, t)));
  withReports(rows, rows.map((t) => store.tariffs.get(t.tariff_id)));
  return ids;
}

/** The trackers asked for, or those of the employees asked for (217 for one without a tracker or unknown). */
function trackerIds(q: ReportSubjects, employees: Array<{ tracker_id: number | null } | undefined> | undefined): number[] {
  if (!q.employees) return [...new Set(q.trackers!)];
  const unknown = q.employees.filter((_, k) => !employees![k]?.tracker_id);
  if (unknown.length) throw new DomainError(217, { ids: unknown }, `List contains non-existent entities: employees without a tracker or unknown: ${unknown.join(', ')}`);
  return [...new Set(employees!.map((e) => e!.tracker_id!))];
}

/** 217 naming the trackers not found (or blocked); the rows otherwise. */
function present(ids: number[], rows: Array<TrackerRow | undefined>): TrackerRow[] {
  const missing = ids.filter((_, k) => !rows[k] || rows[k]!.blocked);
  if (missing.length) throw new DomainError(217, { ids: missing }, `List contains non-existent entities: trackers ${missing.join(', ')}`);
  return rows as TrackerRow[];
}

/** 236 naming the trackers whose tariff has no reports (`tariffs`: each row's tariff). */
function withReports(rows: TrackerRow[], tariffs: Array<{ has_reports: unknown } | undefined>): void {
  const noReports = rows.filter((_, k) => !tariffs[k]?.has_reports).map((t) => t.id);
  if (noReports.length) throw new DomainError(236, { ids: noReports }, `Feature unavailable due to tariff restrictions: no reports for trackers ${noReports.join(', ')}`);
}
