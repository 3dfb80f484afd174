/**
 * Compiles the typed conditions and sort keys of the list calls (src/core/conditions.ts) to SQL
 * WHERE / ORDER BY fragments with bound parameters. Field names are looked up in the list's
 * whitelist (or resolved as custom field ids); nothing from a request is ever spliced into SQL.
 * A list of values (`in`) is bound as one JSON array read with json_each, never one placeholder a
 * value: SQLite's bound-variable limit cannot be reached by a legal request (issue 10).
 */
import { countConditions, MAX_CONDITIONS, type Condition, type SortKey } from '../core/conditions.ts';
import { invalidParams } from '../core/errors.ts';
import { parseDateTime } from '../core/time.ts';
import { like, LIKE } from './text-search.ts';

export type FieldKind = 'number' | 'string' | 'datetime' | 'boolean';

/** A whitelisted field: the SQL expression it reads (a constant of our code) and its kind. */
export interface FieldSpec {
  sql: string;
  kind: FieldKind;
  nullable?: boolean;
  /** Expression to sort by when it differs from `sql` (e.g. employee -> full name). */
  sortSql?: string;
}

export type FieldMap = Readonly<Record<string, FieldSpec>>;

/** `x IN` this, with the list bound as one JSON array parameter. */
export const JSON_LIST = '(SELECT value FROM json_each(?))';

/**
 * `sql` contains `text` (case-insensitive for ASCII, as LIKE is): the term and its pattern. The
 * ESCAPE clause only when the text holds a wildcard or the escape character: SQLite matches a
 * pattern without it about a third faster, and a contains filter tests every row of a selection.
 */
export function containsTerm(sql: string, text: string): { sql: string; param: string } {
  if (!/[\\%_]/.test(text)) return { sql: `${sql} LIKE ?`, param: `%${text}%` };
  return { sql: `${sql} ${LIKE}`, param: like(text) };
}

export interface Compiled {
  sql: string;
  params: unknown[];
}

export interface CompileOptions {
  fields: FieldMap;
  /** The user's time zone, for date/time values. */
  timeZone: string;
  /** Resolves a custom field id (digits) to a field of the entity; undefined when it is not one of the user's. */
  customField?: (id: number) => FieldSpec & { params?: unknown[] } | undefined;
  /** Parameter name for error messages. */
  parameter?: string;
}

/** Compile the top-level array; `{sql: '1=1'}` when empty. Throws code 7 naming the condition at fault. */
export function compileConditions(conditions: Condition[] | undefined, opts: CompileOptions): Compiled {
  const parameter = opts.parameter ?? 'conditions';
  if (!conditions?.length) return { sql: '1=1', params: [] };
  const total = countConditions(conditions);
  if (total > MAX_CONDITIONS) throw invalidParams([{ parameter, error: `at most ${MAX_CONDITIONS} conditions in total, got ${total}` }]);
  const params: unknown[] = [];
  const parts = conditions.map((c, i) => compile(c, `${parameter}.${i}`, opts, params));
  return { sql: parts.map((p) => `(${p})`).join(' AND '), params };
}

function resolve(field: string, path: string, opts: CompileOptions, _params: unknown[]): FieldSpec & { params?: unknown[] } {
  const spec = Object.hasOwn(opts.fields, field) ? opts.fields[field] : /^\d{1,9}$/.test(field) ? opts.customField?.(Number(field)) : undefined;
  if (!spec) throw invalidParams([{ parameter: `${path}.field`, error: `unknown field ${JSON.stringify(field).slice(0, 80)}; fields: ${Object.keys(opts.fields).join(', ')} or a custom field id` }]);
  return spec;
}

/** The field's SQL at one place of the statement, binding the field's own parameters for that place. */
function use(spec: FieldSpec & { params?: unknown[] }, params: unknown[]): string {
  if (spec.params) params.push(...spec.params);
  return spec.sql;
}

