/**
 * The field app's forms, files and check-ins (docs/field-app.md, "Forms and check-ins"): the app
 * announces files of its forms and check-ins, sends their bytes to the upload url the files code
 * answers, submits task forms (src/forms submitForm, origin employee) and creates check-ins with an
 * optional form made from a template (src/checkins createCheckin). Device token only; every form,
 * task and file is the app's tracker's.
 */
import { idempotencyKey, once } from './app-once.ts';
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { parseDateTime } from '../core/time.ts';
import { createCheckin, MAX_CHECKIN_FILES, MAX_COMMENT, notFreeToBind } from '../checkins/checkins.ts';
import { createCheckinFile, createFormFile, freeToBind, MAX_NAME } from '../files/files.ts';
import { submitForm } from '../forms/submit.ts';
import { createCheckinForm } from '../forms/task-forms.ts';
import { formView } from '../forms/view.ts';
import type { FormRow } from '../store/forms.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { defineCall, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { createdAnswer, fileDeps } from './file.ts';

const location = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) });
const time = z.string().optional();
const values = z.record(z.string(), z.unknown());
const size = z.number().int().min(1).max(2_147_483_647);
const filename = z.string().min(1).max(MAX_NAME).nullable().optional();

const formDeps = (services: Services) => ({ store: services.store, geocoder: services.geocoder, now: services.now });

/** When the app says it happened (the user's zone); now without one. */
function when(services: Services, raw: string | undefined, tz: string): number {
  if (raw === undefined) return services.now();
  const ms = parseDateTime(raw, tz);
  if (ms === undefined) throw invalidParams([{ parameter: 'time', error: 'expected yyyy-MM-dd HH:mm:ss' }]);
  return ms;
}

/** The form of a task of the tracker's (201 for other tasks, 201 when it has none). */
function taskForm(services: Services, t: TrackerRow, taskId: number): FormRow {
  const task = services.store.fieldApp.taskOf(t.id, taskId);
  if (!task) throw new DomainError(201, {}, `Not found in the database: task ${taskId} of this tracker`);
  const form = services.store.forms.ofTask(task.id);
  if (!form) throw new DomainError(201, {}, `Not found in the database: task ${taskId} has no form`);
  return form;
}

/** A form the app may fill: its tracker's task form, or a check-in form it made (201 otherwise). */
function appForm(services: Services, owner: UserRow, t: TrackerRow, formId: number): FormRow {
  const form = services.store.forms.get(owner.id, formId);
  const task = form?.task_id == null ? undefined : services.store.fieldApp.taskOf(t.id, form.task_id);
  if (!form || (form.task_id === null ? form.tracker_id !== t.id : !task)) throw new DomainError(201, {}, `Not found in the database: form ${formId} of this tracker`);
  return form;
}

const formFileCreate = defineCall({
  path: 'app/form/file/create',
  summary: "Announce a file for a field of one of the tracker's forms (form/file/create's rules); answers the upload url, token and expiry.",
  access: 'device',
  params: z.object({ form_id: id, field_id: z.string().min(1).max(19), size, filename }),
  async handler({ services, device, owner, user, params, request }) {
    appForm(services, owner, device.tracker, params.form_id);
    const created = await createFormFile(fileDeps(services), owner, { formId: params.form_id, fieldId: params.field_id, size: params.size, filename: params.filename });
    return createdAnswer(services, request, user.time_zone, created);
  },
});

const checkinFileCreate = defineCall({
  path: 'app/checkin/file/create',
  summary: "Announce a file (image or other) for the tracker's next check-in; answers the upload url, token and expiry.",
  access: 'device',
  params: z.object({ size, filename, type: z.enum(['image', 'file']) }),
  async handler({ services, device, owner, user, params, request }) {
    const created = await createCheckinFile(fileDeps(services), owner, { trackerId: device.tracker.id, size: params.size, filename: params.filename, type: params.type });
    return createdAnswer(services, request, user.time_zone, created);
  },
});

