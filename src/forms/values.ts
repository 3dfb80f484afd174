/**
 * Validation of submitted form values (issue 11; docs/forms.md, "Value shapes" and "Field error
 * codes"). Pure: the form's fields, the values, the files the values name (through a FileLookup,
 * src/core/files.ts) and today's date in the user's zone go in; the checked values or the field
 * errors come out. Each field gets at most one error (the first rule it breaks).
 */
import type { FileFacts, FileLookup } from '../core/files.ts';
import { MAX_FIELD_FILES, type Field, type FieldOf } from './fields.ts';

/** The field error codes of a 242 answer. */
export const FIELD_ERROR = {
  required: 1,
  typeMismatch: 2,
  isNull: 3,
  indexOutOfBounds: 4,
  invalidSize: 5,
  belowMinimum: 6,
  aboveMaximum: 7,
  invalidReference: 8,
  invalidFileType: 9,
  invalidFileState: 10,
} as const;

export interface FieldError {
  field_id: string;
  code: number;
  error: string;
}

/** A stored value: the shape of its field type (docs/forms.md). */
export type FormValue =
  | { type: 'text'; value: string }
  | { type: 'checkbox_group'; values: boolean[] }
  | { type: 'dropdown' | 'radio_group'; value_index: number | null }
  | { type: 'date'; value: string }
  | { type: 'rating'; value: number | null }
  | { type: 'file' | 'photo'; file_ids: number[] }
  | { type: 'signature'; file_id: number | null };

export type FormValues = Record<string, FormValue>;

export interface ValueContext {
  /** The master user owning the form: files of anyone else are invalid references. */
  userId: number;
  formId: number;
  files: FileLookup;
  /** Today in the user's zone, yyyy-MM-dd (date fields with disable_past / disable_future). */
  today: string;
}

export interface Checked {
  values: FormValues;
  /** Per file, photo or signature field: the files the values name (empty when none). */
  files: Map<string, number[]>;
}

class Refusal {
  constructor(readonly code: number, readonly error: string) {}
}
const refuse = (code: number, error: string): never => {
  throw new Refusal(code, error);
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const isId = (v: unknown): v is number => isInt(v) && v >= 1 && v <= 2_147_483_647;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Check `values` (field id -> value object) against the fields. Values for fields the form does not
 * have are refused by the caller (code 7 naming `values.<id>`): see `unknownFieldIds`.
 */
export function checkValues(fields: readonly Field[], values: Record<string, unknown>, ctx: ValueContext): { ok: true; checked: Checked } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const out: FormValues = {};
  const files = new Map<string, number[]>();
  const ids: number[] = [];
  for (const f of fields) for (const id of fileIdsOf(f, values[f.id])) ids.push(id);
  const facts = ids.length ? ctx.files(ids) : new Map<number, FileFacts>();
  for (const f of fields) {
    const has = Object.prototype.hasOwnProperty.call(values, f.id);
    try {
      const v = has ? checkOne(f, values[f.id], ctx, facts) : undefined;
      if (f.type === 'file' || f.type === 'photo' || f.type === 'signature') files.set(f.id, v ? fileIdsOf(f, v) : []);
      if (v === undefined || isEmpty(v)) {
        if (f.required) refuse(FIELD_ERROR.required, has ? 'required but empty' : 'required but missing');
        if (v === undefined) continue;
      }
      out[f.id] = v;
    } catch (e) {
      if (!(e instanceof Refusal)) throw e;
      errors.push({ field_id: f.id, code: e.code, error: e.error });
    }
  }
  return errors.length ? { ok: false, errors } : { ok: true, checked: { values: out, files } };
}

/** Ids in `values` that name no field of the form. */
export function unknownFieldIds(fields: readonly Field[], values: Record<string, unknown>): string[] {
  const known = new Set(fields.map((f) => f.id));
  return Object.keys(values).filter((k) => !known.has(k));
}

function isEmpty(v: FormValue): boolean {
  switch (v.type) {
    case 'text':
    case 'date':
      return v.value === '';
    case 'checkbox_group':
      return !v.values.includes(true);
    case 'dropdown':
    case 'radio_group':
      return v.value_index === null;
    case 'rating':
      return v.value === null;
    case 'file':
    case 'photo':
      return v.file_ids.length === 0;
    case 'signature':
      return v.file_id === null;
  }
}

