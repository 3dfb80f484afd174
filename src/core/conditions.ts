/**
 * The search-condition language of the list calls (task/list, place/list, checkin/list) as data:
 * the typed condition tree and sort keys named by field, and the checks that turn a request's JSON
 * into them (code 7 naming the parameter). The store compiles them to SQL (src/store/conditions.ts).
 *
 *   {type: "and"|"or", conditions: [2..60 conditions]}   {type: "not", condition}
 *   {type: "eq", field, value}          (value null: IS NULL)
 *   {type: "contains", field, value}    (string, at most 760 characters; case-insensitive)
 *   {type: "in", field, value: [1..1000 values]}
 *   {type: "period", field, value: {from, to}}   (inclusive; date/times in the user's zone)
 * At most 72 conditions in total, nested at most MAX_NESTING levels; the top-level array is joined
 * with AND. The checks walk the tree with an explicit stack: no input can exhaust the call stack.
 */
import { invalidParams } from './errors.ts';

export type Scalar = string | number | boolean | null;

export type Condition =
  | { type: 'and' | 'or'; conditions: Condition[] }
  | { type: 'not'; condition: Condition }
  | { type: 'eq'; field: string; value: Scalar }
  | { type: 'contains'; field: string; value: string }
  | { type: 'in'; field: string; value: Scalar[] }
  | { type: 'period'; field: string; value: { from: string; to: string } };

export type ContainsCondition = Extract<Condition, { type: 'contains' }>;

/** A sort key of a list call: a field name (checked by the store against the list's fields) and a direction. */
export interface SortKey {
  field: string;
  descending: boolean;
}

export const MAX_CONDITIONS = 72;
/** Deepest nesting: a top-level condition is level 1, the conditions inside an and/or/not level 2, ... */
export const MAX_NESTING = 16;
export const MAX_GROUP = 60;
export const MAX_IN_VALUES = 1000;
export const MAX_CONTAINS = 760;
const MAX_FIELD = 64;

type Problem = { parameter: string; error: string };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isScalar = (v: unknown): v is Scalar => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** The children of a raw node that is an and/or/not, for the depth walk (anything else: none). */
function children(v: unknown): unknown[] {
  if (!isObject(v)) return [];
  if ((v.type === 'and' || v.type === 'or') && Array.isArray(v.conditions)) return v.conditions;
  if (v.type === 'not' && v.condition !== undefined) return [v.condition];
  return [];
}

/** The nesting depth of the raw JSON, stopping as soon as it passes `limit`. */
function depthOver(roots: unknown[], limit: number): boolean {
  const stack: Array<{ node: unknown; depth: number }> = roots.map((node) => ({ node, depth: 1 }));
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (depth > limit) return true;
    for (const c of children(node)) stack.push({ node: c, depth: depth + 1 });
  }
  return false;
}

/**
 * The `conditions` parameter (a JSON array) -> typed conditions. Throws code 7: naming `parameter`
 * for too deep nesting or too many conditions, else naming the place at fault (`conditions.0.field`).
 */
