/** The search-condition language compiled against a real SQLite table: results, limits and hostile input. */
import Database from '../../src/store/sqlite.ts';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/core/errors.ts';
import { parseConditions, parseSort, type Condition } from '../../src/core/conditions.ts';
import { compileConditions, compileSort, type FieldMap } from '../../src/store/conditions.ts';

const db = new Database(':memory:');
db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, label TEXT, n INTEGER, at INTEGER, maybe INTEGER);
  CREATE TABLE extra (t_id INTEGER, field_id INTEGER, text TEXT);
  INSERT INTO t VALUES (1, 'North depot', 5, ${Date.UTC(2026, 0, 1, 12)}, NULL), (2, 'South 50%_off', 7, ${Date.UTC(2026, 0, 2, 12)}, 3), (3, 'east', 9, ${Date.UTC(2026, 0, 3, 12)}, NULL);
  INSERT INTO extra VALUES (1, 17, 'red'), (2, 17, 'blue');`);
const fields: FieldMap = {
  id: { sql: 't.id', kind: 'number' },
  label: { sql: 't.label', kind: 'string' },
  n: { sql: 't.n', kind: 'number' },
  at: { sql: 't.at', kind: 'datetime' },
  maybe: { sql: 't.maybe', kind: 'number', nullable: true },
};
const custom = (id: number) => (id === 17 ? { sql: '(SELECT text FROM extra WHERE t_id = t.id AND field_id = ?)', kind: 'string' as const, nullable: true, params: [17] } : undefined);

function ids(conditions: Condition[], sort?: string[]): number[] {
  const c = compileConditions(conditions, { fields, timeZone: 'Europe/Berlin', customField: custom });
  return db.prepare(`SELECT id FROM t WHERE ${c.sql} ORDER BY ${compileSort(parseSort(sort), fields, 't.id')}`).pluck().all(...c.params) as number[];
}
const error = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof DomainError ? { code: e.code, ...(e.extra as object) } : e;
  }
  return 'no error';
};

describe('conditions', () => {
  it('eq, contains (literal % and _), in, period, not, and/or', () => {
    expect(ids([{ type: 'eq', field: 'label', value: 'EAST' }])).toEqual([3]);
    expect(ids([{ type: 'contains', field: 'label', value: '50%_' }])).toEqual([2]);
    expect(ids([{ type: 'contains', field: 'label', value: '%' }])).toEqual([2]);
    expect(ids([{ type: 'in', field: 'n', value: [5, 9] }])).toEqual([1, 3]);
    expect(ids([{ type: 'period', field: 'at', value: { from: '2026-01-02 00:00:00', to: '2026-01-03 13:00:00' } }])).toEqual([2, 3]);
    expect(ids([{ type: 'not', condition: { type: 'eq', field: 'n', value: 5 } }])).toEqual([2, 3]);
    expect(ids([{ type: 'or', conditions: [{ type: 'eq', field: 'id', value: 1 }, { type: 'eq', field: 'id', value: 3 }] }], ['id=desc'])).toEqual([3, 1]);
    expect(ids([{ type: 'eq', field: 'maybe', value: null }])).toEqual([1, 3]);
  });
  it('custom fields bind their parameters at every place they are used', () => {
    expect(ids([{ type: 'eq', field: '17', value: 'red' }])).toEqual([1]);
    expect(ids([{ type: 'in', field: '17', value: ['blue', null] }])).toEqual([2, 3]);
  });
  it('hostile field names are refused with 7; hostile values are matched literally', () => {
    expect(error(() => ids([{ type: 'eq', field: 'label; DROP TABLE t', value: 'x' }]))).toMatchObject({ code: 7, errors: [{ parameter: 'conditions.0.field' }] });
    expect(ids([{ type: 'eq', field: 'label', value: "' OR 1=1 --" }])).toEqual([]);
    expect(error(() => ids([], ['label; DROP TABLE t=asc']))).toMatchObject({ code: 7, errors: [{ parameter: 'sort.0' }] });
    expect(error(() => ids([{ type: 'eq', field: '__proto__', value: 1 }]))).toMatchObject({ code: 7 });
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(3);
  });
  it('at most 72 conditions in total; wrong value types name the value', () => {
    const leaf: Condition = { type: 'eq', field: 'id', value: 1 };
    const many: Condition[] = Array.from({ length: 37 }, () => ({ type: 'not', condition: leaf }) as Condition);
    expect(error(() => ids(many))).toMatchObject({ code: 7, errors: [{ parameter: 'conditions', error: 'at most 72 conditions in total, got 74' }] });
    expect(error(() => ids([{ type: 'eq', field: 'n', value: 'many' }]))).toMatchObject({ code: 7, errors: [{ parameter: 'conditions.0.value' }] });
    expect(error(() => ids([{ type: 'period', field: 'at', value: { from: 'yesterday', to: '2026-01-01 00:00:00' } }]))).toMatchObject({ code: 7 });
    expect(error(() => ids([{ type: 'contains', field: 'n', value: '5' }]))).toMatchObject({ code: 7, errors: [{ parameter: 'conditions.0.field' }] });
  });
});
