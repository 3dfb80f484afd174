/** Value validation of form submissions (issue 11; docs/forms.md "Value shapes", "Field error codes"): every code per field type. */
import { describe, expect, it } from 'vitest';
import type { FileFacts } from '../../src/core/files.ts';
import { fieldsSchema, type Field } from '../../src/forms/fields.ts';
import { checkValues, unknownFieldIds } from '../../src/forms/values.ts';

const fields: Field[] = fieldsSchema.parse([
  { id: 'note', label: 'Note', type: 'text', required: true, min_length: 3, max_length: 10 },
  { id: 'opt', label: 'Optional', type: 'text', min_length: 2 },
  { id: 'boxes', label: 'Boxes', type: 'checkbox_group', group: ['a', 'b', 'c'], min_checked: 1, max_checked: 2, required: true },
  { id: 'pick', label: 'Pick', type: 'dropdown', options: ['x', 'y'] },
  { id: 'radio', label: 'Radio', type: 'radio_group', options: ['x', 'y', 'z'], required: true },
  { id: 'day', label: 'Day', type: 'date', disable_past: true },
  { id: 'past', label: 'Past', type: 'date', disable_future: true },
  { id: 'stars', label: 'Stars', type: 'rating', max_stars: 5 },
  { id: 'doc', label: 'Doc', type: 'file', allowed_extensions: ['pdf'], min_file_size: 10, max_file_size: 1000 },
  { id: 'pics', label: 'Pics', type: 'photo', max_files: 2 },
  { id: 'sign', label: 'Sign', type: 'signature' },
  { id: 'sep', label: 'Section', type: 'separator' },
]);

const USER = 1;
const FORM = 10;
const file = (id: number, o: Partial<FileFacts> = {}): FileFacts => ({ id, user_id: USER, type: 'image', state: 'uploaded', name: `p${id}.jpg`, size: 500, mime_type: 'image/jpeg', form_id: FORM, field_id: 'pics', ...o });
const files = new Map<number, FileFacts>([
  [1, file(1)],
  [2, file(2)],
  [3, file(3, { user_id: 2 })], // another user's
  [4, file(4, { form_id: 11 })], // another form's
  [5, file(5, { state: 'in_progress' })],
  [6, file(6, { type: 'file', mime_type: 'application/pdf', name: 'x.pdf' })], // not an image
  [7, file(7, { type: 'file', mime_type: 'application/pdf', name: 'report.PDF', field_id: 'doc' })],
  [8, file(8, { type: 'file', mime_type: 'text/plain', name: 'report.txt', field_id: 'doc' })],
  [9, file(9, { type: 'file', mime_type: 'application/pdf', name: 'big.pdf', size: 5000, field_id: 'doc' })],
  [12, file(12, { field_id: 'sign', name: 's.png', mime_type: 'image/png' })],
  [13, file(13, { field_id: 'doc' })], // pics field's file named by another field
]);
const lookups: number[][] = [];
const ctx = { userId: USER, formId: FORM, today: '2030-01-10', files: (ids: readonly number[]) => (lookups.push([...ids]), new Map([...files].filter(([k]) => ids.includes(k)))) };

const valid = {
  note: { type: 'text', value: 'hello' },
  boxes: { type: 'checkbox_group', values: [true, false, true] },
  radio: { type: 'radio_group', value_index: 2 },
  pics: { type: 'photo', file_ids: [1, 2] },
  sign: { type: 'signature', file_id: 12 },
  doc: { type: 'file', file_ids: [7] },
  day: { type: 'date', value: '2030-01-10' },
  stars: { type: 'rating', value: 5 },
};
const errorsOf = (over: Record<string, unknown>, drop: string[] = []) => {
  const v: Record<string, unknown> = { ...valid, ...over };
  for (const d of drop) delete v[d];
  const r = checkValues(fields, v, ctx);
  return r.ok ? [] : r.errors;
};
const one = (over: Record<string, unknown>, drop: string[] = []) => errorsOf(over, drop).map((e) => [e.field_id, e.code]);

