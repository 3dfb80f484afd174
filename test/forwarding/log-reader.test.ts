/**
 * The engine's shared read of the forwarding log (src/forwarding/log-reader.ts) over a stand-in store:
 * blocks never overlap, kept blocks serve every reader at their place, and over the budget the blocks
 * every reader has passed go first; a reader whose place was dropped reads it again, and gets exactly
 * the entries after its place in order.
 */
import { describe, expect, it } from 'vitest';
import { firstAfter, LogReader } from '../../src/forwarding/log-reader.ts';
import type { Store } from '../../src/store/index.ts';
import type { LogRow } from '../../src/store/retranslators.ts';

/** A log of seqs 1..n (every seq an entry), with the reads it answered. */
function fakeStore(n: number) {
  const reads: Array<[number, number]> = [];
  const row = (seq: number) => [seq, 1, seq * 1000, 0, 0, null, null, null, null, null, null, 1, 0, null, null, null, null] as LogRow;
  const retranslators = {
    maxSeq: () => n,
    entries(after: number, upTo: number, limit: number) {
      reads.push([after, upTo]);
      const rows: LogRow[] = [];
      for (let s = after + 1; s <= upTo && rows.length < limit; s++) rows.push(row(s));
      return { rows, to: rows.length === limit ? rows[rows.length - 1][0] : upTo };
    },
  };
  return { store: { retranslators } as unknown as Store, reads };
}

/** Everything after `from` as one reader takes it, block by block. */
function readAll(r: LogReader, who: object, from: number): number[] {
  const seqs: number[] = [];
  for (let pos = from, b = r.next(pos, who); b; b = r.next(pos, who)) {
    for (const row of b.rows.slice(firstAfter(b.rows, pos))) seqs.push(row[0]);
    pos = b.to;
  }
  return seqs;
}

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe('LogReader', () => {
  it('serves a second reader from the kept blocks: each entry is read once', () => {
    const { store, reads } = fakeStore(1000);
    const r = new LogReader(store, { blockRows: 100, keepRows: 2000 });
    const a = {};
    const b = {};
    expect(readAll(r, a, 0)).toEqual(range(1, 1000));
    expect(readAll(r, b, 250)).toEqual(range(251, 1000));
    expect(reads.length).toBe(10);
    expect(r.counts.read).toBe(1000);
  });

  it('a reader starting inside a kept block takes the rest of it; a read never overlaps a kept block', () => {
    const { store, reads } = fakeStore(1000);
    const r = new LogReader(store, { blockRows: 100, keepRows: 2000 });
    expect(readAll(r, {}, 500)).toEqual(range(501, 1000));
    // behind the kept blocks: reads up to the first of them, then takes the kept ones
    expect(readAll(r, {}, 420)).toEqual(range(421, 1000));
    expect(reads.slice(-1)).toEqual([[420, 500]]);
    expect(readAll(r, {}, 0)).toEqual(range(1, 1000));
    for (let i = 0; i < reads.length; i++)
      for (let j = 0; j < i; j++) expect(reads[i][0] >= reads[j][1] || reads[i][1] <= reads[j][0], `${reads[i]} overlaps ${reads[j]}`).toBe(true);
  });

  it('over the budget drops what every reader passed first, then the oldest; a reader behind reads it again', () => {
    const { store } = fakeStore(1000);
    const r = new LogReader(store, { blockRows: 100, keepRows: 300 });
    const slow = {};
    const fast = {};
    // the slow reader holds its place at 100: blocks after it are kept while the budget allows
    expect(r.next(0, slow)!.to).toBe(100);
    r.next(100, slow);
    expect(readAll(r, fast, 0)).toEqual(range(1, 1000));
    // the fast reader ran far ahead: the slow one's next blocks were dropped and are read again, in order
    const before = r.counts.read;
    expect(readAll(r, slow, 100)).toEqual(range(101, 1000));
    expect(r.counts.read).toBeGreaterThan(before);
    // a reader that left holds nothing back
    r.leave(slow);
    r.leave(fast);
    expect(readAll(r, {}, 900)).toEqual(range(901, 1000));
  });
});
