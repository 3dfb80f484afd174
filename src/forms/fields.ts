/**
 * Form template fields (issue 11; docs/forms.md): the field types, their parameters and limits, and
 * the contradictions zod alone cannot see (required text with min_length 0, min_checked above the
 * group size, ...). Errors name the field as `<parameter>.fields.<index>.<member>` (code 7).
 */
import { z } from 'zod';

/** Largest file a file field may allow: 16 MB. */
export const MAX_FILE_SIZE = 16 * 1024 * 1024;
/** Files one file or photo field holds at most. */
export const MAX_FIELD_FILES = 6;
export const MAX_FIELDS = 100;
export const MAX_CHOICES = 100;
export const MAX_STARS = 10;

export const FIELD_TYPES = ['text', 'checkbox_group', 'dropdown', 'radio_group', 'date', 'rating', 'file', 'photo', 'signature', 'separator'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

const label = z.string().trim().min(1).max(100);
/**
 * A choice of a checkbox group, dropdown or radio group: `{label}` as documented (issue 23). A bare
 * string, the shape this server took before, is still read as `{label: string}`: templates made by
 * clients written against docs/forms.md of then keep working.
 */
const choice = z.union([z.object({ label }), label.transform((l) => ({ label: l }))]);
const choices = z.array(choice).min(1).max(MAX_CHOICES);
const common = {
  // Letters and digits as documented, plus '-' and '_': the documentation's own ids are "Text-1".
  id: z.string().regex(/^[A-Za-z0-9_-]{1,19}$/, "1 to 19 letters, digits, '-' or '_'"),
  label,
  description: z.string().max(512).nullish().transform((d) => d ?? ''),
  required: z.boolean().default(false),
};
const extension = z
  .string()
  .regex(/^\.?[A-Za-z0-9]{1,16}$/, '1 to 16 letters or digits')
  .transform((e) => e.replace(/^\./, '').toLowerCase());

export const fieldSchema = z.discriminatedUnion('type', [
  z.object({ ...common, type: z.literal('text'), min_length: z.number().int().min(0).max(1024).default(0), max_length: z.number().int().min(1).max(1024).default(1024) }),
  z.object({ ...common, type: z.literal('checkbox_group'), group: choices, min_checked: z.number().int().min(0).max(MAX_CHOICES).default(0), max_checked: z.number().int().min(1).max(MAX_CHOICES).optional() }),
  z.object({ ...common, type: z.literal('dropdown'), options: choices }),
  z.object({ ...common, type: z.literal('radio_group'), options: choices }),
  z.object({ ...common, type: z.literal('date'), disable_past: z.boolean().default(false), disable_future: z.boolean().default(false) }),
  z.object({ ...common, type: z.literal('rating'), max_stars: z.number().int().min(1).max(MAX_STARS).default(5) }),
  z.object({
    ...common,
    type: z.literal('file'),
    max_file_size: z.number().int().min(1).max(MAX_FILE_SIZE).default(MAX_FILE_SIZE),
    min_file_size: z.number().int().min(0).max(MAX_FILE_SIZE).default(0),
    allowed_extensions: z.array(extension).min(1).max(16).nullable().default(null),
  }),
  z.object({ ...common, type: z.literal('photo'), max_files: z.number().int().min(1).max(MAX_FIELD_FILES).default(MAX_FIELD_FILES) }),
  z.object({ ...common, type: z.literal('signature') }),
  z.object({ ...common, type: z.literal('separator') }),
]);

export type FieldInput = z.input<typeof fieldSchema>;
export type Field = z.output<typeof fieldSchema>;
export type FieldOf<T extends FieldType> = Extract<Field, { type: T }>;

export const fieldsSchema = z.array(fieldSchema).max(MAX_FIELDS);

/**
 * Contradictions between a template's fields and within each field, as code-7 errors naming the
 * member at fault. Fills max_checked (default: the group size) so stored fields are complete.
 */
export function fieldErrors(fields: Field[], parameter: string): Array<{ parameter: string; error: string }> {
  const errors: Array<{ parameter: string; error: string }> = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const at = (member: string, error: string) => errors.push({ parameter: `${parameter}.${i}.${member}`, error: `field ${f.id}: ${error}` });
    if (seen.has(f.id)) at('id', 'the id is used by another field of the form');
    seen.add(f.id);
    switch (f.type) {
      case 'text':
        if (f.min_length > f.max_length) at('min_length', `must not exceed max_length (${f.max_length})`);
        if (f.required && f.min_length === 0) at('min_length', 'a required text field needs min_length of at least 1');
        break;
      case 'checkbox_group':
        f.max_checked ??= f.group.length;
        if (f.min_checked > f.group.length) at('min_checked', `must not exceed the group size (${f.group.length})`);
        if (f.max_checked > f.group.length) at('max_checked', `must not exceed the group size (${f.group.length})`);
        if (f.min_checked > f.max_checked) at('min_checked', `must not exceed max_checked (${f.max_checked})`);
        if (f.required && f.min_checked === 0) at('min_checked', 'a required checkbox group needs min_checked of at least 1');
        break;
      case 'date':
        break;
      case 'file':
        if (f.min_file_size > f.max_file_size) at('min_file_size', `must not exceed max_file_size (${f.max_file_size})`);
        if (f.allowed_extensions && new Set(f.allowed_extensions).size !== f.allowed_extensions.length) at('allowed_extensions', 'each extension at most once');
        break;
      case 'separator':
        if (f.required) at('required', 'a separator takes no value and cannot be required');
        break;
      default:
        break;
    }
  });
  return errors;
}
