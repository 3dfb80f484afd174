/**
 * The `attrs` column of a fix chunk: JSON object texts (or null) given back identical.
 *
 * A text splits into its keys and value texts, `{k1:v1,k2:v2}` exactly (no whitespace, as
 * JSON.stringify and SQLite json_patch write them); the keys' order is a "shape" (a list of key ids),
 * and each key has a column of its values in row order. A value is a number when String(Number(text))
 * gives its text back, else a text kept verbatim in the key's dictionary (strings with their quotes,
 * true, false, null, nested objects and arrays). The split is exact by construction: every
 * character of the text is a key, a value or a separator checked in place, and a value becomes a
 * number only when its text is the one the decoder writes back. A row that does not split so
 * (whitespace, not an object, a key twice) is kept verbatim ("escape").
 *
 * Index block:  varint keys, each a string (the key's JSON text with quotes);
 *               varint shapes, each varint length + key ids;
 *               n varints, one per row: 0 null, 1 escape, 2 + shape;
 *               varint escapes, each a string (the row's text).
 * Key block:    (values: one per row with the key) u8 mode: 0 all numbers, 1 all texts, 2 mixed
 *               (then one byte per value: 0 number, 1 text); the numbers as a number column
 *               (src/core/chunk-numbers.ts); the texts: varint dictionary size, the entries as
 *               strings (order of first use), one varint entry index per text value.
 */
import { ByteReader, ByteWriter } from './chunk-bytes.ts';
import { readNumbers, writeNumbers } from './chunk-numbers.ts';

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const OPEN = 123;
const CLOSE = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;

