/** Teltonika compiled record layouts: the fast path for the AVL records a device sends again and again. */
import { i16be, i32be, u16be, u32be } from '../binary.ts';
import { Attr } from '../attributes.ts';
import { CODEC_8, CODEC_8E, CODEC_16, type Attrs, ioKey, uval8, sval8, rawval8, NUM, FLAG, VALUE, OPTIONAL, ALARM, CELL, type IoValue, type IoSpec, type IoTable, type IoState, TAG_IDS, dtcsOf, AVL_FIXED } from './io.ts';

// ---------------------------------------------------------------------------------------------
// Compiled record layouts
//
// Building a record's attributes key after key (`a[key] = v`) is most of the cost of decoding it:
// V8 handles each such store through a cache shared by all object shapes, which real records
// thrash, and turns an object given more than 16 properties that way into a slow dictionary. But a
// device sends the same IO elements record after record, and the layout of a record (the count and
// ids of each IO section; the ids and lengths of variable elements) fixes the offset and the
// meaning of every value. So a function compiled for a layout reads each value at its constant
// offset and makes the attributes as one object literal, which V8 instantiates from a template:
// several times faster, no table lookups. A record's layout is read (one pass over its ids; for the
// packet's next records, a compiled check of the previous record's), found by its hash, checked
// number by number, and compiled once seen a few times. The compiled code mirrors the general path
// (`readAvlAttributes`): the same keys in the same order, the same expressions for the values.
// Layouts with BLE beacons or tags (as many attributes as entries), GH3000 records and FM6 models
// take the general path. Keys come from our tables or from numbers; JSON.stringify quotes them.

import type { Layout, ReadRecord } from './io.ts';
export type { Layout };

/**
 * Compiling a layout costs about 0.1 ms, so it is kept for what repeats: a layout is compiled when
 * seen for the COMPILE_AFTER-th time, and a packet compiles at most COMPILES_PER_PACKET (junk or
 * crafted frames cannot make a decode much slower).
 */
const COMPILE_AFTER = 4;
export const COMPILES_PER_PACKET = 1;

/**
 * Layouts by hash. Bounded: past MAX_COMPILED no more are compiled, past MAX_LAYOUTS (many unusual
 * or junk layouts) the table starts afresh, and a layout of more than MAX_NUMS numbers (hundreds of
 * IO elements) is not kept, so memory stays bounded.
 */
const LAYOUT_BUCKETS = 4096;
const MAX_LAYOUTS = 8192;
const MAX_COMPILED = 2048;
const MAX_NUMS = 1024;
interface Layouts {
  buckets: Array<Layout | undefined>;
  count: number;
  compiled: number;
}
const newLayouts = (): Layouts => ({ buckets: new Array(LAYOUT_BUCKETS).fill(undefined), count: 0, compiled: 0 });
let layouts = newLayouts();

/** The numbers of the layout being read, their count and hash (decoding is synchronous: one scratch is enough). */
const scan: { nums: Uint16Array; k: number; hash: number } = { nums: new Uint16Array(256), k: 0, hash: 0 };
function growScan(min: number): Uint16Array {
  const nums = new Uint16Array(Math.max(min, scan.nums.length * 2));
  nums.set(scan.nums);
  return (scan.nums = nums);
}