const checkinFormCreate = defineCall({
  path: 'app/checkin/form/create',
  summary: 'A check-in form from a template of the owner (201 otherwise), for files to be announced before app/checkin/create.',
  access: 'device',
  params: z.object({ template_id: id }),
  async handler({ services, device, owner, user, params }) {
    const formId = await createCheckinForm(formDeps(services), owner.id, params.template_id, device.tracker.id);
    return { value: formView(services.store.forms.get(owner.id, formId)!, user.time_zone) };
  },
});

const formSubmit = defineCall({
  path: 'app/form/submit',
  summary: "Submit the form of a task of the tracker: 242 with errors [{field_id, code, error}] for invalid values, 13 outside the task zone when the form asks for it; answers the form.",
  access: 'device',
  params: z.object({ task_id: id, values, location, time, idempotency_key: idempotencyKey }),
  handler: ({ services, device, owner, user, params }) => once(services, device, 'app/form/submit', params.idempotency_key, async () => {
    const form = taskForm(services, device.tracker, params.task_id);
    const r = await submitForm(formDeps(services), {
      userId: owner.id,
      formId: form.id,
      values: params.values,
      location: params.location,
      time: when(services, params.time, user.time_zone),
      origin: 'employee',
      timeZone: user.time_zone,
      trackerId: device.tracker.id,
    });
    return { value: formView(r.form, user.time_zone) };
  }),
});

const checkinCreate = defineCall({
  path: 'app/checkin/create',
  summary:
    'A check-in of the tracker: location, comment, uploaded check-in files, and optionally a form (form_id from app/checkin/form/create, or template_id) with its values, validated as submissions (242). Answers its id and the form.',
  access: 'device',
  params: z.object({
    location: location.extend({ precision: z.number().int().min(0).max(1_000_000).nullable().optional() }),
    time,
    comment: z.string().max(MAX_COMMENT).nullable().optional(),
    file_ids: z.array(id).max(MAX_CHECKIN_FILES).default([]),
    form: z.object({ form_id: id.optional(), template_id: id.optional(), values }).optional(),
    idempotency_key: idempotencyKey,
  }),
  handler: ({ services, device, owner, user, params }) => once(services, device, 'app/checkin/create', params.idempotency_key, async () => {
    const t = device.tracker;
    const deps = formDeps(services);
    const at = when(services, params.time, user.time_zone);
    let formId: number | null = null;
    let made = false;
    // The files are checked before the form is submitted: a submitted check-in form counts as used,
    // so the check-in must not fail after it (createCheckin checks them again as it binds them).
    const unbound = params.file_ids.filter((f) => {
      const row = services.store.files.get(owner.id, f);
      return !row || !freeToBind(row, t.id);
    });
    if (unbound.length) throw notFreeToBind(unbound);
    if (params.form) {
      const f = params.form;
      if ((f.form_id === undefined) === (f.template_id === undefined)) throw invalidParams([{ parameter: 'form', error: 'give form_id or template_id' }]);
      if (f.form_id !== undefined) {
        const form = appForm(services, owner, t, f.form_id);
        if (form.task_id !== null) throw invalidParams([{ parameter: 'form.form_id', error: 'is a task form: submit it with app/form/submit' }]);
        // Check-in forms are submitted only here, with their check-in: a submitted one is used.
        if (form.submitted !== null) throw new DomainError(247, {}, `Entity already exists: form ${form.id} belongs to a check-in`);
        formId = form.id;
      } else {
        formId = await createCheckinForm(deps, owner.id, f.template_id!, t.id);
        made = true;
      }
    }
    try {
      if (formId !== null) await submitForm(deps, { userId: owner.id, formId, values: params.form!.values, location: params.location, time: at, origin: 'employee', timeZone: user.time_zone, trackerId: t.id });
      const checkinId = await createCheckin(deps, { trackerId: t.id, time: at, location: params.location, comment: params.comment ?? null, fileIds: params.file_ids, formId });
      const form = formId === null ? null : services.store.forms.get(owner.id, formId)!;
      return { id: checkinId, form: form ? formView(form, user.time_zone) : null };
    } catch (e) {
      // A form made for this call goes with the refusal: nothing is left behind.
      if (made) services.store.forms.delete(owner.id, formId!);
      throw e;
    }
  }),
});

export const appFormCalls = [formFileCreate, checkinFileCreate, checkinFormCreate, formSubmit, checkinCreate];
