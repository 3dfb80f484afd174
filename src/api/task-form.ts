/**
 * Forms on tasks (spec: Task forms, base path /task/form; Forms, base path /form) and ours:
 * task/form/values/update, a supervisor's correction of submitted values (docs/forms.md).
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { formatDateTime, isoDuration, parseDateTime } from '../core/time.ts';
import { downloadName, formReport } from '../forms/export.ts';
import { correctValues, ownForm } from '../forms/submit.ts';
import { inlineReportFiles, type FileFormat } from '../reports/render/index.ts';
import { attachForm, detachForm } from '../forms/task-forms.ts';
import { formView } from '../forms/view.ts';
import type { FastifyRequest } from 'fastify';
import { FORM_ORDER_KEYS, FORM_PERIODS, FORM_TEXT_FILTERS, type FormListRow, type FormPeriod, type FormRow, type FormTextFilter } from '../store/forms.ts';
import type { Store } from '../store/index.ts';
import type { UserRow } from '../store/users.ts';
import { areasAt } from '../telemetry/geofence/at-point.ts';
import { dateTime } from '../tasks/input.ts';
import { baseUrl, fileView, isCheckinForm } from './file.ts';
import { defineCall, FileAnswer, type Services } from './kernel.ts';
import { id } from './schemas.ts';
import { ownTask } from './task.ts';
import { CHECKIN_READ_RIGHT, requireRight } from './rights.ts';

/** The files of a form as File objects with bindings and previews (spec: File object; src/api/file.ts). */
export async function formFiles(services: Services, request: FastifyRequest, form: FormRow, tz: string): Promise<Array<Record<string, unknown>>> {
  const base = baseUrl(services, request);
  return (await services.store.data.files.ofForm(form.id)).map((f) => fileView(f, { timeZone: tz, base, details: true }));
}

/** A form as a file (docs/reports.md, "Files"): one row per field, files as links, rendered through ReportFiles. */
async function formFile(services: Services, request: FastifyRequest, user: UserRow, form: FormRow, format: FileFormat): Promise<FileAnswer> {
  const base = baseUrl(services, request);
  const data = services.store.data;
  const task = form.task_id === null ? undefined : await data.tasks.get(form.user_id, form.task_id);
  const files = (await data.files.ofForm(form.id)).map((f) => ({ id: f.id, name: f.name, url: (fileView(f, { timeZone: 'UTC', base }).download_url as string | null) ?? null }));
  const report = formReport(form, {
    now: services.now(),
    locale: user.locale,
    timeZone: user.time_zone,
    measurementSystem: user.measurement_system,
    task: task ? { id: task.id, label: task.label } : null,
    files,
  });
  // One form is a page or two: no title page and contents before it.
  const file = await (services.reportFiles ?? inlineReportFiles).render(format, report, { headless: true });
  return new FileAnswer(file.body, file.contentType, downloadName(form.label, `form-${form.id}`, file.extension));
}

const create = defineCall({
  path: 'task/form/create',
  summary: 'Attach a form made from a template to a task (unassigned, assigned or arrived).',
  right: 'task_update',
  params: z.object({ task_id: id, template_id: id }),
  async handler({ services, owner, params }) {
    await attachForm(services, owner.id, await ownTask(services.store.data, owner, params.task_id), params.template_id);
  },
});

const remove = defineCall({
  path: 'task/form/delete',
  summary: "Delete a task's form with its values and files (unassigned, assigned or arrived).",
  right: 'task_update',
  params: z.object({ task_id: id }),
  async handler({ services, owner, params }) {
    await detachForm(services, owner.id, await ownTask(services.store.data, owner, params.task_id));
  },
});

const read = defineCall({
  path: 'task/form/read',
  summary: "A task's form (null when none) and the files of its fields.",
  params: z.object({ task_id: id }),
  async handler({ services, owner, user, params, request }) {
    const task = await ownTask(services.store.data, owner, params.task_id);
    const form = await services.store.data.forms.ofTask(task.id);
    if (!form) return { value: null, files: [] };
    return { value: formView(form, user.time_zone), files: await formFiles(services, request, form, user.time_zone) };
  },
});