describe('checkValues', () => {
  it('accepts a valid submission; the values as stored and the files named per file field', () => {
    lookups.length = 0;
    const r = checkValues(fields, valid, ctx);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.checked.values).toEqual(valid);
    expect(Object.fromEntries(r.checked.files)).toEqual({ doc: [7], pics: [1, 2], sign: [12] });
    // Files are looked up once, in one batch.
    expect(lookups).toEqual([[7, 1, 2, 12]]);
  });

  it('code 1: required but empty or missing', () => {
    expect(one({ note: { type: 'text', value: '' } })).toEqual([['note', 1]]);
    expect(one({}, ['note'])).toEqual([['note', 1]]);
    expect(one({ boxes: { type: 'checkbox_group', values: [false, false, false] } })).toEqual([['boxes', 1]]);
    expect(one({ radio: { type: 'radio_group', value_index: null } })).toEqual([['radio', 1]]);
    expect(errorsOf({}, ['note'])[0].error).toBe('required but missing');
  });

  it('optional fields may be empty or absent', () => {
    expect(one({ opt: { type: 'text', value: '' }, pick: { type: 'dropdown', value_index: null }, stars: { type: 'rating', value: null }, sign: { type: 'signature', file_id: null }, pics: { type: 'photo', file_ids: [] } })).toEqual([]);
    expect(one({}, ['day', 'stars', 'doc', 'pics', 'sign'])).toEqual([]);
  });

  it('code 2: type mismatch (wrong type name, wrong member types, a value for a separator)', () => {
    expect(one({ note: { type: 'rating', value: 'hello' } })).toEqual([['note', 2]]);
    expect(one({ note: 'hello' })).toEqual([['note', 2]]);
    expect(one({ note: { type: 'text', value: 5 } })).toEqual([['note', 2]]);
    expect(one({ note: { type: 'text' } })).toEqual([['note', 2]]);
    expect(one({ boxes: { type: 'checkbox_group', values: [1, 0, 1] } })).toEqual([['boxes', 2]]);
    expect(one({ radio: { type: 'radio_group', value_index: 1.5 } })).toEqual([['radio', 2]]);
    expect(one({ day: { type: 'date', value: '2030-02-30' } })).toEqual([['day', 2]]);
    expect(one({ day: { type: 'date', value: '10.01.2030' } })).toEqual([['day', 2]]);
    expect(one({ stars: { type: 'rating', value: '5' } })).toEqual([['stars', 2]]);
    expect(one({ pics: { type: 'photo', file_ids: ['1'] } })).toEqual([['pics', 2]]);
    expect(one({ sign: { type: 'signature', file_id: 'x' } })).toEqual([['sign', 2]]);
    expect(one({ sep: { type: 'separator' } })).toEqual([['sep', 2]]);
  });

  it('code 3: null values', () => {
    expect(one({ note: null })).toEqual([['note', 3]]);
    expect(one({ stars: null })).toEqual([['stars', 3]]);
    expect(one({ note: { type: 'text', value: null } })).toEqual([['note', 3]]);
    expect(one({ pics: { type: 'photo', file_ids: null } })).toEqual([['pics', 3]]);
  });

  it('code 4: index out of bounds', () => {
    expect(one({ radio: { type: 'radio_group', value_index: 3 } })).toEqual([['radio', 4]]);
    expect(one({ pick: { type: 'dropdown', value_index: -1 } })).toEqual([['pick', 4]]);
  });

  it('code 5: invalid size (box count, too many files, file bytes outside the field limits)', () => {
    expect(one({ boxes: { type: 'checkbox_group', values: [true, false] } })).toEqual([['boxes', 5]]);
    expect(one({ pics: { type: 'photo', file_ids: [1, 2, 5] } })).toEqual([['pics', 5]]);
    expect(one({ doc: { type: 'file', file_ids: [9] } })).toEqual([['doc', 5]]);
  });

  it('codes 6 and 7: below minimum, above maximum', () => {
    expect(one({ note: { type: 'text', value: 'hi' } })).toEqual([['note', 6]]);
    expect(one({ note: { type: 'text', value: 'x'.repeat(11) } })).toEqual([['note', 7]]);
    expect(one({ note: { type: 'text', value: 'ééé' } })).toEqual([]); // characters, not bytes
    expect(one({ boxes: { type: 'checkbox_group', values: [true, true, true] } })).toEqual([['boxes', 7]]);
    expect(one({ day: { type: 'date', value: '2030-01-09' } })).toEqual([['day', 6]]);
    expect(one({ past: { type: 'date', value: '2030-01-11' } })).toEqual([['past', 7]]);
    expect(one({ past: { type: 'date', value: '2030-01-10' } })).toEqual([]);
    expect(one({ stars: { type: 'rating', value: 0 } })).toEqual([['stars', 6]]);
    expect(one({ stars: { type: 'rating', value: 6 } })).toEqual([['stars', 7]]);
  });

  it('code 8: invalid references (missing, another user\'s, another form\'s or field\'s, named twice)', () => {
    expect(one({ pics: { type: 'photo', file_ids: [99] } })).toEqual([['pics', 8]]);
    expect(one({ pics: { type: 'photo', file_ids: [3] } })).toEqual([['pics', 8]]);
    expect(errorsOf({ pics: { type: 'photo', file_ids: [3] } })[0].error).toBe('file 3 does not exist');
    expect(one({ pics: { type: 'photo', file_ids: [4] } })).toEqual([['pics', 8]]);
    expect(one({ pics: { type: 'photo', file_ids: [13] } })).toEqual([['pics', 8]]);
    expect(one({ pics: { type: 'photo', file_ids: [1, 1] } })).toEqual([['pics', 8]]);
    expect(one({ sign: { type: 'signature', file_id: 1 } })).toEqual([['sign', 8]]);
  });

  it('code 9: invalid file type (not an image for photo/signature; extension not allowed)', () => {
    files.set(14, file(14, { type: 'file', mime_type: 'application/pdf', name: 'x.pdf', field_id: 'pics' }));
    expect(one({ pics: { type: 'photo', file_ids: [14] } })).toEqual([['pics', 9]]);
    expect(one({ doc: { type: 'file', file_ids: [8] } })).toEqual([['doc', 9]]);
    expect(errorsOf({ doc: { type: 'file', file_ids: [8] } })[0].error).toBe('file 8: the extension "txt" is not one of pdf');
  });

  it('code 10: invalid file state (not uploaded)', () => {
    expect(one({ pics: { type: 'photo', file_ids: [5] } })).toEqual([['pics', 10]]);
  });

  it('every field at fault is named, one error each', () => {
    const e = errorsOf({ note: null, radio: { type: 'radio_group', value_index: 9 }, stars: { type: 'rating', value: 9 } });
    expect(e).toEqual([
      { field_id: 'note', code: 3, error: 'the value is null' },
      { field_id: 'radio', code: 4, error: 'value_index must be 0 to 2, got 9' },
      { field_id: 'stars', code: 7, error: 'at most 5 stars, got 9' },
    ]);
  });

  it('unknownFieldIds: values for fields the form does not have', () => {
    expect(unknownFieldIds(fields, { note: 1, nope: 2, sep: 3 })).toEqual(['nope']);
  });
});
