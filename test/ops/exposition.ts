/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be a
 * HELP, a TYPE, a sample of the family declared before it or empty (ignored by the format), names and labels well formed, label
 * values escaped, each series once, a family's samples together, histogram buckets cumulative with
 * `+Inf` equal to `_count`. Anything else throws, naming the line.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parseExposition(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, Family>();
  const series = new Set<string>();
  let current: Family | undefined;
  const lines = text.slice(0, -1).split('\n');
  lines.forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line === '') return; // the format ignores empty lines
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return fail('a comment other than HELP or TYPE');
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) fail('bad metric name');
      let f = families.get(name);
      if (f && f !== current) fail('family declared again after others');
      if (!f) {
        f = { name, type: 'untyped', help: '', samples: [] };
        families.set(name, f);
        (f as Family & { seen: Set<string> }).seen = new Set();
      }
      const seen = (f as Family & { seen: Set<string> }).seen;
      if (seen.has(kind)) fail(`second ${kind}`);
      seen.add(kind);
      if (f.samples.length) fail(`${kind} after samples`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) fail('unknown type');
        f.type = rest as Family['type'];
      } else {
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ''))) fail('bad escape in HELP');
        f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      }
      current = f;
      return;
    }
    const sample = parseSample(line, fail);
    if (!current) return fail('sample before any TYPE');
    const base = current.type === 'histogram' ? sample.name.replace(/_(bucket|sum|count)$/, '') : current.type === 'summary' ? sample.name.replace(/_(sum|count)$/, '') : sample.name;
    if (base !== current.name) fail(`sample of another family than ${current.name}`);
    if (current.type === 'histogram' && sample.name === current.name) fail('histogram sample without _bucket/_sum/_count');
    if (current.type === 'histogram' && sample.name.endsWith('_bucket') && sample.labels.le === undefined) fail('bucket without le');
    if (current.type === 'counter' && sample.value < 0) fail('negative counter');
    const key = `${sample.name}{${Object.entries(sample.labels).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (series.has(key)) fail('series repeated');
    series.add(key);
    current.samples.push(sample);
  });
  for (const f of families.values()) {
    delete (f as Family & { seen?: Set<string> }).seen;
    if (f.type === 'histogram') checkHistogram(f);
  }
  return families;
}

function parseSample(line: string, fail: (why: string) => never): Sample {
  const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
  if (!m) return fail('not a sample line');
  const [, name, rawLabels, rawValue] = m;
  const labels: Record<string, string> = {};
  if (rawLabels) {
    let rest = rawLabels.slice(1, -1);
    while (rest.length) {
      const l = /^([^=]+)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
      if (!l) fail('malformed labels');
      const [all, label, value] = l!;
      if (!LABEL.test(label) || label.startsWith('__')) fail(`bad label name ${label}`);
      if (label in labels) fail(`label ${label} twice`);
      labels[label] = value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
      rest = rest.slice(all.length);
    }
  }
  let value: number;
  // Prometheus reads values with Go's ParseFloat, which takes NaN and Inf in any case (prom-client
  // writes `Nan` for an event-loop figure not measured yet).
  if (/^\+?inf$/i.test(rawValue)) value = Infinity;
  else if (/^-inf$/i.test(rawValue)) value = -Infinity;
  else if (/^nan$/i.test(rawValue)) value = NaN;
  else if (/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(rawValue)) value = Number(rawValue);
  else return fail('bad value');
  return { name, labels, value };
}

function checkHistogram(f: Family): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const g = groups.get(key) ?? { buckets: [] };
    groups.set(key, g);
    if (s.name.endsWith('_bucket')) g.buckets.push([le === '+Inf' ? Infinity : Number(le), s.value]);
    else if (s.name.endsWith('_count')) g.count = s.value;
    else g.sum = s.value;
  }
  for (const [key, g] of groups) {
    if (g.count === undefined || g.sum === undefined) throw new Error(`${f.name}${key}: _count or _sum missing`);
    for (let i = 1; i < g.buckets.length; i++) {
      if (!(g.buckets[i][0] > g.buckets[i - 1][0])) throw new Error(`${f.name}${key}: buckets not in increasing le order`);
      if (g.buckets[i][1] < g.buckets[i - 1][1]) throw new Error(`${f.name}${key}: buckets not cumulative`);
    }
    const last = g.buckets.at(-1);
    if (!last || last[0] !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    if (last[1] !== g.count) throw new Error(`${f.name}${key}: +Inf bucket ${last[1]} differs from _count ${g.count}`);
  }
}

/** The value of one series (labels matched exactly); undefined when absent. */
export function valueOf(families: Map<string, Family>, family: string, sample: string, labels: Record<string, string> = {}): number | undefined {
  const f = families.get(family);
  const want = JSON.stringify(Object.entries(labels).sort());
  return f?.samples.find((s) => s.name === sample && JSON.stringify(Object.entries(s.labels).sort()) === want)?.value;
}
