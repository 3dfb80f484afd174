/**
 * One retranslator's forwarding loop (docs/retranslators.md). It reads the forwarding log in arrival
 * order, in batches, hands each batch to the protocol's sessions and moves the per-tracker cursors
 * only after the receiver acknowledged: at least once, in order per tracker. A failure closes the
 * sessions, waits (exponential backoff with jitter) and starts again from the cursors, so nothing
 * is skipped; fixes already acknowledged for other trackers are not sent again.
 */
import { FLAG } from '../core/point.ts';
import type { Store } from '../store/index.ts';
import { LOG, type LogRow, type RetranslatorRow } from '../store/retranslators.ts';
import { firstAfter, type LogReader } from './log-reader.ts';
import { parseUrl } from './retranslators.ts';
import { BatchTooLarge, type ForwardFix, type ForwardProtocol, type ForwardStatus, type Session, type Target } from './types.ts';

export interface ForwarderOptions {
  backoffMinMs: number;
  backoffMaxMs: number;
  /** An answer must come within this time. */
  timeoutMs: number;
  /** How often to look for new fixes when caught up. */
  pollMs: number;
  random?: () => number;
  /** Most fixes per batch below the protocol's own (tests: many batches from few fixes). */
  batchLimit?: number;
}

/** Log entries scanned per read: a retranslator with few trackers skips other trackers' entries in steps. */
const SCAN_WINDOW = 50_000;
/** Batches on the wire at once where a session delivers in call order (`ordered` protocols). */
const WINDOW = 4;
/**
 * Acknowledged cursors are written at most this often (and before waiting, a restart or a stop): one
 * small transaction instead of one per batch, so the writer of the fixes is seldom kept waiting. A
 * crash loses at most this much of acknowledgements, which are resent (at least once).
 */
const CURSOR_FLUSH_MS = 1000;
/** Longest a forwarder works before it lets the thread's other forwarders (and messages) run. */
const TURN_MS = 5;

type Settled = PromiseSettledResult<ForwardFix[]>[];

export function backoffDelay(attempt: number, o: Pick<ForwarderOptions, 'backoffMinMs' | 'backoffMaxMs'>, random = Math.random): number {
  const full = Math.min(o.backoffMaxMs, o.backoffMinMs * 2 ** Math.min(attempt, 30));
  // "equal jitter": at least half the delay, so a flapping receiver is not hammered, spread so many retranslators do not reconnect in step
  return Math.round(full / 2 + (random() * full) / 2);
}

/** A bound tracker as the forwarder sends it: the identity forwarded, and the seq acknowledged up to. */
export interface Bound {
  trackerId: number;
  deviceId: string;
  cursor: number;
}

/**
 * A logged fix as the protocols take it: a view of its log row (shared by every retranslator that
 * forwards it) under one binding's identity. The attributes are parsed only when a protocol asks for
 * them, once per row (the JSON protocols embed the stored text instead).
 */
class LoggedFix implements ForwardFix {
  constructor(
    private r: LogRow & { parsed?: Record<string, unknown> },
    private b: Bound,
  ) {}
  get seq(): number {
    return this.r[LOG.seq];
  }
  get sourceId(): number {
    return this.r[LOG.sourceId];
  }
  get trackerId(): number {
    return this.b.trackerId;
  }
  get deviceId(): string {
    return this.b.deviceId;
  }
  get time(): number {
    return this.r[LOG.time];
  }
  get received(): number {
    return this.r[LOG.received];
  }
  get lat(): number | null {
    return this.r[LOG.lat];
  }
  get lng(): number | null {
    return this.r[LOG.lng];
  }
  get alt(): number | null {
    return this.r[LOG.alt];
  }
  get speed(): number | null {
    return this.r[LOG.speed];
  }
  get course(): number | null {
    return this.r[LOG.course];
  }
  get satellites(): number | null {
    return this.r[LOG.satellites];
  }
  get hdop(): number | null {
    return this.r[LOG.hdop];
  }
  get precision(): number | null {
    return this.r[LOG.precision];
  }
  get odometer(): number | null {
    return this.r[LOG.odometer];
  }
  get hours(): number | null {
    return this.r[LOG.hours];
  }
  get fuelUsed(): number | null {
    return this.r[LOG.fuelUsed];
  }
  get attrsJson(): string | null {
    return this.r[LOG.attrs];
  }
  get flags(): number {
    return this.r[LOG.flags];
  }
  get valid(): boolean {
    return (this.flags & FLAG.valid) !== 0;
  }
  get lbs(): boolean {
    return (this.flags & FLAG.lbs) !== 0;
  }
  get archive(): boolean {
    return (this.flags & FLAG.archive) !== 0;
  }
  get ignition(): boolean | null {
    return (this.flags & FLAG.ignitionKnown) === 0 ? null : (this.flags & FLAG.ignitionOn) !== 0;
  }
  get alarm(): boolean {
    return (this.flags & FLAG.alarm) !== 0;
  }
  get attrs(): Record<string, unknown> {
    return (this.r.parsed ??= parsedAttrs(this.r[LOG.attrs]));
  }
}

