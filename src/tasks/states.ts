/**
 * Task state rules (spec: States and transitions). The API moves a task only between unassigned
 * and assigned; arrived, done, failed, delayed and faulty are set by the telemetry core alone
 * (TaskStore.setOutcome).
 */
import { DomainError } from '../core/errors.ts';
import type { TaskRow, TaskStatus } from '../store/tasks.ts';

/** States in which task/assign, task/update and task/transmute are allowed. */
export const EDITABLE: readonly TaskStatus[] = ['unassigned', 'assigned'];

export const isEditable = (s: TaskStatus) => EDITABLE.includes(s);

/** Status right after task/create (not shown in the spec; docs/tasks-api.md): assigned with a tracker, else unassigned. */
export const initialStatus = (trackerId: number | null): TaskStatus => (trackerId === null ? 'unassigned' : 'assigned');

/** 255 unless every row is unassigned or assigned. */
export function requireEditable(rows: TaskRow[], what: string): void {
  const bad = rows.find((r) => !isEditable(r.status));
  if (bad) throw new DomainError(255, {}, `Invalid task state: ${bad.id === rows[0].id ? what : `checkpoint ${bad.id}`} is ${bad.status}; only unassigned or assigned ones can be changed`);
}
