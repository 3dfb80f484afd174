/**
 * The rights vocabulary (spec, Authentication §5): the rights a master can give its sub-users.
 * Shared by the API (src/api/rights.ts maps each right to the calls it guards), the admin command
 * and account creation.
 */
export const RIGHT_NAMES = [
  'task_update',
  'place_update',
  'zone_update',
  'employee_update',
  'checkin_update',
  'tracker_configure',
  'tracker_register',
  'tracker_update',
  'reports',
  /** Master users only: no sub-user can hold it. */
  'admin',
  /** Guards no call: makes the master's balance and bonus visible in user/get_info. */
  'payment_create',
  /** Tag changes (referenced by the spec; the calls are ours, docs/directories.md). */
  'tag_update',
  /** Form template changes (ours, docs/forms.md). */
  'form_template_update',
] as const;

export type Right = (typeof RIGHT_NAMES)[number];

/** Rights a sub-user can be given (admin is the master's alone). */
export const GRANTABLE_RIGHTS: Right[] = RIGHT_NAMES.filter((r) => r !== 'admin');