/**
 * A stored attributes text as an object. The writer stores JSON.stringify's text; should a row hold
 * something else (an edited database), the fix goes without attributes rather than failing its batch
 * again and again, which would hold the tracker's forwarding at this fix for good.
 */
function parsedAttrs(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A tracker's lane (`ForwardProtocol.lanes`): always the same one, so its fixes are never in two requests at once. */
const laneOf = (sourceId: number, lanes: number) => sourceId % lanes;

export function toForwardFix(r: LogRow, b: Bound): ForwardFix {
  return new LoggedFix(r, b);
}

export class Forwarder {
  readonly status: ForwardStatus;
  private stopped = false;
  private wake: (() => void) | null = null;
  /**
   * Sessions by device id ('' for a shared one), from the moment they are being opened: batches
   * launched meanwhile wait for the same connection. (Each opening its own let a later batch of a
   * tracker arrive on a second connection before an earlier one: out of order.)
   */
  private sessions = new Map<string, { ready: Promise<Session>; open?: Session }>();
  private bindings = new Map<number, Bound>();
  private target: Target;
  /** The first failure of this round: no session is opened or batch launched after it. */
  private failed: Error | null = null;
  /** Most fixes a batch may carry since the receiver refused a larger one (HTTP 413). */
  private sizeLimit = Infinity;
  /** Acknowledged, not yet written: source -> highest acknowledged seq, and the last fix's time. */
  private acked = new Map<number, number>();
  private ackedTime: number | null = null;
  private flushedAt = 0;
  /**
   * The backlog as a running count: counted in the store once per round (`counted` -1: to do), then
   * the entries logged since (`counted` is the seq counted up to) added and each entry subtracted as
   * the receiver acknowledges it. Counting the whole backlog every second took a lowered thread's
   * CPU from forwarding while a flood made the backlog large.
   */
  private counted = -1;
  private backlog = 0;
  readonly done: Promise<void>;

  constructor(
    private store: Store,
    readonly row: RetranslatorRow,
    private protocol: ForwardProtocol,
    private opts: ForwarderOptions,
    previous?: ForwardStatus,
    /** The engine's shared read of the log; without it (or for few of the bound trackers) the forwarder reads its own entries. */
    private reader?: LogReader,
    /** Trackers bound to any retranslator: a forwarder of most of them shares the engine's read. */
    private boundSources = 0,
  ) {
    this.status = { connected: false, lastError: previous?.lastError ?? null, lastErrorTime: previous?.lastErrorTime ?? null, backlog: previous?.backlog ?? 0, lastForwarded: previous?.lastForwarded ?? row.last_forwarded, forwarded: previous?.forwarded ?? 0 };
    this.target = { address: row.address, port: row.port, login: row.login, password: row.password, url: protocol.url ? parseUrl(row.address) : undefined };
    this.done = this.run();
  }

  /** Stops at once: open sessions are closed (what they had in flight stays unacknowledged). */
  stop(): Promise<void> {
    this.stopped = true;
    this.closeSessions();
    this.wake?.();
    return this.done;
  }

  /** New fixes may be there: look now rather than at the next poll. */
  poke(): void {
    this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    }).then(() => void (this.wake = null));
  }

  private closeSessions() {
    // one still being opened is closed when it completes (it is no longer in the map)
    for (const s of this.sessions.values()) s.open?.close();
    this.sessions.clear();
    this.status.connected = false;
  }

  private async run(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      try {
        await this.forward(() => (attempt = 0));
      } catch (e) {
        if (this.stopped) break;
        this.status.lastError = String((e as Error)?.message ?? e);
        this.status.lastErrorTime = Date.now();
        this.closeSessions();
        this.flushCursors();
        await this.sleep(backoffDelay(attempt++, this.opts, this.opts.random));
      }
    }
    this.closeSessions();
    this.flushCursors();
    this.reader?.leave(this);
  }

  /**
   * Forwards until stopped or a failure (thrown). Batches are read ahead (the next one is read and
   * encoded while the current one is on the wire); protocols whose sessions deliver in call order keep
   * up to WINDOW batches on the wire. Results are taken strictly in batch order, so a cursor never
   * passes a batch that was not acknowledged.
   */
  private async forward(succeeded: () => void): Promise<void> {
    // a cursor acknowledged but not yet written counts (a failed flush leaves the stored one behind)
    this.bindings = new Map(
      this.store.retranslators.bindings(this.row.id).map((b) => [b.source_id, { trackerId: b.tracker_id, deviceId: b.fake_device_id ?? b.device_id, cursor: Math.max(b.cursor, this.acked.get(b.source_id) ?? 0) }]),
    );
    this.count();
    if (!this.bindings.size) {
      while (!this.stopped) await this.sleep(60_000);
      return;
    }
    this.failed = null;
    if (this.protocol.sessions === 'shared') await this.session(undefined);
    const window = this.protocol.ordered ? WINDOW : 1;
    const inFlight: Array<Promise<Settled>> = [];
    let readPos = Infinity;
    for (const b of this.bindings.values()) readPos = Math.min(readPos, b.cursor);
    let next: ForwardFix[] | null = null;
    let caughtUp = false;
    let turn = performance.now();
    while (!this.stopped) {
      if (this.failed && !inFlight.length) throw this.failed;
      // a turn of the thread lasts TURN_MS at most: reading and encoding several batches back to back
      // (a window of them) kept the other retranslators' answers waiting, and the JSON one idle
      if (performance.now() - turn >= TURN_MS) {
        await new Promise((r) => setImmediate(r));
        turn = performance.now();
        // stopped or failed meanwhile: nothing more is launched
        continue;
      }
      if (!next && !caughtUp) {
        const r = this.read(readPos);
        readPos = r.pos;
        caughtUp = r.end;
        if (r.fixes.length) next = r.fixes;
        continue;
      }
      if (next && inFlight.length < window && !this.failed) {
        inFlight.push(this.launch(next));
        next = null;
        continue;
      }
      if (inFlight.length) {
        this.settle(await inFlight.shift()!);
        succeeded();
        caughtUp = false;
        // let the thread's other retranslators and messages run between batches
        await new Promise((r) => setImmediate(r));
        turn = performance.now();
        continue;
      }
      // caught up: acknowledged cursors are written once a second at most, and a sleep ends when they are due
      const due = this.flushedAt + CURSOR_FLUSH_MS - Date.now();
      if (due <= 0) this.flushCursors();
      await this.sleep(this.acked.size && due > 0 ? Math.min(this.opts.pollMs, due) : this.opts.pollMs);
      turn = performance.now();
      caughtUp = false;
    }
  }

  /**
   * The next batch after `after`: up to the protocol's batch of fixes not yet acknowledged, from the
   * engine's shared blocks or, for a retranslator of few of the bound trackers, its own entries only.
   * `pos` is the seq read up to; `end` when the log has nothing more now.
   */
  private read(after: number): { fixes: ForwardFix[]; pos: number; end: boolean } {
    const fixes: ForwardFix[] = [];
    // a batch carries up to `max` fixes per lane; reading stops when one lane is full (the lanes share
    // the read position, so a full lane's later fixes cannot be skipped)
    const max = Math.min(this.protocol.batch, this.opts.batchLimit ?? Infinity, this.sizeLimit);
    const lanes = this.lanes;
    const perLane = lanes > 1 ? new Array<number>(lanes).fill(0) : null;
    let full = false;
    const take = (row: LogRow) => {
      const b = this.bindings.get(row[LOG.sourceId]);
      if (!b || row[LOG.seq] <= b.cursor) return;
      fixes.push(new LoggedFix(row, b));
      if (perLane) full = ++perLane[laneOf(row[LOG.sourceId], lanes)] >= max;
      else full = fixes.length >= max;
    };
    if (this.reader && this.bindings.size * 2 >= this.boundSources) {
      let pos = after;
      while (!full && pos - after < SCAN_WINDOW) {
        const block = this.reader.next(pos, this);
        if (!block) return { fixes, pos, end: true };
        const rows = block.rows;
        let i = firstAfter(rows, pos);
        for (; i < rows.length && !full; i++) take(rows[i]);
        pos = i < rows.length ? rows[i - 1][LOG.seq] : block.to;
      }
      return { fixes, pos, end: false };
    }
    this.reader?.leave(this);
    const maxSeq = this.store.retranslators.maxSeq();
    const upTo = Math.min(maxSeq, after + SCAN_WINDOW);
    const rows = upTo > after ? this.store.retranslators.batch(this.row.id, after, upTo, max * lanes) : [];
    let n = 0;
    while (n < rows.length && !full) take(rows[n++]);
    const cut = n < rows.length || rows.length === max * lanes;
    return { fixes, pos: cut ? rows[n - 1][LOG.seq] : upTo, end: !cut && upTo >= maxSeq };
  }

  /** Lanes of a shared session that is not ordered (see `ForwardProtocol.lanes`); 1 otherwise. */
  private get lanes(): number {
    return this.protocol.sessions === 'shared' && !this.protocol.ordered ? Math.max(1, this.protocol.lanes ?? 1) : 1;
  }

  private session(deviceId: string | undefined): Promise<Session> {
    const key = deviceId ?? '';
    if (this.failed) return Promise.reject(this.failed);
    const known = this.sessions.get(key);
    if (known) return known.ready;
    const entry: { ready: Promise<Session>; open?: Session } = {
      ready: this.protocol.open(this.target, deviceId, { timeoutMs: this.opts.timeoutMs }).then((s) => {
        if (this.stopped || this.sessions.get(key) !== entry) {
          s.close();
          throw new Error('stopped');
        }
        entry.open = s;
        this.status.connected = true;
        return s;
      }),
    };
    entry.ready.catch(() => this.sessions.get(key) === entry && this.sessions.delete(key));
    this.sessions.set(key, entry);
    return entry.ready;
  }

  /** Puts one batch on the wire (a `send` per session); resolves with each session's outcome, never rejects. */
  private launch(fixes: ForwardFix[]): Promise<Settled> {
    // a group per session (device sessions) or per lane of the shared session; each goes as one send
    const groups: Array<[string, ForwardFix[]]> = [];
    const lanes = this.lanes;
    if (this.protocol.sessions === 'device') {
      const byDevice = new Map<string, ForwardFix[]>();
      for (const f of fixes) (byDevice.get(f.deviceId) ?? byDevice.set(f.deviceId, []).get(f.deviceId)!).push(f);
      groups.push(...byDevice);
    } else if (lanes === 1) groups.push(['', fixes]);
    else {
      const byLane: ForwardFix[][] = Array.from({ length: lanes }, () => []);
      for (const f of fixes) byLane[laneOf(f.sourceId, lanes)].push(f);
      for (const list of byLane) if (list.length) groups.push(['', list]);
    }
    return Promise.allSettled(
      groups.map(async ([key, list]) => {
        let s: Session | undefined;
        try {
          s = await this.session(key === '' ? undefined : key);
          await s.send(list);
        } catch (e) {
          // nothing more goes out in this round (a failed open included): a later batch on a new
          // session could overtake this one
          this.failed ??= e as Error;
          // refused as too large: the batch is read again as smaller ones (down to one fix)
          if (e instanceof BatchTooLarge) this.sizeLimit = Math.max(1, Math.min(this.sizeLimit, Math.floor(list.length / 2)));
          s?.close();
          if (s && this.sessions.get(key)?.open === s) this.sessions.delete(key);
          throw e;
        }
        return list;
      }),
    );
  }

  /**
   * Takes one batch's outcome (batches in order): cursors move for every tracker whose fixes were
   * acknowledged, in memory, written at most every CURSOR_FLUSH_MS; then a failure is thrown.
   */
  private settle(results: Settled): void {
    let last: ForwardFix | undefined;
    let acked = 0;
    for (const r of results) {
      if (r.status !== 'fulfilled') continue;
      for (const f of r.value) {
        if (f.seq > (this.acked.get(f.sourceId) ?? 0)) this.acked.set(f.sourceId, f.seq);
        // an entry leaves the backlog with its first acknowledgement
        const b = this.bindings.get(f.sourceId);
        if (b && f.seq > b.cursor) {
          b.cursor = f.seq;
          this.backlog--;
        }
        if (!last || f.seq > last.seq) last = f;
        acked++;
      }
    }
    if (last) {
      this.ackedTime = last.time;
      this.status.lastForwarded = last.time;
      this.status.forwarded += acked;
      if (Date.now() - this.flushedAt >= CURSOR_FLUSH_MS) this.flushCursors();
    }
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    this.status.connected = true;
  }

  /** Counts the backlog in full, before anything of the round is acknowledged (its cursors written first). */
  private count(): void {
    this.flushCursors();
    this.counted = -1;
    try {
      const c = this.store.retranslators.backlogAt(this.row.id);
      this.backlog = c.backlog;
      this.counted = c.maxSeq;
      this.status.backlog = c.backlog;
    } catch {
      // busy: counted at the next refresh
    }
  }

  /** Brings `status.backlog` up to the log's end (the engine calls it about every second). */
  refreshBacklog(): void {
    if (this.counted < 0) {
      const c = this.store.retranslators.backlogAt(this.row.id);
      this.backlog = c.backlog;
      this.counted = c.maxSeq;
    } else {
      const maxSeq = this.store.retranslators.maxSeq();
      if (maxSeq > this.counted) this.backlog += this.store.retranslators.logged(this.row.id, this.counted, maxSeq);
      this.counted = maxSeq;
    }
    this.status.backlog = Math.max(0, this.backlog);
  }

  /** Writes the acknowledged cursors (one transaction); on a busy store they stay for the next try. */
  private flushCursors(): void {
    this.flushedAt = Date.now();
    if (!this.acked.size || this.ackedTime === null) return;
    try {
      this.store.retranslators.advance(this.row.id, this.acked, this.ackedTime);
      this.acked = new Map();
    } catch {
      // busy: written with the next flush; until then a restart resends (at least once)
    }
  }
}
