/** Template field definitions (issue 11; docs/forms.md "Field types"): defaults, limits and contradictions. */
import { describe, expect, it } from 'vitest';
import { fieldErrors, fieldsSchema } from '../../src/forms/fields.ts';

const parse = (f: unknown[]) => fieldsSchema.parse(f);
const errs = (f: unknown[]) => fieldErrors(parse(f), 'template.fields').map((e) => e.parameter);

describe('field definitions', () => {
  it('fills the defaults of every type', () => {
    const f = parse([
      { id: 'a', label: 'A', type: 'text' },
      { id: 'b', label: 'B', type: 'checkbox_group', group: ['x', 'y'] },
      { id: 'c', label: 'C', type: 'rating' },
      { id: 'd', label: 'D', type: 'file' },
      { id: 'e', label: 'E', type: 'photo' },
      { id: 'f', label: 'F', type: 'date' },
    ]);
    fieldErrors(f, 'fields');
    expect(f).toEqual([
      { id: 'a', label: 'A', description: '', required: false, type: 'text', min_length: 0, max_length: 1024 },
      { id: 'b', label: 'B', description: '', required: false, type: 'checkbox_group', group: [{ label: 'x' }, { label: 'y' }], min_checked: 0, max_checked: 2 },
      { id: 'c', label: 'C', description: '', required: false, type: 'rating', max_stars: 5 },
      { id: 'd', label: 'D', description: '', required: false, type: 'file', max_file_size: 16 * 1024 * 1024, min_file_size: 0, allowed_extensions: null },
      { id: 'e', label: 'E', description: '', required: false, type: 'photo', max_files: 6 },
      { id: 'f', label: 'F', description: '', required: false, type: 'date', disable_past: false, disable_future: false },
    ]);
  });

  it('limits: id 1-19 alphanumerics, label 1-100, description 512, file size 16 MB, 16 extensions, 6 photos', () => {
    const bad = [
      { id: '', label: 'A', type: 'text' },
      { id: 'a'.repeat(20), label: 'A', type: 'text' },
      { id: 'a.b', label: 'A', type: 'text' },
      { id: 'a', label: '', type: 'text' },
      { id: 'a', label: 'x'.repeat(101), type: 'text' },
      { id: 'a', label: 'A', description: 'x'.repeat(513), type: 'text' },
      { id: 'a', label: 'A', type: 'text', max_length: 1025 },
      { id: 'a', label: 'A', type: 'file', max_file_size: 16 * 1024 * 1024 + 1 },
      { id: 'a', label: 'A', type: 'file', allowed_extensions: Array.from({ length: 17 }, (_, i) => `e${i}`) },
      { id: 'a', label: 'A', type: 'photo', max_files: 7 },
      { id: 'a', label: 'A', type: 'nope' },
    ];
    for (const b of bad) expect(fieldsSchema.safeParse([b]).success, JSON.stringify(b)).toBe(false);
    expect(fieldsSchema.safeParse([{ id: 'a'.repeat(19), label: 'x'.repeat(100), type: 'file', allowed_extensions: ['.PDF', 'doc'] }]).data?.[0]).toMatchObject({ allowed_extensions: ['pdf', 'doc'] });
  });

  it('contradictions are named by field and member', () => {
    expect(errs([{ id: 'a', label: 'A', type: 'text', required: true }])).toEqual(['template.fields.0.min_length']);
    expect(errs([{ id: 'a', label: 'A', type: 'text', min_length: 10, max_length: 5 }])).toEqual(['template.fields.0.min_length']);
    expect(errs([{ id: 'a', label: 'A', type: 'checkbox_group', group: ['x'], min_checked: 2 }])).toContain('template.fields.0.min_checked');
    expect(errs([{ id: 'a', label: 'A', type: 'checkbox_group', group: ['x'], max_checked: 2 }])).toEqual(['template.fields.0.max_checked']);
    expect(errs([{ id: 'a', label: 'A', type: 'checkbox_group', group: ['x', 'y'], min_checked: 2, max_checked: 1 }])).toEqual(['template.fields.0.min_checked']);
    expect(errs([{ id: 'a', label: 'A', type: 'checkbox_group', group: ['x'], required: true }])).toEqual(['template.fields.0.min_checked']);
    expect(errs([{ id: 'a', label: 'A', type: 'file', min_file_size: 100, max_file_size: 10 }])).toEqual(['template.fields.0.min_file_size']);
    expect(errs([{ id: 'a', label: 'A', type: 'separator', required: true }])).toEqual(['template.fields.0.required']);
    expect(errs([{ id: 'a', label: 'A', type: 'text' }, { id: 'a', label: 'B', type: 'rating' }])).toEqual(['template.fields.1.id']);
    const [e] = fieldErrors(parse([{ id: 'x1', label: 'A', type: 'text', required: true }]), 'template.fields');
    expect(e.error).toBe('field x1: a required text field needs min_length of at least 1');
  });
});
