/** The condition checker of the ground floor: typed output, the limits, and no recursion on hostile nesting. */
import { describe, expect, it } from 'vitest';
import { MAX_NESTING, parseConditions, parseSort } from '../../src/core/conditions.ts';
import { DomainError } from '../../src/core/errors.ts';

const error = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DomainError ? { code: e.code, ...(e.extra as object) } : e;
  }
  return 'no error';
};
const leaf = { type: 'eq', field: 'label', value: 'x' };
function nest(levels: number): unknown {
  let c: unknown = leaf;
  for (let i = 1; i < levels; i++) c = { type: 'not', condition: c };
  return c;
}

describe('parseConditions', () => {
  it('answers the typed tree, dropping unknown members', () => {
    const raw = [{ type: 'or', extra: 1, conditions: [leaf, { type: 'in', field: 'id', value: [1, null] }] }, { type: 'period', field: 'from', value: { from: 'a', to: 'b', x: 1 } }];
    expect(parseConditions(raw)).toEqual([
      { type: 'or', conditions: [leaf, { type: 'in', field: 'id', value: [1, null] }] },
      { type: 'period', field: 'from', value: { from: 'a', to: 'b' } },
    ]);
  });
  it('nesting: the limit passes, one more level and 100,000 levels are 7 naming conditions', () => {
    expect(parseConditions([nest(MAX_NESTING)])).toHaveLength(1);
    const tooDeep = { code: 7, errors: [{ parameter: 'conditions', error: `conditions nest at most ${MAX_NESTING} levels deep` }] };
    expect(error(() => parseConditions([nest(MAX_NESTING + 1)]))).toEqual(tooDeep);
    expect(error(() => parseConditions([nest(100_000)]))).toEqual(tooDeep);
  });
  it('names the place at fault, in request order', () => {
    expect(error(() => parseConditions([leaf, { type: 'and', conditions: [leaf, { type: 'eq', field: '', value: 1 }] }, { type: 'xor' }]))).toEqual({
      code: 7,
      errors: [
        { parameter: 'conditions.1.conditions.1.field', error: 'a field name of 1 to 64 characters is expected' },
        { parameter: 'conditions.2.type', error: 'one of and, or, not, eq, contains, in, period is expected' },
      ],
    });
    expect(error(() => parseConditions([{ type: 'and', conditions: [leaf] }]))).toMatchObject({ code: 7, errors: [{ parameter: 'conditions.0.conditions' }] });
    expect(error(() => parseConditions([{ type: 'in', field: 'id', value: Array(1001).fill(1) }]))).toMatchObject({ code: 7, errors: [{ parameter: 'conditions.0.value' }] });
    expect(error(() => parseConditions([{ type: 'eq', field: 'id', value: { a: 1 } }]))).toMatchObject({ code: 7, errors: [{ parameter: 'conditions.0.value' }] });
    expect(error(() => parseConditions(Array(37).fill({ type: 'not', condition: leaf })))).toEqual({ code: 7, errors: [{ parameter: 'conditions', error: 'at most 72 conditions in total, got 74' }] });
  });
  it('parseSort: field=asc|desc, else 7 naming sort.<i>', () => {
    expect(parseSort(['label=DESC', 'id=asc'])).toEqual([{ field: 'label', descending: true }, { field: 'id', descending: false }]);
    expect(error(() => parseSort(['id=asc', 'label; DROP TABLE t=asc']))).toMatchObject({ code: 7, errors: [{ parameter: 'sort.1' }] });
  });
});
