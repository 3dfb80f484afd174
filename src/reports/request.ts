/**
 * What report/tracker/generate and the report schedules (docs/schedules.md) both check of a report
 * request's subjects, so a scheduled report is refused for the same reasons as one asked by hand.
 */
import { DomainError } from '../core/errors.ts';
import type { Store } from '../store/index.ts';

/** The trackers the report is about: owned, live, not blocked (217), with reports in their tariff (236). */
export function reportTrackers(store: Store, ownerId: number, q: { trackers?: number[]; employees?: number[] }): number[] {
  let ids: number[];
  if (q.employees) {
    const unknown = q.employees.filter((e) => !store.employees.get(ownerId, e)?.tracker_id);
    if (unknown.length) throw new DomainError(217, { ids: unknown }, `List contains non-existent entities: employees without a tracker or unknown: ${unknown.join(', ')}`);
    ids = q.employees.map((e) => store.employees.get(ownerId, e)!.tracker_id!);
  } else ids = q.trackers!;
  ids = [...new Set(ids)];
  const rows = ids.map((t) => store.trackers.get(ownerId, t));
  const missing = ids.filter((_, k) => !rows[k] || rows[k]!.blocked);
  if (missing.length) throw new DomainError(217, { ids: missing }, `List contains non-existent entities: trackers ${missing.join(', ')}`);
  const noReports = rows.filter((t) => !store.tariffs.get(t!.tariff_id)?.has_reports).map((t) => t!.id);
  if (noReports.length) throw new DomainError(236, { ids: noReports }, `Feature unavailable due to tariff restrictions: no reports for trackers ${noReports.join(', ')}`);
  return ids;
}