/** File ids a value names (well-formed ones only: the rest fail the shape check). */
function fileIdsOf(f: Field, v: unknown): number[] {
  if (!isObject(v)) return [];
  if ((f.type === 'file' || f.type === 'photo') && Array.isArray(v.file_ids)) return v.file_ids.filter(isId).slice(0, 64);
  if (f.type === 'signature' && isId(v.file_id)) return [v.file_id];
  return [];
}

function checkOne(f: Field, v: unknown, ctx: ValueContext, facts: Map<number, FileFacts>): FormValue | undefined {
  if (v === null) refuse(FIELD_ERROR.isNull, 'the value is null');
  if (f.type === 'separator') refuse(FIELD_ERROR.typeMismatch, 'a separator takes no value');
  if (!isObject(v)) refuse(FIELD_ERROR.typeMismatch, `expected an object {type: "${f.type}", ...}`);
  const o = v as Record<string, unknown>;
  if (o.type !== f.type) refuse(FIELD_ERROR.typeMismatch, `expected type "${f.type}", got ${JSON.stringify(o.type ?? null)}`);
  switch (f.type) {
    case 'text':
      return text(f, member(o, 'value'));
    case 'checkbox_group':
      return checkboxes(f, member(o, 'values'));
    case 'dropdown':
    case 'radio_group':
      return choice(f, member(o, 'value_index', true));
    case 'date':
      return date(f, member(o, 'value'), ctx.today);
    case 'rating':
      return rating(f, member(o, 'value', true));
    case 'file':
    case 'photo':
      return fileList(f, member(o, 'file_ids'), ctx, facts);
    case 'signature':
      return signature(member(o, 'file_id', true), ctx, f, facts);
    default:
      return undefined;
  }
}

/** A member of the value object; null allowed only where the shape has an empty form. */
function member(o: Record<string, unknown>, name: string, nullable = false): unknown {
  if (!(name in o)) refuse(FIELD_ERROR.typeMismatch, `${name} is missing`);
  if (o[name] === null && !nullable) refuse(FIELD_ERROR.isNull, `${name} is null`);
  return o[name];
}

function text(f: FieldOf<'text'>, value: unknown): FormValue {
  if (typeof value !== 'string') return refuse(FIELD_ERROR.typeMismatch, 'value must be a string');
  const n = [...value].length;
  if (n > 0 && n < f.min_length) refuse(FIELD_ERROR.belowMinimum, `at least ${f.min_length} characters, got ${n}`);
  if (n > f.max_length) refuse(FIELD_ERROR.aboveMaximum, `at most ${f.max_length} characters, got ${n}`);
  return { type: 'text', value };
}

function checkboxes(f: FieldOf<'checkbox_group'>, values: unknown): FormValue {
  if (!Array.isArray(values) || !values.every((b) => typeof b === 'boolean')) return refuse(FIELD_ERROR.typeMismatch, 'values must be an array of booleans');
  if (values.length !== f.group.length) refuse(FIELD_ERROR.invalidSize, `values must have one boolean per box (${f.group.length}), got ${values.length}`);
  const checked = values.filter(Boolean).length;
  if (checked > 0 && checked < f.min_checked) refuse(FIELD_ERROR.belowMinimum, `at least ${f.min_checked} boxes checked, got ${checked}`);
  const max = f.max_checked ?? f.group.length;
  if (checked > max) refuse(FIELD_ERROR.aboveMaximum, `at most ${max} boxes checked, got ${checked}`);
  return { type: 'checkbox_group', values: values as boolean[] };
}

function choice(f: FieldOf<'dropdown'> | FieldOf<'radio_group'>, index: unknown): FormValue {
  if (index !== null && !isInt(index)) return refuse(FIELD_ERROR.typeMismatch, 'value_index must be an integer or null');
  if (index !== null && (index < 0 || index >= f.options.length)) refuse(FIELD_ERROR.indexOutOfBounds, `value_index must be 0 to ${f.options.length - 1}, got ${index}`);
  return { type: f.type, value_index: index };
}

