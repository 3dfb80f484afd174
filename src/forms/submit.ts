/**
 * Submitting a form's values (issue 11; docs/forms.md): the field app's submission (origin
 * employee) and a supervisor's correction of a submitted form. Validation is src/forms/values.ts;
 * this adds ownership, the task zone rule (submit_in_zone), the submit location and its address,
 * the files' `submitted` marks, and the task's new outcome, all written in one transaction.
 */
import { DomainError, invalidParams } from '../core/errors.ts';
import { distanceM } from '../core/geo.ts';
import { formatDateTime } from '../core/time.ts';
import { addressFor } from '../imports/geocode.ts';
import type { DataStore } from '../store/contract.ts';
import type { FormRow } from '../store/forms.ts';
import type { TaskChange } from '../telemetry/task-judge.ts';
import type { FormDeps } from './deps.ts';
import type { Field } from './fields.ts';
import { judgeTaskAgain } from './task-forms.ts';
import { checkValues, unknownFieldIds, type Checked } from './values.ts';

export interface SubmitInput {
  /** The master user owning the form (another user's form is 201). */
  userId: number;
  formId: number;
  /** Field id -> value object (docs/forms.md, "Value shapes"). */
  values: Record<string, unknown>;
  location: { lat: number; lng: number };
  /** When the form was filled (ms UTC); a time after now counts as now. */
  time: number;
  origin: 'employee' | 'supervisor';
  /** The user's zone: "today" of date fields. */
  timeZone: string;
  /** The submitting tracker (the field app's); default the form's. */
  trackerId?: number | null;
}

export interface SubmitResult {
  form: FormRow;
  /** The task's outcome written after the submission (empty: no task, or unassigned). */
  changes: TaskChange[];
}

export const fieldsOf = (form: Pick<FormRow, 'fields'>): Field[] => JSON.parse(form.fields) as Field[];

/** The owner's form, or 201. */
export async function ownForm(data: DataStore, userId: number, formId: number): Promise<FormRow> {
  const form = await data.forms.get(userId, formId);
  if (!form) throw new DomainError(201, {}, `Not found in the database: form ${formId}`);
  return form;
}

/**
 * Validate and store a submission. Refusals: 201 (no such form), 7 (a value for a field the form
 * does not have, naming `values.<id>`), 242 with `errors: [{field_id, code, error}]`, 13 (the form
 * can be submitted only in the task zone and the location is outside it).
 */
export async function submitForm(deps: FormDeps, input: SubmitInput): Promise<SubmitResult> {
  const data = deps.store.data;
  const time = Math.min(input.time, deps.now());
  const first = await ownForm(data, input.userId, input.formId);
  await checkZone(data, input, first);
  // The address first (the geocoder may take a while); the checks and writes then run at once.
  const address = await addressFor(deps.geocoder, input.location.lat, input.location.lng, '');
  return data.transaction(async (tx) => {
    const form = await ownForm(tx, input.userId, input.formId);
    const checked = validate(deps, input.userId, form, input.values, formatDateTime(time, input.timeZone).slice(0, 10));
    await tx.forms.submit(form.id, {
      values: JSON.stringify(checked.values),
      time,
      lat: input.location.lat,
      lng: input.location.lng,
      address,
      trackerId: input.trackerId ?? null,
      origin: input.origin,
    });
    await tx.fileFacts.markSubmitted(form.id, checked.files);
    // The event log (docs/events.md): for the submitting tracker, else the form's or its task's.
    const trackerId = input.trackerId ?? form.tracker_id ?? (form.task_id === null ? null : (await tx.tasks.get(input.userId, form.task_id))?.tracker_id ?? null);
    if (trackerId !== null) await tx.events.record({ trackerId, type: 'form_submitted', time, lat: input.location.lat, lng: input.location.lng, extra: { form_id: form.id, form_label: form.label, task_id: form.task_id } });
    const changes = form.task_id === null ? [] : judgeTaskAgain(deps, form.task_id);
    return { form: (await tx.forms.get(input.userId, form.id))!, changes };
  });
}

/**
 * A supervisor corrects the values of a submitted form (task/form/values/update): validated the same
 * way, "today" being the day of the submission; the submission's time, place and the task outcome
 * stay. 255 when the form was never submitted.
 */
export async function correctValues(deps: FormDeps, input: { userId: number; formId: number; values: Record<string, unknown>; timeZone: string }): Promise<FormRow> {
  return deps.store.data.transaction(async (tx) => {
    const form = await ownForm(tx, input.userId, input.formId);
    if (form.submitted === null) throw new DomainError(255, {}, `Invalid task state: form ${form.id} has not been submitted yet; only submitted values can be corrected`);
    const checked = validate(deps, input.userId, form, input.values, formatDateTime(form.submitted, input.timeZone).slice(0, 10));
    await tx.forms.setValues(form.id, JSON.stringify(checked.values));
    await tx.fileFacts.markSubmitted(form.id, checked.files);
    return (await tx.forms.get(input.userId, form.id))!;
  });
}

/**
 * The values checked against the form's fields. Named files are looked up synchronously (the
 * values checker is synchronous: src/forms/values.ts, core/files.ts FileLookup); inside a
 * `store.data` transaction those reads join it (SQLite).
 */
function validate(deps: FormDeps, userId: number, form: FormRow, values: Record<string, unknown>, today: string): Checked {
  const fields = fieldsOf(form);
  const unknown = unknownFieldIds(fields, values);
  if (unknown.length) throw invalidParams(unknown.map((id) => ({ parameter: `values.${id}`, error: `the form has no field ${id}` })));
  const r = checkValues(fields, values, { userId, formId: form.id, files: deps.files ?? deps.store.fileFacts.lookup, today });
  if (!r.ok) throw new DomainError(242, { errors: r.errors }, `Validation error: ${r.errors.map((e) => e.field_id).join(', ')}`);
  return r.checked;
}

/** submit_in_zone: the location must lie within the task's circle (13 otherwise, with the distance). */
async function checkZone(data: DataStore, input: SubmitInput, form: FormRow): Promise<void> {
  if (!form.submit_in_zone || form.task_id === null) return;
  const task = await data.tasks.get(input.userId, form.task_id);
  if (!task || task.lat === null || task.lng === null || task.radius === null) return;
  const d = distanceM(input.location.lat, input.location.lng, task.lat, task.lng);
  if (d > task.radius) {
    throw new DomainError(13, { distance: Math.round(d), radius: task.radius }, `Operation not permitted: form ${form.id} can be submitted only in the task zone (${Math.round(d)} m from its center, radius ${task.radius} m)`);
  }
}