/** End (exclusive) of the JSON string starting at `i` (a quote), or -1. */
function stringEnd(s: string, i: number): number {
  const n = s.length;
  for (let j = i + 1; j < n; j++) {
    const c = s.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  return -1;
}

/** End of the value starting at `i`, at depth 0 ending before `,` or `}`; -1 if malformed. */
function valueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === QUOTE) return stringEnd(s, i);
  if (c === OPEN || c === OPEN_ARRAY) {
    let depth = 0;
    for (let j = i; j < s.length; j++) {
      const x = s.charCodeAt(j);
      if (x === QUOTE) {
        j = stringEnd(s, j) - 1;
        if (j < 0) return -1;
      } else if (x === OPEN || x === OPEN_ARRAY) depth++;
      else if (x === CLOSE || x === CLOSE_ARRAY) {
        if (--depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < s.length) {
    const x = s.charCodeAt(j);
    if (x === COMMA || x === CLOSE || x === QUOTE || x === OPEN || x === OPEN_ARRAY) break;
    j++;
  }
  return j > i ? j : -1;
}

/**
 * Splits `{k:v,...}` into key texts and value spans [starts[j], ends[j]); false when the text is
 * not of that form. Every character is a key, a value or a separator checked in place, so the
 * parts put back together are the text.
 */
function split(s: string, keys: string[], starts: number[], ends: number[]): boolean {
  keys.length = 0;
  starts.length = 0;
  ends.length = 0;
  const n = s.length;
  if (n < 2 || s.charCodeAt(0) !== OPEN || s.charCodeAt(n - 1) !== CLOSE) return false;
  if (n === 2) return true;
  let i = 1;
  for (;;) {
    if (s.charCodeAt(i) !== QUOTE) return false;
    const ke = stringEnd(s, i);
    if (ke < 0 || s.charCodeAt(ke) !== COLON) return false;
    keys.push(s.slice(i, ke));
    const ve = valueEnd(s, ke + 1);
    if (ve < 0) return false;
    starts.push(ke + 1);
    ends.push(ve);
    const sep = s.charCodeAt(ve);
    if (ve === n - 1 && sep === CLOSE) return true;
    if (sep !== COMMA) return false;
    i = ve + 1;
  }
}

/** The same split for a text whose keys are `keys` in this order (the shape of the row before): no key is cut out. */
function splitAs(s: string, keys: readonly string[], starts: number[], ends: number[]): boolean {
  const n = s.length;
  if (keys.length === 0) return s === '{}';
  if (s.charCodeAt(0) !== OPEN || s.charCodeAt(n - 1) !== CLOSE) return false;
  let i = 1;
  for (let j = 0; j < keys.length; j++) {
    const k = keys[j];
    if (!s.startsWith(k, i) || s.charCodeAt(i + k.length) !== COLON) return false;
    const ve = valueEnd(s, i + k.length + 1);
    if (ve < 0) return false;
    starts[j] = i + k.length + 1;
    ends[j] = ve;
    const sep = s.charCodeAt(ve);
    if (j === keys.length - 1) return ve === n - 1;
    if (sep !== COMMA) return false;
    i = ve + 1;
  }
  return false;
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

/**
 * The number in s[a, b) when that text is its own String(); else null. Plain decimals of at most
 * 15 digits without superfluous zeros are read directly (m / 10^k rounds like Number() does, and
 * String() gives back the same digits); anything else through Number() and String().
 */
export function numberAt(s: string, a: number, b: number): number | null {
  const c0 = s.charCodeAt(a);
  if (c0 !== MINUS && (c0 < ZERO || c0 > NINE)) return null;
  let i = c0 === MINUS ? a + 1 : a;
  const first = i;
  let m = 0;
  let digits = 0;
  let point = -1;
  for (; i < b; i++) {
    const c = s.charCodeAt(i);
    if (c >= ZERO && c <= NINE) {
      m = m * 10 + (c - ZERO);
      digits++;
    } else if (c === 46 && point < 0) point = i;
    else break;
  }
  const plain =
    i === b &&
    digits > 0 &&
    digits <= 15 &&
    point !== b - 1 &&
    point !== first &&
    // no leading zero ("0" alone or "0.x" is fine), no trailing zero after the point
    !(s.charCodeAt(first) === ZERO && first + 1 < b && s.charCodeAt(first + 1) !== 46) &&
    !(point >= 0 && s.charCodeAt(b - 1) === ZERO);
  if (plain) {
    const k = point < 0 ? 0 : b - point - 1;
    const v = k === 0 ? m : m / POW10[k];
    // String() writes exponents below 1e-6; "-0" reads back as "0"
    if ((v >= 1e-6 || (v === 0 && c0 !== MINUS)) && v < 1e21) return c0 === MINUS ? -v : v;
  }
  const t = s.slice(a, b);
  const v = Number(t);
  return String(v) === t ? v : null;
}

class KeyColumn {
  /** Per value: a number (in `nums`) or the dictionary index of its text (in `texts`). */
  nums: number[] = [];
  isText: number[] = [];
  texts: number[] = [];
  dict = new Map<string, number>();
  count = 0;
  anyText = false;
  anyNumber = false;

  add(s: string, a: number, b: number): void {
    this.count++;
    const v = numberAt(s, a, b);
    if (v !== null) {
      this.nums.push(v);
      this.isText.push(0);
      this.anyNumber = true;
      return;
    }
    const t = b - a === 4 && s.startsWith('true', a) ? 'true' : b - a === 5 && s.startsWith('false', a) ? 'false' : b - a === 4 && s.startsWith('null', a) ? 'null' : s.slice(a, b);
    let id = this.dict.get(t);
    if (id === undefined) this.dict.set(t, (id = this.dict.size));
    this.texts.push(id);
    this.isText.push(1);
    this.anyText = true;
  }

  write(w: ByteWriter): void {
    const mode = this.anyNumber && this.anyText ? 2 : this.anyText ? 1 : 0;
    w.u8(mode);
    if (mode === 2) for (const t of this.isText) w.u8(t);
    if (this.anyNumber) writeNumbers(w, new Float64Array(this.nums));
    if (this.anyText) {
      w.uvar(this.dict.size);
      for (const t of this.dict.keys()) w.str(t);
      for (const id of this.texts) w.uvar(id);
    }
  }
}

export interface AttrsEncoding {
  index: Uint8Array;
  keys: Uint8Array[];
}

export function encodeAttrs(texts: ReadonlyArray<string | null>): AttrsEncoding {
  const keyIds = new Map<string, number>();
  const columns: KeyColumn[] = [];
  const shapeIds = new Map<string, number>();
  const shapes: number[][] = [];
  const shapeKeys: string[][] = [];
  const kinds = new Array<number>(texts.length);
  const escapes: string[] = [];
  const keys: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const ids: number[] = [];
  const keyTexts: string[] = [];
  let last = -1;
  for (let r = 0; r < texts.length; r++) {
    const s = texts[r];
    if (s === null) {
      kinds[r] = 0;
      continue;
    }
    // most rows have the keys of the row before
    let shape = last >= 0 && splitAs(s, shapeKeys[last], starts, ends) ? last : -1;
    if (shape < 0) {
      if (!split(s, keys, starts, ends)) {
        kinds[r] = 1;
        escapes.push(s);
        continue;
      }
      ids.length = 0;
      for (let j = 0; j < keys.length; j++) {
        let id = keyIds.get(keys[j]);
        if (id === undefined) {
          keyIds.set(keys[j], (id = columns.length));
          keyTexts.push(keys[j]);
          columns.push(new KeyColumn());
        }
        ids.push(id);
      }
      const shapeKey = ids.join(',');
      const known = shapeIds.get(shapeKey);
      if (known === undefined) {
        // a key twice in one text would put two values in one column: keep such a row verbatim
        if (new Set(ids).size !== ids.length) {
          kinds[r] = 1;
          escapes.push(s);
          continue;
        }
        shapeIds.set(shapeKey, (shape = shapes.length));
        shapes.push(ids.slice());
        shapeKeys.push(ids.map((id) => keyTexts[id]));
      } else shape = known;
    }
    last = shape;
    kinds[r] = 2 + shape;
    const sh = shapes[shape];
    for (let j = 0; j < sh.length; j++) columns[sh[j]].add(s, starts[j], ends[j]);
  }
  const w = new ByteWriter(1024 + texts.length * 2);
  w.uvar(columns.length);
  for (const k of keyIds.keys()) w.str(k);
  w.uvar(shapes.length);
  for (const sh of shapes) {
    w.uvar(sh.length);
    for (const id of sh) w.uvar(id);
  }
  for (const k of kinds) w.uvar(k);
  w.uvar(escapes.length);
  for (const e of escapes) w.str(e);
  return {
    index: w.finish(),
    keys: columns.map((c) => {
      const kw = new ByteWriter(256 + c.count * 3);
      c.write(kw);
      return kw.finish();
    }),
  };
}

/** What the index block says: the keys, shapes and per row its kind; escapes in row order. */
export interface AttrsIndex {
  keys: string[];
  shapes: number[][];
  kinds: Uint32Array;
  escapes: string[];
  /** Values per key (rows whose shape holds it). */
  counts: number[];
}

export function readAttrsIndex(r: ByteReader, n: number): AttrsIndex {
  const nk = r.count(1);
  const keys = new Array<string>(nk);
  for (let i = 0; i < nk; i++) keys[i] = r.str();
  const ns = r.count(1);
  const shapes = new Array<number[]>(ns);
  for (let i = 0; i < ns; i++) {
    const len = r.count(1, nk);
    const sh = new Array<number>(len);
    for (let j = 0; j < len; j++) {
      sh[j] = r.uvar();
      if (sh[j] >= nk) r.fail('shape names an unknown key');
    }
    shapes[i] = sh;
  }
  if (n > r.end - r.pos) r.fail('row kinds longer than the data');
  const kinds = new Uint32Array(n);
  const useCount = new Array<number>(ns).fill(0);
  let nEscapes = 0;
  for (let i = 0; i < n; i++) {
    const k = r.uvar();
    if (k >= 2 + ns) r.fail('row names an unknown shape');
    kinds[i] = k;
    if (k === 1) nEscapes++;
    else if (k >= 2) useCount[k - 2]++;
  }
  const ne = r.count(1);
  if (ne !== nEscapes) r.fail('escape count does not match the rows');
  const escapes = new Array<string>(ne);
  for (let i = 0; i < ne; i++) escapes[i] = r.str();
  r.done();
  const counts = new Array<number>(nk).fill(0);
  for (let s = 0; s < ns; s++) for (const id of shapes[s]) counts[id] += useCount[s];
  return { keys, shapes, kinds, escapes, counts };
}

/** The value texts of one key, in row order. */
export function readKeyValues(r: ByteReader, count: number): string[] {
  const mode = r.u8();
  if (mode > 2) r.fail(`bad key column mode ${mode}`);
  let isText: Uint8Array | null = null;
  let nNum = mode === 0 ? count : 0;
  if (mode === 2) {
    isText = r.bytes(count);
    nNum = 0;
    for (let i = 0; i < count; i++) if (isText[i] === 0) nNum++;
  }
  const out = new Array<string>(count);
  let nums: Float64Array | null = null;
  if (mode !== 1) {
    nums = readNumbers(r, nNum);
    for (let i = 0; i < nNum; i++) if (nums[i] !== nums[i]) r.fail('null in a key column');
  }
  let dict: string[] = [];
  if (mode !== 0) {
    const nd = r.count(1);
    dict = new Array<string>(nd);
    for (let i = 0; i < nd; i++) dict[i] = r.str();
  }
  let jn = 0;
  for (let i = 0; i < count; i++) {
    if (mode === 0 || (isText !== null && isText[i] === 0)) out[i] = String(nums![jn++]);
    else {
      const id = r.uvar();
      if (id >= dict.length) r.fail('text index beyond the dictionary');
      out[i] = dict[id];
    }
  }
  r.done();
  return out;
}

/** Row texts from the index and each key's values. */
export function buildAttrs(ix: AttrsIndex, values: string[][], out: Array<string | null>): void {
  const prefix = ix.keys.map((k) => k + ':');
  const cursor = new Array<number>(ix.keys.length).fill(0);
  let e = 0;
  for (let i = 0; i < ix.kinds.length; i++) {
    const k = ix.kinds[i];
    if (k === 0) out[i] = null;
    else if (k === 1) out[i] = ix.escapes[e++];
    else {
      const sh = ix.shapes[k - 2];
      let s = '{';
      for (let j = 0; j < sh.length; j++) {
        const id = sh[j];
        s += (j ? ',' : '') + prefix[id] + values[id][cursor[id]++];
      }
      out[i] = s + '}';
    }
  }
}