/** Read the layout of the AVL record at `o` into `scan`; returns the record's end, or -1 when it does not fit before `end`. */
function scanLayout(b: Buffer, o: number, end: number, codec: number, extended: boolean): number {
  const wide = codec === CODEC_8E;
  const countBytes = wide ? 2 : 1;
  const idBytes = wide || codec === CODEC_16 ? 2 : 1;
  let nums = scan.nums;
  let k = 0;
  let h = codec;
  let p = o + AVL_FIXED[codec];
  // IO sections of 1, 2, 4, 8 (and 16) bytes: count, then (id, value)
  for (let size = 1; size <= (extended ? 16 : 8); size *= 2) {
    if (p + countBytes > end) return -1;
    const count = wide ? u16be(b, p) : b[p];
    p += countBytes;
    if (p + count * (idBytes + size) > end) return -1;
    if (k + count + 1 > nums.length) nums = growScan(k + count + 1);
    nums[k++] = count;
    h = (Math.imul(h, 31) + count) | 0;
    for (let i = 0; i < count; i++, p += idBytes + size) {
      const id = idBytes === 2 ? u16be(b, p) : b[p];
      nums[k++] = id;
      h = (Math.imul(h, 31) + id) | 0;
    }
  }
  if (wide) {
    // variable-length elements: u16 count, then (u16 id, u16 length, bytes)
    if (p + 2 > end) return -1;
    const count = u16be(b, p);
    p += 2;
    if (k + 1 > nums.length) nums = growScan(k + 1);
    nums[k++] = count;
    h = (Math.imul(h, 31) + count) | 0;
    for (let i = 0; i < count; i++) {
      if (p + 4 > end) return -1;
      const id = u16be(b, p);
      const length = u16be(b, p + 2);
      p += 4 + length;
      if (p > end) return -1;
      if (k + 2 > nums.length) nums = growScan(k + 2);
      nums[k++] = id;
      nums[k++] = length;
      h = (Math.imul(Math.imul(h, 31) + id, 31) + length) | 0;
    }
  }
  scan.k = k;
  scan.hash = h;
  return p;
}

