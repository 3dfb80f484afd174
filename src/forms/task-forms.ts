/**
 * Forms on tasks (spec: Task forms; States and transitions): attaching a template's copy to a task,
 * deleting it, and judging the task again, since a form is one of the facts its outcome depends on
 * (docs/tasks.md, docs/forms.md "Task outcome").
 */
import { DomainError } from '../core/errors.ts';
import type { FormTemplateRow } from '../store/form-templates.ts';
import type { TaskRow, TaskStatus } from '../store/tasks.ts';
import { TaskJudge, type TaskChange } from '../telemetry/task-judge.ts';
import type { FormDeps } from './deps.ts';

/** States in which a form may be attached or deleted (spec: States and transitions). */
export const FORM_EDITABLE: readonly TaskStatus[] = ['unassigned', 'assigned', 'arrived'];

/** The owner's template, or 201 naming it. */
export function ownTemplate(deps: Pick<FormDeps, 'store'>, userId: number, templateId: number): FormTemplateRow {
  const t = deps.store.formTemplates.get(userId, templateId);
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
export function attachForm(deps: FormDeps, userId: number, task: TaskRow, templateId: number): number {
  requireFormTask(task);
  const template = ownTemplate(deps, userId, templateId);
  return deps.store.transaction(() => {
    if (deps.store.forms.ofTask(task.id)) throw new DomainError(247, {}, `Entity already exists: task ${task.id} already has a form`);
    requireFormEditable(task);
    const id = deps.store.forms.create(userId, template, task.id, task.tracker_id, deps.now());
    judgeTaskAgain(deps, task.id);
    return id;
  });
}

/** task/form/delete: 201 (route, or no form), 255 (state). The form's values and files go with it. */
export function detachForm(deps: FormDeps, userId: number, task: TaskRow): void {
  requireFormTask(task);
  deps.store.transaction(() => {
    const form = deps.store.forms.ofTask(task.id);
    if (!form) throw new DomainError(201, {}, `Not found in the database: task ${task.id} has no form`);
    requireFormEditable(task);
    deps.store.forms.delete(userId, form.id);
    judgeTaskAgain(deps, task.id);
  });
}

/**
 * create_form of task/create and task/update (spec): `undefined` leaves the form alone; a template
 * replaces the form (kept when it is already a copy of that template's current version, so its
 * values survive); null deletes it. Runs inside the caller's transaction, after the task is written.
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
export function createFormTemplate(deps: FormDeps, userId: number, createForm: boolean, templateId: number | null | undefined): FormTemplateRow | null | undefined {
  if (!createForm || templateId === undefined) return undefined;
  return templateId === null ? null : ownTemplate(deps, userId, templateId);
}

/** Judge an assigned task (or its route) again from the stored facts; nothing for unassigned ones. */
export function judgeTaskAgain(deps: Pick<FormDeps, 'store' | 'now'>, taskId: number): TaskChange[] {
  const t = deps.store.telemetry.taskToJudge(taskId);
  if (!t || t.status === 'unassigned') return [];
  return new TaskJudge(deps.store.telemetry, deps.store.trackers, deps.now).judge([t]);
}

/** A check-in's form (spec: "forms for check-ins are created only in the mobile app"): a template's copy bound to no task; 201 for a template not the owner's. */
export function createCheckinForm(deps: FormDeps, userId: number, templateId: number, trackerId: number | null): number {
  return deps.store.forms.create(userId, ownTemplate(deps, userId, templateId), null, trackerId, deps.now());
}
