/**
 * Parameters arrive as JSON, as form fields (nested values as JSON strings) or in the query
 * string (everything a string). `coerce` walks the call's zod schema and turns such strings into
 * the declared types, so one schema serves every request format; zod then validates.
 */
import type { z } from 'zod';

type Def = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; element?: z.ZodType; options?: z.ZodType[]; valueType?: z.ZodType; in?: z.ZodType };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

export function coerce(schema: z.ZodType, value: unknown): unknown {
  let def = defOf(schema);
  let nullable = false;
  while (WRAPPERS.has(def.type) && def.innerType) {
    if (def.type === 'nullable') nullable = true;
    def = defOf(def.innerType);
  }
  if (def.type === 'pipe' && def.in) return coerce(def.in, value);
  if (typeof value === 'string') {
    if (nullable && value === 'null' && def.type !== 'string') return null;
    switch (def.type) {
      case 'number':
      case 'int':
        return /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(value) ? Number(value) : value;
      case 'boolean':
        return value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;
      case 'object':
      case 'array':
      case 'record': {
        const t = value.trim();
        if (!t.startsWith('{') && !t.startsWith('[')) {
          // a single scalar where a list is expected (e.g. ?trackers=5)
          if (def.type === 'array' && def.element && t !== '') return [coerce(def.element, value)];
          return value;
        }
        try {
          return coerce(schema, JSON.parse(t));
        } catch {
          return value;
        }
      }
      case 'union':
        for (const o of def.options ?? []) {
          const c = coerce(o, value);
          if (c !== value) return c;
        }
        return value;
      default:
        return value;
    }
  }
  if (Array.isArray(value) && def.type === 'array' && def.element) return value.map((v) => coerce(def.element!, v));
  if (value && typeof value === 'object' && !Array.isArray(value) && !Buffer.isBuffer(value)) {
    if (def.type === 'object' && def.shape) {
      const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
      for (const [k, s] of Object.entries(def.shape)) if (k in out) out[k] = coerce(s, out[k]);
      return out;
    }
    if (def.type === 'record' && def.valueType) {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, coerce(def.valueType!, v)]));
    }
  }
  return value;
}

/**
 * zod issues -> the `errors: [{parameter, error}]` member of a code 7 answer. `input` is what was
 * validated: a value of the wrong type is told apart from a missing one by looking it up there.
 */
export function issuesToErrors(issues: z.core.$ZodIssue[], input?: unknown): Array<{ parameter: string; error: string }> {
  return issues.map((i) => ({
    parameter: i.path.length ? i.path.map(String).join('.') : '(parameters)',
    error: describeIssue(i, 'input' in i ? i.input : valueAt(input, i.path)),
  }));
}

function describeIssue(i: z.core.$ZodIssue, value: unknown): string {
  if (i.code !== 'invalid_type') return i.message;
  return value === undefined ? 'required' : `expected ${i.expected}, got ${typeName(value)}`;
}

function valueAt(root: unknown, path: PropertyKey[]): unknown {
  let v = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

/** The JSON-ish name of a value's type, as a client would call it. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  if (Buffer.isBuffer(v) || (typeof v === 'object' && 'data' in v && Buffer.isBuffer((v as { data: unknown }).data))) return 'file';
  return typeof v;
}

/**
 * Merge the query string with the body (the body wins). Form and query keys written `name[]`
 * (as PHP clients send lists) become arrays under `name`.
 */
export function mergeParams(query: unknown, body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const src of [query, body]) {
    if (!src || typeof src !== 'object' || Array.isArray(src) || Buffer.isBuffer(src)) continue;
    for (const [k, v] of Object.entries(src as Record<string, unknown>)) {
      if (k.endsWith('[]')) out[k.slice(0, -2)] = Array.isArray(v) ? v : [v];
      else out[k] = v;
    }
  }
  return out;
}
