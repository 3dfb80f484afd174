/**
 * Form template calls (ours, issue 11; docs/forms.md): the spec says "a form is always created from
 * a template" but shows no template calls. Changes need the right form_template_update.
 */
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { fieldErrors, fieldsSchema } from '../forms/fields.ts';
import { templateView } from '../forms/view.ts';
import type { TemplateDraft } from '../store/form-templates.ts';
import { TASK_STATUSES } from '../store/tasks.ts';
import { defineCall } from './kernel.ts';
import { id } from './schemas.ts';

const templateInput = z.object({
  label: z.string().trim().min(1).max(100),
  // Documented as "can be empty or null".
  description: z.string().max(1024).nullish().transform((d) => d ?? ''),
  fields: fieldsSchema,
  submit_in_zone: z.boolean().default(false),
  /** Documented: the template chosen for new tasks with a form; one per user (setting it clears the others). */
  default: z.boolean().default(false),
});

function draft(t: z.infer<typeof templateInput>): TemplateDraft {
  const errors = fieldErrors(t.fields, 'template.fields');
  if (errors.length) throw invalidParams(errors);
  return { label: t.label, description: t.description, fields: JSON.stringify(t.fields), submit_in_zone: t.submit_in_zone, is_default: t.default };
}

const notFound = (templateId: number) => new DomainError(201, {}, `Not found in the database: form template ${templateId}`);

const list = defineCall({
  path: 'form/template/list',
  summary: "The user's form templates.",
  params: z.object({}),
  handler({ services, owner, user }) {
    return { list: services.store.formTemplates.list(owner.id).map((t) => templateView(t, user.time_zone)) };
  },
});

const read = defineCall({
  path: 'form/template/read',
  summary: 'One form template.',
  params: z.object({ template_id: id }),
  handler({ services, owner, user, params }) {
    const t = services.store.formTemplates.get(owner.id, params.template_id);
    if (!t) throw notFound(params.template_id);
    return { value: templateView(t, user.time_zone) };
  },
});

const create = defineCall({
  path: 'form/template/create',
  // Documented: 101 for demo users.
  notInDemo: true,
  summary: 'Create a form template (version 1).',
  right: 'form_template_update',
  params: z.object({ template: templateInput }),
  handler({ services, owner, params }) {
    return { id: services.store.formTemplates.create(owner.id, draft(params.template), services.now()) };
  },
});

const update = defineCall({
  path: 'form/template/update',
  // Documented: 101 for demo users.
  notInDemo: true,
  summary: 'Change a form template; its version grows by one. Forms already made from it keep their copy.',
  right: 'form_template_update',
  params: z.object({ template: templateInput.extend({ id }) }),
  handler({ services, owner, params }) {
    const d = draft(params.template);
    if (!services.store.formTemplates.update(owner.id, params.template.id, d, services.now())) throw notFound(params.template.id);
  },
});

const remove = defineCall({
  path: 'form/template/delete',
  // Documented: 101 for demo users.
  notInDemo: true,
  summary: 'Delete a form template; the forms made from it stay, with template_id null.',
  right: 'form_template_update',
  params: z.object({ template_id: id }),
  handler({ services, owner, params }) {
    if (!services.store.formTemplates.delete(owner.id, params.template_id)) throw notFound(params.template_id);
  },
});

const stats = defineCall({
  path: 'form/template/stats/read',
  summary: 'How many tasks have a form made from the template, by task status, and how many task schedules name it (scheduled).',
  params: z.object({ template_id: id }),
  handler({ services, owner, params }) {
    if (!services.store.formTemplates.get(owner.id, params.template_id)) throw notFound(params.template_id);
    const usage = services.store.formTemplates.usage(owner.id, params.template_id);
    return { tasks: Object.fromEntries(TASK_STATUSES.map((s) => [s, usage.tasks.get(s) ?? 0])), scheduled: usage.scheduled };
  },
});

export const formTemplateCalls = [list, read, create, update, remove, stats];
