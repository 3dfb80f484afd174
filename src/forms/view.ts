/** Form templates and forms as the API answers them (spec: Form; docs/forms.md). */
import { formatDateTime } from '../core/time.ts';
import type { FormTemplateRow } from '../store/form-templates.ts';
import type { FormRow } from '../store/forms.ts';

export function templateView(t: FormTemplateRow, tz: string): Record<string, unknown> {
  return {
    id: t.id,
    label: t.label,
    description: t.description,
    fields: JSON.parse(t.fields),
    submit_in_zone: t.submit_in_zone === 1,
    version: t.version,
    created: formatDateTime(t.created, tz),
    updated: formatDateTime(t.updated, tz),
    default: t.is_default === 1,
  };
}

export function formView(f: FormRow, tz: string): Record<string, unknown> {
  return {
    id: f.id,
    label: f.label,
    description: f.description,
    fields: JSON.parse(f.fields),
    created: formatDateTime(f.created, tz),
    submit_in_zone: f.submit_in_zone === 1,
    task_id: f.task_id,
    template_id: f.template_id,
    template_version: f.template_version,
    tracker_id: f.tracker_id,
    values: f.values_json === null ? null : JSON.parse(f.values_json),
    submitted: f.submitted === null ? null : formatDateTime(f.submitted, tz),
    submit_location: f.submitted === null || f.submit_lat === null ? null : { lat: f.submit_lat, lng: f.submit_lng, address: f.submit_address },
  };
}