/** A form of the owner (201 otherwise); a check-in's form only with the right that guards check-ins (13; issue 23). */
async function readableForm(services: Services, user: UserRow, ownerId: number, formId: number): Promise<FormRow> {
  const form = await ownForm(services.store.data, ownerId, formId);
  if (isCheckinForm(form)) requireRight(user, CHECKIN_READ_RIGHT, `to read check-in form ${form.id}`);
  return form;
}

const formRead = defineCall({
  path: 'form/read',
  summary: 'A form (of a task or a check-in) and the files of its fields.',
  params: z.object({ id }),
  async handler({ services, owner, user, params, request }) {
    const form = await readableForm(services, user, owner.id, params.id);
    return { value: formView(form, user.time_zone), files: await formFiles(services, request, form, user.time_zone) };
  },
});

const download = defineCall({
  path: 'task/form/download',
  summary: "A task's form as a file (xls, csv or pdf): one row per field with its label, type and value, files as download links. xls is answered as xlsx (docs/reports.md). 201 for no task or no form.",
  params: z.object({ task_id: id, format: z.enum(['xls', 'csv', 'pdf']) }),
  async handler({ services, owner, user, params, request }) {
    const task = await ownTask(services.store.data, owner, params.task_id);
    const form = await services.store.data.forms.ofTask(task.id);
    if (!form) throw new DomainError(201, {}, `Not found in the database: task ${task.id} has no form`);
    return formFile(services, request, user, form, params.format);
  },
});

const formDownload = defineCall({
  path: 'form/download',
  summary: 'A form (of a task or a check-in) as a file (pdf or xlsx): one row per field, files as download links. 201 for no such form.',
  params: z.object({ id, format: z.enum(['pdf', 'xlsx']) }),
  async handler({ services, owner, user, params, request }) {
    return formFile(services, request, user, await readableForm(services, user, owner.id, params.id), params.format);
  },
});

const valuesUpdate = defineCall({
  path: 'task/form/values/update',
  summary: 'Correct the values of a submitted task form (validated as a submission: 242 with field errors).',
  right: 'task_update',
  params: z.object({ task_id: id, values: z.record(z.string(), z.unknown()) }),
  async handler({ services, owner, user, params }) {
    const task = await ownTask(services.store.data, owner, params.task_id);
    const form = await services.store.data.forms.ofTask(task.id);
    if (!form) throw new DomainError(201, {}, `Not found in the database: task ${task.id} has no form`);
    await correctValues(services, { userId: owner.id, formId: form.id, values: params.values, timeZone: user.time_zone });
  },
});

const period = z.object({ from: dateTime, to: dateTime }).nullable().optional();
const text = z.string().max(256).nullable().optional();
const listParams = z.object({
  form_template_id: id.nullable().optional(),
  // The public documentation's name of form_template_id (the spec's); taken when that is absent.
  template_id: id.nullable().optional(),
  task_ids: z.array(id).max(500).nullable().optional(),
  order_by: z.enum(FORM_ORDER_KEYS).nullable().optional(),
  ascending: z.boolean(),
  include_unsubmitted: z.boolean(),
  filters: z
    .object({ ...(Object.fromEntries(FORM_TEXT_FILTERS.map((k) => [k, text])) as Record<FormTextFilter, typeof text>), task_id: id.nullable().optional() })
    .nullable()
    .optional(),
  ...(Object.fromEntries(FORM_PERIODS.map((k) => [k, period])) as Record<FormPeriod, typeof period>),
  offset: z.number().int().min(0).max(2_147_483_647).nullable().optional(),
  limit: z.number().int().min(0).max(1000).nullable().optional(),
});