function date(f: FieldOf<'date'>, value: unknown, today: string): FormValue {
  if (typeof value !== 'string') return refuse(FIELD_ERROR.typeMismatch, 'value must be a yyyy-MM-dd string');
  if (value === '') return { type: 'date', value };
  const m = DATE.exec(value);
  const d = m && new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (!m || !d || d.getUTCFullYear() !== +m[1] || d.getUTCMonth() !== +m[2] - 1 || d.getUTCDate() !== +m[3]) return refuse(FIELD_ERROR.typeMismatch, `not a valid yyyy-MM-dd date: ${JSON.stringify(value)}`);
  if (f.disable_past && value < today) refuse(FIELD_ERROR.belowMinimum, `past dates are disabled (today is ${today})`);
  if (f.disable_future && value > today) refuse(FIELD_ERROR.aboveMaximum, `future dates are disabled (today is ${today})`);
  return { type: 'date', value };
}

function rating(f: FieldOf<'rating'>, value: unknown): FormValue {
  if (value !== null && !isInt(value)) return refuse(FIELD_ERROR.typeMismatch, 'value must be an integer or null');
  if (value !== null && value < 1) refuse(FIELD_ERROR.belowMinimum, `at least 1 star, got ${value}`);
  if (value !== null && value > f.max_stars) refuse(FIELD_ERROR.aboveMaximum, `at most ${f.max_stars} stars, got ${value}`);
  return { type: 'rating', value: value as number | null };
}

function fileList(f: FieldOf<'file'> | FieldOf<'photo'>, ids: unknown, ctx: ValueContext, facts: Map<number, FileFacts>): FormValue {
  if (!Array.isArray(ids) || !ids.every(isId)) return refuse(FIELD_ERROR.typeMismatch, 'file_ids must be an array of file ids');
  const max = f.type === 'photo' ? f.max_files : MAX_FIELD_FILES;
  if (ids.length > max) refuse(FIELD_ERROR.invalidSize, `at most ${max} files, got ${ids.length}`);
  if (new Set(ids).size !== ids.length) refuse(FIELD_ERROR.invalidReference, 'a file is named twice');
  for (const id of ids as number[]) checkFile(f, id, ctx, facts);
  return { type: f.type, file_ids: ids as number[] };
}

function signature(id: unknown, ctx: ValueContext, f: FieldOf<'signature'>, facts: Map<number, FileFacts>): FormValue {
  if (id !== null && !isId(id)) return refuse(FIELD_ERROR.typeMismatch, 'file_id must be a file id or null');
  if (id !== null) checkFile(f, id as number, ctx, facts);
  return { type: 'signature', file_id: id as number | null };
}

/** A named file: the owner's, created for this form and field (8); the right kind (9); uploaded (10); within the size limits (5). */
function checkFile(f: FieldOf<'file'> | FieldOf<'photo'> | FieldOf<'signature'>, id: number, ctx: ValueContext, facts: Map<number, FileFacts>): void {
  const file = facts.get(id);
  if (!file || file.user_id !== ctx.userId) return refuse(FIELD_ERROR.invalidReference, `file ${id} does not exist`);
  if (file.form_id !== ctx.formId || file.field_id !== f.id) refuse(FIELD_ERROR.invalidReference, `file ${id} was not created for this form field`);
  if (f.type !== 'file' && (file.type !== 'image' || !file.mime_type.startsWith('image/'))) refuse(FIELD_ERROR.invalidFileType, `file ${id} is not an image`);
  if (f.type === 'file' && f.allowed_extensions) {
    const ext = /\.([^./\\]+)$/.exec(file.name)?.[1]?.toLowerCase() ?? '';
    if (!f.allowed_extensions.includes(ext)) refuse(FIELD_ERROR.invalidFileType, `file ${id}: the extension "${ext}" is not one of ${f.allowed_extensions.join(', ')}`);
  }
  if (file.state !== 'uploaded') refuse(FIELD_ERROR.invalidFileState, `file ${id} is not uploaded (state ${file.state})`);
  if (f.type === 'file' && file.size !== null && (file.size < f.min_file_size || file.size > f.max_file_size)) {
    refuse(FIELD_ERROR.invalidSize, `file ${id} has ${file.size} bytes; allowed ${f.min_file_size} to ${f.max_file_size}`);
  }
}