function sameNums(a: Uint16Array, b: Uint16Array, n: number): boolean {
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The compiled layout of the AVL record at `o`, if it has one (compiling it when it has been seen often enough). */
export function compiledLayout(b: Buffer, o: number, end: number, codec: number, extended: boolean, io: IoState): Layout | undefined {
  const last = io.last; // the previous record's (same codec, table and settings): one pass to check it
  if (last !== undefined && o + last.size <= end && last.matches!(b, o)) return last;
  const table = io.table;
  const recordEnd = scanLayout(b, o, end, codec, extended);
  if (recordEnd < 0 || scan.k > MAX_NUMS) return undefined;
  const { nums, k, hash } = scan;
  const at = hash & (LAYOUT_BUCKETS - 1);
  let layout = layouts.buckets[at];
  while (layout !== undefined && !(layout.codec === codec && layout.extended === extended && layout.table === table && layout.nums.length === k && sameNums(layout.nums, nums, k))) {
    layout = layout.next;
  }
  if (layout === undefined) {
    if (layouts.count >= MAX_LAYOUTS) layouts = newLayouts(); // full: start afresh
    layouts.count++;
    const size = recordEnd - o;
    layouts.buckets[at] = { codec, extended, table, nums: nums.slice(0, k), size, seen: 1, read: undefined, matches: undefined, next: layouts.buckets[at] };
    return undefined;
  }
  if (layout.read === undefined) {
    if (++layout.seen < COMPILE_AFTER || layouts.compiled >= MAX_COMPILED || io.compiles <= 0) return undefined;
    io.compiles--;
    layouts.compiled++;
    const compiled = compileLayout(layout);
    layout.read = compiled?.read ?? null;
    layout.matches = compiled?.matches;
  }
  if (layout.read === null) return undefined;
  io.last = layout;
  return layout;
}

/** JS reading an unsigned / signed value of `n` bytes at offset expression `p`, as the general path reads it. */
const READ_UNSIGNED: Record<number, (p: string) => string> = {
  1: (p) => `b[${p}]`,
  2: (p) => `u16be(b, ${p})`,
  4: (p) => `u32be(b, ${p})`,
  8: (p) => `uval8(b, ${p})`,
};
const READ_SIGNED: Record<number, (p: string) => string> = {
  1: (p) => `((b[${p}] << 24) >> 24)`,
  2: (p) => `i16be(b, ${p})`,
  4: (p) => `i32be(b, ${p})`,
  8: (p) => `sval8(b, ${p})`,
};

/**
 * What compiled code makes of one element: an attribute (key and JS for its value), a statement,
 * or a conditional part: JS giving a value or undefined, for an `optional` attribute (key) or an
 * alarm name. Undefined: the element cannot be compiled.
 */
type Part = { key?: string; js: string; kind?: 'statement' | 'optional' | 'alarm' } | undefined;

/** An IO element of `n` bytes at `p`, as `applyIo` decodes it; `env` collects the functions the code calls. */
function compileElement(s: IoSpec | undefined, id: number, n: number, p: string, env: IoValue[]): Part {
  if (s === undefined) return { key: ioKey(id), js: n === 8 ? `rawval8(b, ${p})` : READ_UNSIGNED[n](p) };
  const call = () => `env[${env.push(s.value!) - 1}](b, ${p}, ${n})`;
  switch (s.kind) {
    case NUM:
      return { key: s.key, js: `${(s.signed ? READ_SIGNED : READ_UNSIGNED)[n](p)} / ${s.div}` };
    case FLAG:
      return { key: s.key, js: `${READ_UNSIGNED[n](p)} > 0` };
    case VALUE:
      return { key: s.key, js: call() };
    case OPTIONAL:
      return { key: s.key, js: call(), kind: 'optional' };
    case ALARM:
      return { js: call(), kind: 'alarm' };
    case CELL:
      return { js: `cell[${s.div}] = ${READ_UNSIGNED[n](p)};`, kind: 'statement' };
  }
  return undefined;
}

/** A variable-length element at [p, q), as `decodeVariable` decodes it. */
function compileVariable(id: number, p: string, q: string): Part {
  if (id === 256 || id === 325) return { key: Attr.vin, js: `b.toString('latin1', ${p}, ${q})` };
  if (id === 281) return { key: Attr.dtcs, js: `dtcsOf(b, ${p}, ${q})` };
  if (id === 385 || TAG_IDS.has(id)) return undefined; // beacons and tags: as many attributes as entries
  return { key: ioKey(id), js: `b.toString('hex', ${p}, ${q})` };
}

/**
 * The parts of a layout in order (attributes start with the fixed part's); null when one cannot be
 * compiled. `checks` gets the JS conditions a record must meet to have the layout (its counts, ids
 * and lengths at their offsets).
 */
function layoutParts(layout: Layout, env: IoValue[], checks: string[]): Part[] | null {
  const { codec, extended, table, nums } = layout;
  const wide = codec === CODEC_8E;
  const idBytes = wide || codec === CODEC_16 ? 2 : 1;
  const parts: Part[] = [{ key: 'priority', js: 'b[o + 8]' }, { key: Attr.event, js: codec === CODEC_8 ? 'b[o + 24]' : 'u16be(b, o + 24)' }];
  if (codec === CODEC_16) parts.push({ key: 'generation', js: 'b[o + 26]' });
  const at = (bytes: number, p: number, x: number) => checks.push(`${bytes === 2 ? `u16be(b, o + ${p})` : `b[o + ${p}]`} === ${x}`);
  let p = AVL_FIXED[codec];
  let k = 0;
  for (let size = 1; size <= (extended ? 16 : 8); size *= 2) {
    at(wide ? 2 : 1, p, nums[k]);
    p += wide ? 2 : 1;
    for (let count = nums[k++]; count > 0; count--, p += size) {
      const id = nums[k++];
      at(idBytes, p, id);
      p += idBytes;
      if (size === 16) parts.push({ key: ioKey(id), js: `b.toString('hex', o + ${p}, o + ${p + 16})` });
      else parts.push(compileElement(id < table.length ? table[id] : undefined, id, size, `o + ${p}`, env));
    }
  }
  if (wide) {
    at(2, p, nums[k]);
    p += 2;
    for (let count = nums[k++]; count > 0; count--) {
      const id = nums[k++];
      const length = nums[k++];
      at(2, p, id);
      at(2, p + 2, length);
      p += 4;
      parts.push(compileVariable(id, `o + ${p}`, `o + ${p + length}`));
      p += length;
    }
  }
  return parts.includes(undefined) ? null : parts;
}

/**
 * Bounds of a layout's code: object literals (one per combination of its conditional parts), and
 * fields over all of them. Past them, compiling would cost milliseconds: the general path is used.
 */
const MAX_VARIANTS = 8;
const MAX_FIELDS = 512;

/**
 * The reader of a layout, `(b, o, cell) => attributes` of the record at `o`, and its matcher; null
 * when some element cannot be compiled. Conditional parts are computed first (c0, c1, ...); they
 * choose among object literals: an optional attribute is there or not, and `alarm` (its names joined
 * by commas, as `addAlarm` joins them) sits where the first alarm that fired would have put it.
 */
function compileLayout(layout: Layout): { read: ReadRecord; matches: (b: Buffer, o: number) => boolean } | null {
  const env: IoValue[] = [];
  const checks: string[] = [];
  const parts = layoutParts(layout, env, checks);
  if (parts === null) return null;
  const lines: string[] = [];
  const alarms: number[] = []; // part indexes
  const optionals: number[] = [];
  parts.forEach((part, i) => {
    if (part!.kind === 'statement') lines.push(part!.js);
    else if (part!.kind !== undefined) {
      lines.push(`const c${i} = ${part!.js};`);
      (part!.kind === 'alarm' ? alarms : optionals).push(i);
    }
  });
  const variants = (alarms.length + 1) << optionals.length;
  if (variants > MAX_VARIANTS || variants * parts.length > MAX_FIELDS) return null;
  if (alarms.length) {
    lines.push(`let alarm = c${alarms[0]};`);
    for (const i of alarms.slice(1)) lines.push(`if (c${i} !== undefined) alarm = alarm ? alarm + "," + c${i} : c${i};`);
    lines.push(`const first = ${alarms.map((i, j) => `c${i} !== undefined ? ${j} : `).join('')}${alarms.length};`);
  }
  const bits = optionals.map((i, j) => `(c${i} !== undefined ? ${1 << j} : 0)`);
  const literal = (variant: number) => {
    const first = variant >> optionals.length;
    const fields = parts.flatMap((part, i) => {
      if (part!.kind === 'statement') return [];
      if (part!.kind === 'alarm') return alarms.indexOf(i) === first ? [`"alarm": alarm`] : [];
      if (part!.kind === 'optional') return variant & (1 << optionals.indexOf(i)) ? [`${JSON.stringify(part!.key)}: c${i}`] : [];
      return [`${JSON.stringify(part!.key)}: ${part!.js}`];
    });
    return `return { ${fields.join(', ')} };`;
  };
  if (variants === 1) lines.push(literal(0));
  else {
    lines.push(`switch (${alarms.length ? `first << ${optionals.length}` : '0'} | ${bits.join(' | ') || '0'}) {`);
    for (let v = 0; v < variants; v++) lines.push(`case ${v}: ${literal(v)}`);
    lines.push('}');
  }
  const read = `(b, o, cell) => {\n${lines.join('\n')}\n}`;
  const matches = `(b, o) => ${checks.join(' && ')}`;
  const make = new Function('u16be', 'i16be', 'u32be', 'i32be', 'uval8', 'sval8', 'rawval8', 'dtcsOf', 'env', `return { read: ${read}, matches: ${matches} };`);
  return make(u16be, i16be, u32be, i32be, uval8, sval8, rawval8, dtcsOf, env);
}

// ---------------------------------------------------------------------------------------------
// Codec 12/13/14: text and binary replies, camera

/** Printable as the device means it: ASCII 0x20..0x7f plus CR/LF. */