const list = defineCall({
  path: 'task/form/list',
  summary: 'Task forms of a template and/or of given tasks, with task, tracker, employee and the places and zones at the submit location.',
  params: listParams,
  async handler({ services, owner, user, params: q }) {
    const { store } = services;
    const data = store.data;
    const tz = user.time_zone;
    const p = { ...q, form_template_id: q.form_template_id ?? q.template_id };
    if ((p.form_template_id ?? null) === null && (p.task_ids ?? null) === null) {
      throw invalidParams([{ parameter: 'form_template_id', error: 'form_template_id or task_ids is required' }]);
    }
    if (p.form_template_id != null && !(await data.formTemplates.get(owner.id, p.form_template_id))) throw new DomainError(204, {}, `Entity not found: form template ${p.form_template_id}`);
    const periods: Partial<Record<FormPeriod, { from: number; to: number }>> = {};
    const errors: Array<{ parameter: string; error: string }> = [];
    for (const k of FORM_PERIODS) {
      const v = p[k];
      if (!v) continue;
      const from = parseDateTime(v.from, tz);
      const to = parseDateTime(v.to, tz);
      if (from === undefined) errors.push({ parameter: `${k}.from`, error: 'not a valid date/time' });
      if (to === undefined) errors.push({ parameter: `${k}.to`, error: 'not a valid date/time' });
      else if (from !== undefined && to < from) errors.push({ parameter: `${k}.to`, error: 'must not be before from' });
      if (from !== undefined && to !== undefined) periods[k] = { from, to };
    }
    if (errors.length) throw invalidParams(errors);
    const textFilters: Partial<Record<FormTextFilter, string>> = {};
    for (const k of FORM_TEXT_FILTERS) {
      const v = p.filters?.[k];
      if (v) textFilters[k] = v;
    }
    const { rows, count } = await data.forms.list({
      userId: owner.id,
      templateId: p.form_template_id ?? undefined,
      taskIds: p.task_ids ?? undefined,
      orderBy: p.order_by ?? 'submitted',
      ascending: p.ascending,
      includeUnsubmitted: p.include_unsubmitted,
      text: textFilters,
      taskId: p.filters?.task_id ?? undefined,
      periods,
      offset: p.offset ?? undefined,
      limit: p.limit ?? 1000,
    });
    return { list: await listItems(store, owner.id, rows, tz), count };
  },
});

/** The places and zones at each submit location: the geofence index of the telemetry core (synchronous, src/telemetry). */
async function listItems(store: Store, ownerId: number, rows: FormListRow[], tz: string): Promise<Array<Record<string, unknown>>> {
  const when = (ms: number | null) => (ms === null ? null : formatDateTime(ms, tz));
  const hits = areasAt(store).atAll(ownerId, rows.map((r) => (r.submitted === null || r.submit_lat === null || r.submit_lng === null ? null : { lat: r.submit_lat, lng: r.submit_lng })));
  const zoneLabels = await store.data.forms.geoLabels(ownerId, 'zone', [...new Set(hits.flatMap((h) => h?.zones ?? []))]);
  const placeLabels = await store.data.forms.geoLabels(ownerId, 'place', [...new Set(hits.flatMap((h) => h?.places ?? []))]);
  return rows.map((r, i) => {
    const h = hits[i];
    return {
      employee: r.e_id === null ? null : { id: r.e_id, first_name: r.e_first, middle_name: r.e_middle, last_name: r.e_last },
      task: {
        id: r.task_id,
        label: r.t_label,
        from: when(r.t_from),
        to: when(r.t_to),
        creation_date: when(r.t_creation),
        arrival_date: when(r.t_arrival),
        address: r.t_address,
        status: r.t_status,
        completion_date: when(r.t_completion),
        fact_duration: isoDuration(r.t_stay * 1000),
      },
      tracker: r.tr_id === null ? null : { id: r.tr_id, label: r.tr_label },
      vehicle: null,
      form: formView(r, tz),
      submit_places: h && {
        location: { lat: r.submit_lat, lng: r.submit_lng, address: r.submit_address },
        places: h.places.filter((id) => placeLabels.has(id)).map((id) => ({ id, label: placeLabels.get(id) })),
        zones: h.zones.filter((id) => zoneLabels.has(id)).map((id) => ({ id, label: zoneLabels.get(id) })),
      },
    };
  });
}

export const taskFormCalls = [create, remove, read, list, valuesUpdate, formRead, download, formDownload];
