/**
 * One column of numbers (some may be null) in a fix chunk. Layout:
 *
 * Values are given and returned as a Float64Array, NaN standing for null (no value is NaN).
 *
 *   u8 head: bits 0-1 kind (0 every value null, nothing else follows; 1 scaled integers; 2 raw
 *            float64), bit 2 nulls, bits 3-4 order (kind 1), bit 5 exceptions (kind 1)
 *   nulls:   varint runCount, then runCount varint run lengths, alternately present / null,
 *            starting with present (may be 0)
 *   kind 1:  u8 scale k (0..9): value = m / 10^k, bit for bit (checked when encoding);
 *            order: 0 m, 1 delta of m, 2 delta of the delta, as zigzag varints;
 *            exceptions: varint count, each: varint gap (index among the present values since
 *            the previous exception + 1; the first: its index), float64 value; an exception's own
 *            m repeats the previous m. Values that do not roundtrip at k (-0, Infinity, more
 *            digits, |m| > 2^50) are exceptions.
 *            then one zigzag varint per present value
 *   kind 2:  the present values as float64, byte planes (byte 0 of every value, then byte 1, ...)
 */
import { ByteReader, ByteWriter, varintLength, zigzag } from './chunk-bytes.ts';

const MAX_SCALE = 9;
const POW10 = Array.from({ length: MAX_SCALE + 1 }, (_, k) => 10 ** k);
/** |m| stays within 2^50 so deltas of deltas and their zigzag stay exact integers. */
const M_LIMIT = 2 ** 50;
/** Bits an exception costs against the bits each step of scale costs every value (log2 10). */
const EXCEPTION_BITS = 80;
const SCALE_BITS = 3.32;

const fits = (v: number, k: number): boolean => {
  const m = Math.round(v * POW10[k]);
  return m <= M_LIMIT && m >= -M_LIMIT && m / POW10[k] === v;
};

/** The smallest scale at which `v` roundtrips, from a guess; -1 when none does. */
function scaleOf(v: number, guess: number): number {
  if (v === 0) return Object.is(v, -0) ? -1 : 0;
  if (v !== v || v === Infinity || v === -Infinity) return -1;
  let k = guess;
  if (fits(v, k)) {
    while (k > 0 && fits(v, k - 1)) k--;
    return k;
  }
  while (++k <= MAX_SCALE) if (fits(v, k)) return k;
  return -1;
}

/** Writes a column: `values[i]`, NaN standing for null (NaN is never a value). */
export function writeNumbers(w: ByteWriter, values: Float64Array): void {
  const n = values.length;
  const runs: number[] = [];
  let runPresent = true;
  let run = 0;
  let c = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if ((v === v) !== runPresent) {
      runs.push(run);
      runPresent = !runPresent;
      run = 0;
    }
    run++;
    if (v === v) c++;
  }
  runs.push(run);
  let present = values;
  if (c !== n) {
    present = new Float64Array(c);
    for (let i = 0, j = 0; i < n; i++) if (values[i] === values[i]) present[j++] = values[i];
  }
  if (c === 0) {
    w.u8(0);
    return;
  }
  // scales: a histogram of the smallest scale of each value
  const scales = new Int8Array(c);
  const hist = new Array<number>(MAX_SCALE + 2).fill(0);
  let guess = 0;
  for (let i = 0; i < c; i++) {
    const k = scaleOf(present[i], guess);
    scales[i] = k;
    hist[k + 1]++;
    if (k >= 0) guess = k;
  }
  let best = 0;
  let bestCost = Infinity;
  let covered = 0;
  for (let k = 0; k <= MAX_SCALE; k++) {
    covered += hist[k + 1];
    const cost = (c - covered) * EXCEPTION_BITS + covered * k * SCALE_BITS;
    if (cost < bestCost) {
      best = k;
      bestCost = cost;
    }
  }
  const m = new Float64Array(c);
  const exceptions: number[] = [];
  const p = POW10[best];
  let prev = 0;
  for (let i = 0; i < c; i++) {
    const v = present[i];
    if (scales[i] >= 0 && scales[i] <= best && fits(v, best)) prev = m[i] = Math.round(v * p);
    else {
      exceptions.push(i);
      m[i] = prev;
    }
  }
  const kind = exceptions.length * 2 > c ? 2 : 1;
  // the order with the fewest varint bytes
  let order = 0;
  let p1 = 0;
  let pd = 0;
  if (kind === 1) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < c; i++) {
      const d = m[i] - p1;
      s0 += varintLength(zigzag(m[i]));
      s1 += varintLength(zigzag(d));
      s2 += varintLength(zigzag(d - pd));
      p1 = m[i];
      pd = d;
    }
    order = s2 < s1 && s2 < s0 ? 2 : s1 < s0 ? 1 : 0;
  }
  // the head: kind | nulls << 2 | order << 3 | exceptions << 5
  w.u8(kind | (runs.length > 1 ? 4 : 0) | (order << 3) | (kind === 1 && exceptions.length ? 32 : 0));
  if (runs.length > 1) {
    w.uvar(runs.length);
    for (const r of runs) w.uvar(r);
  }
  if (kind === 2) {
    writeFloats(w, present);
    return;
  }
  w.u8(best);
  if (exceptions.length) w.uvar(exceptions.length);
  let last = 0;
  for (const i of exceptions) {
    w.uvar(i - last);
    w.f64(present[i]);
    last = i + 1;
  }
  p1 = 0;
  pd = 0;
  for (let i = 0; i < c; i++) {
    const x = m[i];
    if (order === 0) w.svar(x);
    else {
      const d = x - p1;
      w.svar(order === 1 ? d : d - pd);
      p1 = x;
      pd = d;
    }
  }
}

