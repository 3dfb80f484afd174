/**
 * Forms on tasks (spec: Task forms; States and transitions): attaching a template's copy to a task,
 * deleting it, and judging the task again, since a form is one of the facts its outcome depends on
 * (docs/tasks.md, docs/forms.md "Task outcome").
 */
import { DomainError } from '../core/errors.ts';
import type { DataStore } from '../store/contract.ts';
import type { FormTemplateRow } from '../store/form-templates.ts';
import type { TaskRow, TaskStatus } from '../store/tasks.ts';
import { TaskJudge, type TaskChange } from '../telemetry/task-judge.ts';
import type { FormDeps } from './deps.ts';

/** States in which a form may be attached or deleted (spec: States and transitions). */
export const FORM_EDITABLE: readonly TaskStatus[] = ['unassigned', 'assigned', 'arrived'];

/** The owner's template, or 201 naming it. */
export async function ownTemplate(data: DataStore, userId: number, templateId: number): Promise<FormTemplateRow> {
  const t = await data.formTemplates.get(userId, templateId);
  if (!t) throw new DomainError(201, {}, `Not found in the database: form template ${templateId}`);
  return t;
}

function requireFormTask(task: TaskRow): void {
  if (task.type === 'route') throw new DomainError(201, {}, `Not found in the database: task ${task.id} is a route; forms attach to tasks and checkpoints`);
}

function requireFormEditable(task: TaskRow): void {
  if (!FORM_EDITABLE.includes(task.status)) throw new DomainError(255, {}, `Invalid task state: task ${task.id} is ${task.status}; forms change only while unassigned, assigned or arrived`);
}

/** task/form/create: 201 (route, template), 247 (a form is attached), 255 (state). Judges the task again. */
export async function attachForm(deps: FormDeps, userId: number, task: TaskRow, templateId: number): Promise<number> {
  requireFormTask(task);
  const template = await ownTemplate(deps.store.data, userId, templateId);
  return deps.store.data.transaction(async (tx) => {
    if (await tx.forms.ofTask(task.id)) throw new DomainError(247, {}, `Entity already exists: task ${task.id} already has a form`);
    requireFormEditable(task);
    const id = await tx.forms.create(userId, template, task.id, task.tracker_id, deps.now());
    judgeTaskAgain(deps, task.id);
    return id;
  });
}

/** task/form/delete: 201 (route, or no form), 255 (state). The form's values and files go with it. */
export async function detachForm(deps: FormDeps, userId: number, task: TaskRow): Promise<void> {
  requireFormTask(task);
  await deps.store.data.transaction(async (tx) => {
    const form = await tx.forms.ofTask(task.id);
    if (!form) throw new DomainError(201, {}, `Not found in the database: task ${task.id} has no form`);
    requireFormEditable(task);
    await tx.forms.delete(userId, form.id);
    judgeTaskAgain(deps, task.id);
  });
}

/**
 * create_form of task/create and task/update (spec): `undefined` leaves the form alone; a template
 * replaces the form (kept when it is already a copy of that template's current version, so its
 * values survive); null deletes it. Runs inside the caller's transaction (`tx`), after the task is written.
 */
export async function applyTaskForm(tx: DataStore, deps: FormDeps, userId: number, task: TaskRow, template: FormTemplateRow | null | undefined): Promise<void> {
  if (template === undefined) return;
  const current = await tx.forms.ofTask(task.id);
  if (current && template && current.template_id === template.id && current.template_version === template.version) return;
  if (current) await tx.forms.delete(userId, current.id);
  if (template) await tx.forms.create(userId, template, task.id, task.tracker_id, deps.now());
  judgeTaskAgain(deps, task.id);
}

/**
 * applyTaskForm on the synchronous store, for the task schedules (src/tasks/schedules.ts), which
 * still write their tasks in a transaction of it; the same rules.
 */
export function applyCreateForm(deps: FormDeps, userId: number, task: TaskRow, template: FormTemplateRow | null | undefined): void {
  if (template === undefined) return;
  const current = deps.store.forms.ofTask(task.id);
  if (current && template && current.template_id === template.id && current.template_version === template.version) return;
  if (current) deps.store.forms.delete(userId, current.id);
  if (template) deps.store.forms.create(userId, template, task.id, task.tracker_id, deps.now());
  judgeTaskAgain(deps, task.id);
}

/** The template create_form names: undefined without create_form or without form_template_id; 201 when it is not the owner's. */
export async function createFormTemplate(deps: FormDeps, userId: number, createForm: boolean, templateId: number | null | undefined): Promise<FormTemplateRow | null | undefined> {
  if (!createForm || templateId === undefined) return undefined;
  return templateId === null ? null : ownTemplate(deps.store.data, userId, templateId);
}

/**
 * Judge an assigned task (or its route) again from the stored facts; nothing for unassigned ones.
 * The judge reads and writes on the telemetry core's synchronous path (src/telemetry); called
 * inside a `store.data` transaction, its statements join that transaction (SQLite).
 */
export function judgeTaskAgain(deps: Pick<FormDeps, 'store' | 'now'>, taskId: number): TaskChange[] {
  const t = deps.store.telemetry.taskToJudge(taskId);
  if (!t || t.status === 'unassigned') return [];
  return new TaskJudge(deps.store.telemetry, deps.store.trackers, deps.now).judge([t]);
}

/** A check-in's form (spec: "forms for check-ins are created only in the mobile app"): a template's copy bound to no task; 201 for a template not the owner's. */
export async function createCheckinForm(deps: FormDeps, userId: number, templateId: number, trackerId: number | null): Promise<number> {
  const data = deps.store.data;
  return data.forms.create(userId, await ownTemplate(data, userId, templateId), null, trackerId, deps.now());
}
