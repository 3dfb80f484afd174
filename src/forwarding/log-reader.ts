/**
 * One read of the forwarding log for every retranslator of the engine (docs/retranslators.md, "Per
 * fix"). The log is read in blocks: consecutive entries of all bound trackers with their fixes, as
 * arrays. A block is kept while some forwarder may still need it, so the retranslators that forward
 * the same trackers (each tracker bound to several receivers) read and decode each entry once between
 * them instead of once each. Blocks never overlap: a read stops where the next kept block begins.
 */
import type { Store } from '../store/index.ts';
import { LOG, type LogRow } from '../store/retranslators.ts';

/** Entries (seq, to] of the log: `rows` are every one of them whose fix is stored, in seq order. */
export interface LogBlock {
  from: number;
  to: number;
  rows: LogRow[];
}

export interface LogReaderOptions {
  /** Most entries per block (one read). */
  blockRows: number;
  /** Most entries kept in memory for forwarders that are behind the one that read them. */
  keepRows: number;
}

/**
 * 150,000 entries kept (about 0.6 KB each with ~180 characters of attributes: ~85 MiB at most): with
 * 48,000, a Wialon IPS retranslator a few seconds behind a caught-up JSON one at 20,000-25,000 fixes/s
 * made the budget full, the writer's hand-offs were refused, and both read everything from the store
 * (14-18 against 8-11 µs per forwarded fix and retranslator; bench/forward then fell behind at 20,000/s).
 */
export const LOG_READER_DEFAULTS: LogReaderOptions = { blockRows: 2000, keepRows: 150_000 };

/**
 * How long a reader waits for entries the writer's hand-off has on their way before it reads them from
 * the store after all (the store stays the record: a hand-off that never comes only delays).
 */
const HAND_OFF_WAIT_MS = 250;

export class LogReader {
  /** Kept blocks in seq order. */
  private blocks: LogBlock[] = [];
  private kept = 0;
  /** Where each reader is (the seq it read up to): blocks every reader has passed go first. */
  private positions = new Map<object, number>();
  /**
   * Entries read from the store, entries handed out (their ratio is the sharing), and entries the
   * writer handed off that were kept and refused (benchmarks).
   */
  readonly counts = { read: 0, served: 0, offered: 0, refused: 0 };

  /** Fixes the writer's hand-off has posted and this thread not yet taken (wired by the engine's thread). */
  private handOffPending: (() => number) | null = null;
  /** The end of the latest hand-off (kept or refused), and since when a reader waits for more. */
  private offeredTo = 0;
  private waitingSince = 0;

  constructor(
    private store: Store,
    private opts: LogReaderOptions = LOG_READER_DEFAULTS,
  ) {}

  /**
   * Hand-offs come: a read of the store stops where the hand-offs end while more are on their way (for
   * up to HAND_OFF_WAIT_MS), so entries committed a moment ago come from memory instead of being read
   * just before their hand-off arrives (then refused as overlapping).
   */
  handOffFrom(pending: () => number): void {
    this.handOffPending = pending;
  }

  /**
   * The block holding the entries after `after` (some of its rows may be at or before `after`), read
   * now if no kept block has them; null when the log has nothing after `after`.
   */
  next(after: number, reader: object): LogBlock | null {
    this.positions.set(reader, after);
    let i = 0;
    while (i < this.blocks.length && this.blocks[i].to <= after) i++;
    const kept = this.blocks[i];
    if (kept && kept.from <= after) {
      this.counts.served += kept.rows.length;
      return kept;
    }
    const maxSeq = this.store.retranslators.maxSeq();
    // up to the next kept block, never into it
    let upTo = Math.min(maxSeq, kept ? kept.from : maxSeq, after + this.opts.blockRows);
    if (upTo > this.offeredTo && this.handOffPending?.()) {
      const now = performance.now();
      if (!this.waitingSince) this.waitingSince = now;
      if (now - this.waitingSince < HAND_OFF_WAIT_MS) upTo = Math.min(upTo, Math.max(after, this.offeredTo));
    } else this.waitingSince = 0;
    if (upTo <= after) return null;
    const read = this.store.retranslators.entries(after, upTo, this.opts.blockRows);
    const block: LogBlock = { from: after, to: read.to, rows: read.rows };
    this.counts.read += block.rows.length;
    this.counts.served += block.rows.length;
    this.blocks.splice(i, 0, block);
    this.kept += block.rows.length;
    this.evict(block);
    return block;
  }

