/**
 * One retranslator's forwarding loop (docs/retranslators.md). It reads the forwarding log in arrival
 * order, in batches, hands each batch to the protocol's sessions and moves the per-tracker cursors
 * only after the receiver acknowledged: at least once, in order per tracker. A failure closes the
 * sessions, waits (exponential backoff with jitter) and starts again from the cursors, so nothing
 * is skipped; fixes already acknowledged for other trackers are not sent again.
 */
import { FLAG } from '../core/point.ts';
import type { Store } from '../store/index.ts';
import type { BindingRow, LoggedFixRow, RetranslatorRow } from '../store/retranslators.ts';
import { parseUrl } from './retranslators.ts';
import type { ForwardFix, ForwardProtocol, ForwardStatus, Session, Target } from './types.ts';

export interface ForwarderOptions {
  backoffMinMs: number;
  backoffMaxMs: number;
  /** An answer must come within this time. */
  timeoutMs: number;
  /** How often to look for new fixes when caught up. */
  pollMs: number;
  random?: () => number;
}

/** Log entries scanned per read: a retranslator with few trackers skips other trackers' entries in steps. */
const SCAN_WINDOW = 50_000;

export function backoffDelay(attempt: number, o: Pick<ForwarderOptions, 'backoffMinMs' | 'backoffMaxMs'>, random = Math.random): number {
  const full = Math.min(o.backoffMaxMs, o.backoffMinMs * 2 ** Math.min(attempt, 30));
  // "equal jitter": at least half the delay, so a flapping receiver is not hammered, spread so many retranslators do not reconnect in step
  return Math.round(full / 2 + (random() * full) / 2);
}

export function toForwardFix(r: LoggedFixRow, b: { tracker_id: number; device_id: string; fake_device_id: string | null }): ForwardFix {
  return {
    seq: r.seq,
    sourceId: r.source_id,
    trackerId: b.tracker_id,
    deviceId: b.fake_device_id ?? b.device_id,
    time: r.time,
    received: r.received,
    lat: r.lat,
    lng: r.lng,
    alt: r.alt,
    speed: r.speed,
    course: r.course,
    satellites: r.satellites,
    hdop: r.hdop,
    precision: r.precision,
    valid: (r.flags & FLAG.valid) !== 0,
    lbs: (r.flags & FLAG.lbs) !== 0,
    archive: (r.flags & FLAG.archive) !== 0,
    ignition: (r.flags & FLAG.ignitionKnown) === 0 ? null : (r.flags & FLAG.ignitionOn) !== 0,
    alarm: (r.flags & FLAG.alarm) !== 0,
    odometer: r.odometer,
    hours: r.hours,
    fuelUsed: r.fuel_used,
    attrs: r.attrs ? (JSON.parse(r.attrs) as Record<string, unknown>) : {},
  };
}

export class Forwarder {
  readonly status: ForwardStatus;
  private stopped = false;
  private wake: (() => void) | null = null;
  private sessions = new Map<string, Session>();
  private bindings = new Map<number, BindingRow>();
  private target: Target;
  readonly done: Promise<void>;

  constructor(
    private store: Store,
    readonly row: RetranslatorRow,
    private protocol: ForwardProtocol,
    private opts: ForwarderOptions,
    previous?: ForwardStatus,
  ) {
    this.status = { connected: false, lastError: previous?.lastError ?? null, lastErrorTime: previous?.lastErrorTime ?? null, backlog: previous?.backlog ?? 0, lastForwarded: row.last_forwarded, forwarded: previous?.forwarded ?? 0 };
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
    for (const s of this.sessions.values()) s.close();
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
        await this.sleep(backoffDelay(attempt++, this.opts, this.opts.random));
      }
    }
    this.closeSessions();
  }

  /** Forwards until stopped or a failure (thrown). */
  private async forward(succeeded: () => void): Promise<void> {
    this.bindings = new Map(this.store.retranslators.bindings(this.row.id).map((b) => [b.source_id, b]));
    if (!this.bindings.size) {
      while (!this.stopped) await this.sleep(60_000);
      return;
    }
    if (this.protocol.sessions === 'shared') await this.session(undefined);
    let readPos = this.store.retranslators.minCursor(this.row.id) ?? 0;
    while (!this.stopped) {
      const maxSeq = this.store.retranslators.maxSeq();
      const upTo = Math.min(maxSeq, readPos + SCAN_WINDOW);
      const rows = upTo > readPos ? this.store.retranslators.batch(this.row.id, readPos, upTo, this.protocol.batch) : [];
      if (!rows.length) {
        readPos = upTo;
        if (upTo >= maxSeq) await this.sleep(this.opts.pollMs);
        continue;
      }
      const fixes: ForwardFix[] = [];
      for (const r of rows) {
        const b = this.bindings.get(r.source_id);
        if (b) fixes.push(toForwardFix(r, b));
      }
      await this.send(fixes);
      succeeded();
      readPos = rows[rows.length - 1].seq;
      // let the thread's other retranslators and messages run between batches
      await new Promise((r) => setImmediate(r));
    }
  }

  private async session(deviceId: string | undefined): Promise<Session> {
    const key = deviceId ?? '';
    let s = this.sessions.get(key);
    if (!s) {
      s = await this.protocol.open(this.target, deviceId, { timeoutMs: this.opts.timeoutMs });
      if (this.stopped) {
        s.close();
        throw new Error('stopped');
      }
      this.sessions.set(key, s);
      this.status.connected = true;
    }
    return s;
  }

  /** Sends one batch; cursors move for every tracker whose fixes were acknowledged, then a failure is thrown. */
  private async send(fixes: ForwardFix[]): Promise<void> {
    const groups = new Map<string, ForwardFix[]>();
    if (this.protocol.sessions === 'shared') groups.set('', fixes);
    else for (const f of fixes) (groups.get(f.deviceId) ?? groups.set(f.deviceId, []).get(f.deviceId)!).push(f);
    const results = await Promise.allSettled(
      [...groups].map(async ([key, list]) => {
        const s = await this.session(key === '' ? undefined : key);
        try {
          await s.send(list);
        } catch (e) {
          s.close();
          this.sessions.delete(key);
          throw e;
        }
        return list;
      }),
    );
    const cursors = new Map<number, number>();
    let last: ForwardFix | undefined;
    let acked = 0;
    for (const r of results) {
      if (r.status !== 'fulfilled') continue;
      for (const f of r.value) {
        cursors.set(f.sourceId, Math.max(cursors.get(f.sourceId) ?? 0, f.seq));
        if (!last || f.seq > last.seq) last = f;
        acked++;
      }
    }
    if (last) {
      this.store.retranslators.advance(this.row.id, cursors, last.time);
      this.status.lastForwarded = last.time;
      this.status.forwarded += acked;
    }
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    this.status.connected = true;
  }
}
