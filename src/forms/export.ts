/**
 * task/form/download and form/download (spec: Task forms, Forms; docs/forms.md, "Files"): a form as
 * a report body (src/reports/model.ts) that the report renderers turn into a file. One row per form
 * field: its label, type and value as text; files as their names and download links. Pure: the
 * caller passes the form, its files and the task's label.
 */
import { formatDateTime } from '../core/time.ts';
import { localeInfo, type ExportContext } from '../checkins/export.ts';
import type { Cell, ReportBody } from '../reports/model.ts';
import type { FormRow } from '../store/forms.ts';
import type { Field } from './fields.ts';
import type { FormValue, FormValues } from './values.ts';

/** A file of the form: its name and download URL (null until uploaded). */
export interface FormFile {
  id: number;
  name: string;
  url: string | null;
}

const text = (v: string): Cell => ({ v, raw: null, type: 'text' });

/** A field's value as a person reads it. */
export function valueText(field: Field, value: FormValue | undefined, files: Map<number, FormFile>): string {
  if (!value) return '';
  const file = (id: number) => {
    const f = files.get(id);
    if (!f) return `file ${id}`;
    return f.url ? `${f.name} ${f.url}` : `${f.name} (not uploaded)`;
  };
  switch (value.type) {
    case 'text':
    case 'date':
      return value.value;
    case 'checkbox_group': {
      const group = field.type === 'checkbox_group' ? field.group : [];
      return value.values.flatMap((on, i) => (on ? [group[i]?.label ?? String(i)] : [])).join(', ');
    }
    case 'dropdown':
    case 'radio_group': {
      const options = field.type === 'dropdown' || field.type === 'radio_group' ? field.options : [];
      return value.value_index === null ? '' : (options[value.value_index]?.label ?? String(value.value_index));
    }
    case 'rating':
      return value.value === null ? '' : `${value.value} / ${field.type === 'rating' ? field.max_stars : value.value}`;
    case 'file':
    case 'photo':
      return value.file_ids.map(file).join('\n');
    case 'signature':
      return value.file_id === null ? '' : file(value.file_id);
    default:
      return '';
  }
}

export function formReport(form: FormRow, o: ExportContext & { task: { id: number; label: string } | null; files: FormFile[] }): ReportBody {
  const tz = o.timeZone;
  const fields = JSON.parse(form.fields) as Field[];
  const values = (form.values_json === null ? {} : JSON.parse(form.values_json)) as FormValues;
  const files = new Map(o.files.map((f) => [f.id, f]));
  const created = formatDateTime(form.created, tz);
  const submitted = form.submitted === null ? null : formatDateTime(form.submitted, tz);
  const about: Array<{ k: string; v: Cell }> = [{ k: 'Form', v: text(form.label) }];
  if (form.description) about.push({ k: 'Description', v: text(form.description) });
  if (o.task) about.push({ k: 'Task', v: text(`${o.task.label} (#${o.task.id})`) });
  about.push({ k: 'Created', v: { v: created, raw: Math.floor(form.created / 1000), type: 'datetime' } });
  about.push({ k: 'Submitted', v: form.submitted === null ? text('not submitted') : { v: submitted!, raw: Math.floor(form.submitted / 1000), type: 'datetime' } });
  if (form.submitted !== null && form.submit_lat !== null && form.submit_lng !== null) {
    const location = { lat: form.submit_lat, lng: form.submit_lng, address: form.submit_address };
    about.push({ k: 'Submit location', v: { v: form.submit_address || `${form.submit_lat}, ${form.submit_lng}`, raw: null, type: 'location', location } });
  }
  return {
    id: form.id,
    title: form.label,
    created: formatDateTime(o.now, tz),
    from: created,
    to: submitted ?? created,
    time_filter: null,
    locale_info: localeInfo(o),
    sheets: [
      {
        header: form.label,
        entity_ids: form.tracker_id === null ? [] : [form.tracker_id],
        sections: [
          { type: 'text', header: 'Form', data: about },
          {
            type: 'table',
            header: 'Fields',
            columns: [
              { field: 'label', title: 'Field', weight: 3 },
              { field: 'type', title: 'Type', weight: 2 },
              { field: 'value', title: 'Value', weight: 6 },
            ],
            rows: fields.map((f) => ({ type: 'data' as const, data: { label: text(f.label), type: text(f.type), value: text(valueText(f, values[f.id], files)) } })),
          },
        ],
      },
    ],
  };
}

/** A file name from a label: characters file systems refuse become _, at most 100; `fallback` when none is left. */
export function downloadName(label: string, fallback: string, extension: string): string {
  const base = label.replace(/[\\/:*?"<>|\u0000-\u001f\u007f]/g, '_').replace(/\s+/g, ' ').trim().slice(0, 100).trim();
  return `${base && !/^[._ ]+$/.test(base) ? base : fallback}.${extension}`;
}