export function parseConditions(raw: unknown, parameter = 'conditions'): Condition[] {
  if (!Array.isArray(raw)) throw invalidParams([{ parameter, error: 'an array of conditions is expected' }]);
  // Depth first, before anything else walks the tree.
  if (depthOver(raw, MAX_NESTING)) throw invalidParams([{ parameter, error: `conditions nest at most ${MAX_NESTING} levels deep` }]);
  const problems: Problem[] = [];
  let total = 0;
  const out: Condition[] = new Array(raw.length);
  // Each stack entry fills one slot of its parent once read; depth is bounded, the loop is flat.
  const stack: Array<{ node: unknown; path: string; put: (c: Condition) => void }> = [];
  // Pushed last to first, so problems are found (and listed) in the order of the request.
  for (let i = raw.length - 1; i >= 0; i--) stack.push({ node: raw[i], path: `${parameter}.${i}`, put: (c) => (out[i] = c) });
  while (stack.length) {
    const { node, path, put } = stack.pop()!;
    total++;
    const bad = (where: string, error: string) => problems.push({ parameter: where ? `${path}.${where}` : path, error });
    if (!isObject(node)) {
      bad('', 'a condition object is expected');
      continue;
    }
    switch (node.type) {
      case 'and':
      case 'or': {
        const list = node.conditions;
        if (!Array.isArray(list) || list.length < 2 || list.length > MAX_GROUP) {
          bad('conditions', `an array of 2 to ${MAX_GROUP} conditions is expected`);
          continue;
        }
        const c: Condition = { type: node.type, conditions: new Array(list.length) };
        put(c);
        for (let i = list.length - 1; i >= 0; i--) stack.push({ node: list[i], path: `${path}.conditions.${i}`, put: (y) => (c.conditions[i] = y) });
        continue;
      }
      case 'not': {
        if (node.condition === undefined) {
          bad('condition', 'required');
          continue;
        }
        const c = { type: 'not', condition: undefined as unknown as Condition } satisfies Condition;
        put(c);
        stack.push({ node: node.condition, path: `${path}.condition`, put: (y) => (c.condition = y) });
        continue;
      }
      case 'eq':
      case 'contains':
      case 'in':
      case 'period':
        break;
      default:
        bad('type', 'one of and, or, not, eq, contains, in, period is expected');
        continue;
    }
    const field = node.field;
    if (typeof field !== 'string' || field.length < 1 || field.length > MAX_FIELD) {
      bad('field', `a field name of 1 to ${MAX_FIELD} characters is expected`);
      continue;
    }
    const v = node.value;
    if (node.type === 'eq') {
      if (!isScalar(v)) bad('value', 'a string, number, boolean or null is expected');
      else put({ type: 'eq', field, value: v });
    } else if (node.type === 'contains') {
      if (typeof v !== 'string' || v.length > MAX_CONTAINS) bad('value', `a string of at most ${MAX_CONTAINS} characters is expected`);
      else put({ type: 'contains', field, value: v });
    } else if (node.type === 'in') {
      if (!Array.isArray(v) || v.length < 1 || v.length > MAX_IN_VALUES || !v.every(isScalar)) bad('value', `an array of 1 to ${MAX_IN_VALUES} strings, numbers, booleans or nulls is expected`);
      else put({ type: 'in', field, value: v as Scalar[] });
    } else {
      if (!isObject(v) || typeof v.from !== 'string' || typeof v.to !== 'string') bad('value', 'an object {from, to} of date/times is expected');
      else put({ type: 'period', field, value: { from: v.from, to: v.to } });
    }
  }
  if (total > MAX_CONDITIONS) throw invalidParams([{ parameter, error: `at most ${MAX_CONDITIONS} conditions in total, got ${total}` }]);
  if (problems.length) throw invalidParams(problems);
  return out;
}

/** The number of conditions in a (checked) tree. */
export function countConditions(conditions: readonly Condition[]): number {
  let n = 0;
  const stack: Condition[] = [...conditions];
  while (stack.length) {
    const c = stack.pop()!;
    n++;
    if (c.type === 'and' || c.type === 'or') stack.push(...c.conditions);
    else if (c.type === 'not') stack.push(c.condition);
  }
  return n;
}

/** `sort` items `field=asc|desc` -> sort keys (7 naming `sort.<i>` for anything else). */
export function parseSort(items: readonly string[] | undefined, parameter = 'sort'): SortKey[] {
  return (items ?? []).map((item, i) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]{0,63})=(asc|desc)$/i.exec(item);
    if (!m) throw invalidParams([{ parameter: `${parameter}.${i}`, error: 'expected field=asc or field=desc' }]);
    return { field: m[1], descending: m[2].toLowerCase() === 'desc' };
  });
}