function value(spec: FieldSpec, v: unknown, path: string, opts: CompileOptions): unknown {
  const bad = (what: string) => invalidParams([{ parameter: `${path}.value`, error: what }]);
  switch (spec.kind) {
    case 'number':
      if (typeof v === 'number' && Number.isFinite(v)) return v;
      if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
      throw bad('a number is expected');
    case 'boolean':
      if (typeof v === 'boolean') return v ? 1 : 0;
      throw bad('true or false is expected');
    case 'datetime': {
      const ms = typeof v === 'string' ? parseDateTime(v, opts.timeZone) : undefined;
      if (ms === undefined) throw bad('a date/time yyyy-MM-dd HH:mm:ss is expected');
      return ms;
    }
    default:
      if (typeof v === 'string' || typeof v === 'number') return String(v);
      throw bad('a string is expected');
  }
}

function compile(c: Condition, path: string, opts: CompileOptions, params: unknown[]): string {
  switch (c.type) {
    case 'and':
    case 'or':
      return c.conditions.map((x, i) => `(${compile(x, `${path}.conditions.${i}`, opts, params)})`).join(c.type === 'and' ? ' AND ' : ' OR ');
    case 'not':
      return `NOT (${compile(c.condition, `${path}.condition`, opts, params)})`;
    case 'eq': {
      const spec = resolve(c.field, path, opts, params);
      if (c.value === null) {
        if (!spec.nullable) throw invalidParams([{ parameter: `${path}.value`, error: `${c.field} is never null` }]);
        return `${use(spec, params)} IS NULL`;
      }
      const v = value(spec, c.value, path, opts);
      const sql = use(spec, params);
      params.push(v);
      return spec.kind === 'string' ? `${sql} = ? COLLATE NOCASE` : `${sql} = ?`;
    }
    case 'contains': {
      const spec = resolve(c.field, path, opts, params);
      if (spec.kind !== 'string') throw invalidParams([{ parameter: `${path}.field`, error: `contains needs a text field; ${c.field} is a ${spec.kind}` }]);
      const term = containsTerm(use(spec, params), c.value);
      params.push(term.param);
      return term.sql;
    }
    case 'in': {
      const spec = resolve(c.field, path, opts, params);
      const values = c.value.filter((v) => v !== null).map((v) => value(spec, v, path, opts));
      const hasNull = c.value.some((v) => v === null);
      if (hasNull && !spec.nullable) throw invalidParams([{ parameter: `${path}.value`, error: `${c.field} is never null` }]);
      let list = '0';
      if (values.length) {
        list = `${use(spec, params)} IN ${JSON_LIST}`;
        params.push(JSON.stringify(values));
      }
      return hasNull ? `(${list} OR ${use(spec, params)} IS NULL)` : list;
    }
    case 'period': {
      const spec = resolve(c.field, path, opts, params);
      if (spec.kind !== 'datetime') throw invalidParams([{ parameter: `${path}.field`, error: `period needs a date/time field; ${c.field} is a ${spec.kind}` }]);
      const from = value(spec, c.value.from, `${path}.value.from`.replace(/\.value$/, ''), opts) as number;
      const to = value(spec, c.value.to, `${path}.value.to`.replace(/\.value$/, ''), opts) as number;
      if (to < from) throw invalidParams([{ parameter: `${path}.value.to`, error: 'to must not be before from' }]);
      const sql = use(spec, params);
      params.push(from, to);
      return `${sql} BETWEEN ? AND ?`;
    }
  }
}

/** Sort keys -> ORDER BY terms from the whitelist (id last, for a stable order); 7 naming `sort.<i>` for other fields. */
export function compileSort(sort: readonly SortKey[] | undefined, fields: FieldMap, idSql: string, parameter = 'sort'): string {
  const terms: string[] = [];
  (sort ?? []).forEach((key, i) => {
    if (!Object.hasOwn(fields, key.field)) throw invalidParams([{ parameter: `${parameter}.${i}`, error: `expected field=asc or field=desc with a field of: ${Object.keys(fields).join(', ')}` }]);
    const spec = fields[key.field];
    terms.push(`${spec.sortSql ?? spec.sql} ${key.descending ? 'DESC' : 'ASC'}`);
  });
  terms.push(`${idSql} ASC`);
  return terms.join(', ');
}
