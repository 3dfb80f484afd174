/** The generic tab-delimited batch parser and cell helpers (src/imports/batch.ts), reused by every batch_convert. */
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.ts';
import { coordinateCells, intCell, numberCell, parseBatch, tagNamesCell, type RowError } from '../../src/imports/batch.ts';
import { simplify } from '../../src/imports/geometry.ts';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as DomainError).code;
  }
  return undefined;
};

describe('parseBatch', () => {
  it('maps cells to fields by position; short rows get empty cells; blank lines skipped; CRLF and BOM', () => {
    const { rows, limitExceeded } = parseBatch('\uFEFFa\t1\r\n\r\n  \t \nb\n"c\td"\t"2\n3"', ['label', 'lat']);
    expect(limitExceeded).toBe(false);
    expect(rows).toEqual([
      { line: 1, cells: { label: 'a', lat: '1' } },
      { line: 4, cells: { label: 'b', lat: '' } },
      { line: 5, cells: { label: 'c\td', lat: '2\n3' } },
    ]);
  });
  it('cuts at maxRows with limitExceeded', () => {
    expect(parseBatch('a\nb\nc', ['label'], 2)).toEqual({ rows: [expect.anything(), expect.anything()], limitExceeded: true });
    expect(parseBatch('a\nb', ['label'], 2).limitExceeded).toBe(false);
    expect(parseBatch('a', ['label'], 0)).toEqual({ rows: [], limitExceeded: true });
  });
  it('234 for more cells than fields, unbalanced quotes, binary data', () => {
    expect(code(() => parseBatch('a\tb', ['label']))).toBe(234);
    expect(code(() => parseBatch('"a\tb', ['label', 'x']))).toBe(234);
    expect(code(() => parseBatch('a\u0001', ['label']))).toBe(234);
  });
});

describe('cells', () => {
  it('numbers with a decimal point or comma', () => {
    expect([numberCell(''), numberCell('1.5'), numberCell('-1,5'), numberCell(' 2 '), numberCell('1e3')]).toEqual([undefined, 1.5, -1.5, 2, 1000]);
    expect(numberCell('abc')).toBeNaN();
    expect(numberCell('1.2.3')).toBeNaN();
  });
  it('coordinates: both or neither, in range', () => {
    const errors: RowError[] = [];
    expect(coordinateCells({ lat: '1', lng: '2' }, errors)).toEqual({ lat: 1, lng: 2 });
    expect(coordinateCells({ lat: '', lng: '' }, errors)).toBeUndefined();
    expect(errors).toEqual([]);
    expect(coordinateCells({ lat: '1', lng: '' }, errors)).toBeUndefined();
    expect(coordinateCells({ lat: '1', lng: '181' }, errors)).toBeUndefined();
    expect(errors.map((e) => e.parameter)).toEqual(['lng', 'lng']);
  });
  it('integers within bounds or the default; tag names', () => {
    const errors: RowError[] = [];
    expect(intCell({ r: '' }, 'r', 1, 10, 5, errors)).toBe(5);
    expect(intCell({ r: '7' }, 'r', 1, 10, 5, errors)).toBe(7);
    expect(intCell({ r: '7.5' }, 'r', 1, 10, 5, errors)).toBe(5);
    expect(errors).toEqual([{ parameter: 'r', error: 'an integer from 1 to 10 is expected' }]);
    expect(tagNamesCell(' a, b;a ,, ')).toEqual(['a', 'b']);
  });
});

describe('simplify', () => {
  it('keeps first and last, answers exactly count points, and returns short lists unchanged', () => {
    const pts = Array.from({ length: 50 }, (_, i) => ({ lat: i, lng: Math.sin(i), node: false }));
    const s = simplify(pts, 10);
    expect(s).toHaveLength(10);
    expect([s[0], s[9]]).toEqual([pts[0], pts[49]]);
    expect(simplify(pts, 60)).toEqual(pts);
  });
  it('drops collinear points first', () => {
    const pts = [0, 1, 2, 3].map((i) => ({ lat: 0, lng: i, node: false })).concat([{ lat: 5, lng: 3, node: false }]);
    expect(simplify(pts, 3).map((p) => [p.lat, p.lng])).toEqual([[0, 0], [0, 3], [5, 3]]);
  });
});