function writeFloats(w: ByteWriter, values: Float64Array): void {
  const c = values.length;
  const bytes = new Uint8Array(values.buffer, values.byteOffset, c * 8);
  const le = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
  const out = new Uint8Array(c * 8);
  for (let j = 0; j < 8; j++) {
    const src = le ? j : 7 - j;
    const base = j * c;
    for (let i = 0; i < c; i++) out[base + i] = bytes[i * 8 + src];
  }
  w.bytes(out);
}

/** Reads a column of `n` values, NaN where null. */
export function readNumbers(r: ByteReader, n: number): Float64Array {
  const values = new Float64Array(n);
  const head = r.u8();
  const kind = head & 3;
  if (kind === 0) {
    if (head !== 0) r.fail(`bad number column head ${head}`);
    return values.fill(NaN);
  }
  if (kind === 3 || head >= 64 || (kind === 2 && head & 56)) r.fail(`bad number column head ${head}`);
  let present: Uint8Array | null = null;
  let c = n;
  if (head & 4) {
    present = new Uint8Array(n);
    const runs = r.count(1, n + 1);
    let at = 0;
    c = 0;
    for (let j = 0; j < runs; j++) {
      const len = r.uvar();
      if (len > n - at) r.fail('null runs longer than the column');
      if (j % 2 === 0) {
        present.fill(1, at, at + len);
        c += len;
      }
      at += len;
    }
    if (at !== n) r.fail('null runs shorter than the column');
  }
  // the present values first, densely, then spread over the rows
  const dense = c === n ? values : new Float64Array(c);
  if (kind === 2) readFloats(r, dense, c);
  else readScaled(r, dense, c, (head >> 3) & 3, (head & 32) !== 0);
  if (present && c !== n) {
    for (let i = 0, j = 0; i < n; i++) values[i] = present[i] ? dense[j++] : NaN;
  }
  return values;
}

function readScaled(r: ByteReader, out: Float64Array, c: number, order: number, anyExceptions: boolean): void {
  const k = r.u8();
  if (k > MAX_SCALE) r.fail(`bad scale ${k}`);
  if (order > 2) r.fail(`bad order ${order}`);
  const nx = anyExceptions ? r.count(9, c) : 0;
  const at = new Array<number>(nx);
  const xs = new Array<number>(nx);
  let last = 0;
  for (let j = 0; j < nx; j++) {
    const i = last + r.uvar();
    if (i >= c) r.fail('exception beyond the column');
    at[j] = i;
    xs[j] = r.f64();
    last = i + 1;
  }
  if (c > r.end - r.pos) r.fail('values longer than the data');
  const p = POW10[k];
  let p1 = 0;
  let pd = 0;
  for (let i = 0; i < c; i++) {
    const z = r.uvar();
    const d = z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    let x: number;
    if (order === 0) x = d;
    else if (order === 1) x = p1 + d;
    else {
      pd += d;
      x = p1 + pd;
    }
    p1 = x;
    out[i] = k === 0 ? x : x / p;
  }
  for (let j = 0; j < nx; j++) out[at[j]] = xs[j];
}

function readFloats(r: ByteReader, out: Float64Array, c: number): void {
  const planes = r.bytes(c * 8);
  const bytes = new Uint8Array(out.buffer, out.byteOffset, c * 8);
  const le = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;
  for (let j = 0; j < 8; j++) {
    const dst = le ? j : 7 - j;
    const base = j * c;
    for (let i = 0; i < c; i++) bytes[i * 8 + dst] = planes[base + i];
  }
}
