/**
 * Sub-user rights, one source of truth (spec, Authentication §5): each right and the calls it
 * guards. Calls declare their right; a test checks every declaration against this table and
 * that a sub-user lacking the right gets code 13. New calls join the table as they land.
 */
import { DomainError } from '../core/errors.ts';
import { RIGHT_NAMES, type Right } from '../accounts/rights.ts';
import type { UserRow } from '../store/users.ts';

export { GRANTABLE_RIGHTS, RIGHT_NAMES, type Right } from '../accounts/rights.ts';

export const RIGHTS = {
  task_update: ['task/assign', 'task/batch_convert', 'task/create', 'task/delete', 'task/transmute', 'task/update', 'task/form/create', 'task/form/delete', 'task/form/values/update', 'task/route/create', 'task/route/update', 'task/route/delete', 'task/schedule/create', 'task/schedule/update', 'task/schedule/delete', 'task/schedule/route/create', 'task/schedule/route/update', 'task/schedule/route/delete', 'task/schedule/checkpoint/delete', 'task/schedule/checkpoint/transmute'],
  place_update: ['place/create', 'place/update', 'place/delete', 'place/batch_convert', 'place/upload'],
  zone_update: ['zone/create', 'zone/update', 'zone/delete', 'zone/batch_convert', 'zone/upload', 'zone/point/update'],
  employee_update: ['employee/create', 'employee/update', 'employee/delete', 'employee/batch_convert', 'department/create', 'department/update', 'department/delete', 'checkin/read', 'checkin/list'],
  checkin_update: ['checkin/delete'],
  tracker_configure: ['tracker/change_phone', 'tracker/processing_settings/update'],
  tracker_register: ['tracker/corrupt'],
  tracker_update: ['tracker/settings/update', 'status/create', 'status/update', 'status/delete', 'status/listing/create', 'status/listing/update', 'status/listing/delete', 'status/listing/tracker/assign', 'tracker/app/activation/create', 'tracker/app/revoke'],
  reports: ['report/tracker/generate', 'report/tracker/list', 'report/tracker/status', 'report/tracker/retrieve', 'report/tracker/download', 'report/tracker/delete', 'report/schedule/create', 'report/schedule/read', 'report/schedule/update', 'report/schedule/delete', 'report/schedule/list'],
  /** Master users only: no sub-user can hold it. */
  admin: ['retranslator/create', 'retranslator/update', 'retranslator/delete', 'tracker/retranslator/bind', 'tracker/retranslator/unbind', 'tracker/delete', 'entity/fields/create', 'entity/fields/delete', 'user/session/delivery/create', 'user/session/delivery/read', 'user/session/delivery/revoke'],
  /** Guards no call: makes the master's balance and bonus visible in user/get_info. */
  payment_create: [],
  /** Tag changes (referenced by the spec; the calls are ours, docs/directories.md). */
  tag_update: ['tag/create', 'tag/update', 'tag/delete'],
  /** Form template changes (ours, docs/forms.md). */
  form_template_update: ['form/template/create', 'form/template/update', 'form/template/delete'],
} as const satisfies Record<Right, readonly string[]>;

/** The right guarding `path`, if the table names one. */
export function rightFor(path: string): Right | undefined {
  for (const r of RIGHT_NAMES) if ((RIGHTS[r] as readonly string[]).includes(path)) return r;
  return undefined;
}

/** Whether the user may use what `right` guards: a master always, a sub-user when granted it. */
export function holdsRight(user: UserRow, right: string): boolean {
  return !user.parent_id || (JSON.parse(user.rights) as string[]).includes(right);
}

/** 13 unless the user holds `right`; `why` ends the description ("to change a place's avatar"). */
export function requireRight(user: UserRow, right: string, why?: string): void {
  if (!holdsRight(user, right)) throw new DomainError(13, {}, `Operation not permitted: the right ${right} is required${why ? ` ${why}` : ''}`);
}

/**
 * The right that guards reading check-ins (checkin/read's): a check-in's files and its form are read
 * only with it too (issue 23: a file bound to an entity is readable only by whoever may read it).
 */
export const CHECKIN_READ_RIGHT: Right = rightFor('checkin/read')!;