  /**
   * A block the writer handed off as it committed it (docs/retranslators.md "Hand-off"): kept like a
   * block read from the store, so a caught-up forwarder takes its entries from memory. Its head is cut
   * where a block read meanwhile already has it; it is refused when it would overlap a kept block
   * otherwise, when the budget is full and no forwarder is about to read it (they are behind: they
   * read from the store, and blocks far ahead would only be evicted) or when no forwarder reads. True
   * when kept.
   */
  offer(block: LogBlock): boolean {
    this.offeredTo = Math.max(this.offeredTo, block.to);
    this.waitingSince = 0;
    let from = block.from;
    let i = 0;
    for (; i < this.blocks.length && this.blocks[i].to <= block.from; i++);
    // kept blocks reaching into this one: it starts after them, unless one reaches past it or starts inside it
    for (; i < this.blocks.length && this.blocks[i].from <= from && this.blocks[i].to < block.to; i++) from = Math.max(from, this.blocks[i].to);
    const next = this.blocks[i];
    const fits = !next || next.from >= block.to;
    if (fits && this.positions.size && this.kept + block.rows.length > this.opts.keepRows) i -= this.dropPassed(i, this.kept + block.rows.length - this.opts.keepRows);
    // over the budget, a hand-off a forwarder is about to read (within one read of where it is) is
    // still kept, and the oldest blocks go: the forwarder behind then reads from the store alone.
    // Refusing it made the caught-up forwarder read the store too, and its read evicted the blocks
    // the one behind was coming to: both read every entry, each on its own, and fell further behind
    const over = this.kept + block.rows.length > this.opts.keepRows;
    if (!fits || !this.positions.size || (over && !this.aboutToBeRead(block))) {
      this.counts.refused += block.rows.length;
      return false;
    }
    const rows = from === block.from ? block.rows : block.rows.slice(firstAfter(block.rows, from));
    const kept = { from, to: block.to, rows };
    this.blocks.splice(i, 0, kept);
    this.kept += rows.length;
    this.counts.offered += rows.length;
    this.evict(kept);
    return true;
  }

  /** Some forwarder is within one read of the block's start (a caught-up one). */
  private aboutToBeRead(block: LogBlock): boolean {
    for (const p of this.positions.values()) if (p >= block.from - this.opts.blockRows) return true;
    return false;
  }

  /** The reader is gone (stopped, or reading on its own): it holds no block any more. */
  leave(reader: object): void {
    this.positions.delete(reader);
  }

  /** Over the budget: first the blocks every reader has passed, then the oldest (a reader behind reads it again). */
  private evict(keep: LogBlock): void {
    if (this.kept <= this.opts.keepRows) return;
    let min = Infinity;
    for (const p of this.positions.values()) min = Math.min(min, p);
    for (let i = 0; i < this.blocks.length && this.kept > this.opts.keepRows; ) {
      const b = this.blocks[i];
      if (b !== keep && b.to <= min) this.drop(i);
      else i++;
    }
    for (let i = 0; i < this.blocks.length && this.kept > this.opts.keepRows; ) {
      if (this.blocks[i] !== keep) this.drop(i);
      else i++;
    }
  }

  /** Drops blocks before index `before` that every reader has passed, oldest first, until `rows` entries went; how many blocks went. */
  private dropPassed(before: number, rows: number): number {
    let min = Infinity;
    for (const p of this.positions.values()) min = Math.min(min, p);
    let gone = 0;
    const until = this.kept - rows;
    for (let i = 0; i < before - gone && this.kept > until; ) {
      if (this.blocks[i].to <= min) {
        this.drop(i);
        gone++;
      } else i++;
    }
    return gone;
  }

  private drop(i: number): void {
    this.kept -= this.blocks[i].rows.length;
    this.blocks.splice(i, 1);
  }
}

/** The index of the first row after `seq` (rows in seq order). */
export function firstAfter(rows: LogRow[], seq: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid][LOG.seq] <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
