/**
 * The live channel's coalescing (issue 26, docs/live.md): what the sockets of src/api/live.ts
 * subscribed to, and what each is sent when.
 *
 * The gateway's writer calls `changed(sourceId)` after each commit: one Set add, nothing more on
 * the ingest path. Each subscription has its own timer (its rate_limit); when it fires, the hub
 * first hands the changed devices to every subscription that watches them (a Set per
 * subscription: a device changed ten times in a period is sent once), then the subscription sends
 * one message with the newest state of each. A device's state is read from the store once per
 * change and serialized once per format and time zone, whichever number of sockets watch it. A
 * client that does not read keeps its pending set (at most one entry per tracker) and gets the
 * newest states when it has room again: memory does not grow with the data rate.
 */
import type { DeviceState } from '../store/device-state.ts';
import type { TrackerRow } from '../store/trackers.ts';
import type { UserRow } from '../store/users.ts';
import { formatDateTime } from '../core/time.ts';
import type { Services } from './kernel.ts';
import { compactState, connectionStatus, sourceState, type ConnectionStatus } from './source-state.ts';
import { lostMs } from './tracker-state.ts';

export type EventType = 'state_batch' | 'state';
export type Format = 'full' | 'compact';
export type TargetSpec = { type: 'all' } | { type: 'selected'; ids: number[] };
/** What the subscribe response says of each tracker (Navixy subscription.md). */
export type TrackerStatus = 'normal' | 'blocked' | 'unknown';

/** Where a client's messages go (a WebSocket in src/api/live.ts; an array in unit tests). */
export interface LiveSink {
  send(text: string): void;
  /** Bytes queued and not yet sent. */
  buffered(): number;
  /** Ends the connection after the last message (`reason` for the close frame). */
  end(reason: string): void;
}

/** A client that lets this much wait unsent gets nothing more until it has read it (its states stay pending). */
export const MAX_BUFFERED = 4 * 1024 * 1024;
/** States built per event-loop turn (a few ms): a big snapshot is built over several turns, sent as one message. */
const STATES_PER_TURN = 100;

interface Principal {
  user: UserRow;
  owner: UserRow;
}

/** One socket's session and subscriptions. */
export class LiveClient {
  readonly subs = new Map<EventType, Subscription>();
  private versions = { sessions: -1, accounts: -1 };
  closed = false;

  constructor(
    readonly hub: LiveHub,
    readonly sink: LiveSink,
    public hash: string,
    public principal: Principal,
  ) {}

  get tz(): string {
    return this.principal.user.time_zone;
  }

  /**
   * Still signed in? Re-read when sessions or accounts changed (logout, block, removal) and
   * checked for expiry each time; a session that ended gets the logout event and the socket closes.
   */
  async check(): Promise<boolean> {
    if (this.closed) return false;
    const { store, config, now } = this.hub.services;
    const data = store.data;
    const v = await data.authVersions.read();
    const session = await data.sessions.alive(this.hash, now(), config.auth.sessionTtlDays * 86_400_000, v.sessions);
    if (this.closed) return false;
    if (v.sessions !== this.versions.sessions || v.accounts !== this.versions.accounts || !session) {
      const principal = session ? await data.users.principal(session.user_id, v.accounts) : undefined;
      if (this.closed) return false;
      if (!session || session.type !== 'user' || !principal || principal.dealerBlocked) {
        this.logout();
        return false;
      }
      this.principal = principal;
      this.versions = v;
    }
    return true;
  }

  /** The documented logout event, then the socket closes. */
  logout(): void {
    if (this.closed) return;
    this.sink.send(JSON.stringify({ type: 'event', event: 'logout', data: 'session closed' }));
    this.hub.drop(this);
    this.sink.end('session closed');
  }
}

export class Subscription {
  /** Sources whose state is to be sent at the next flush. */
  readonly pending = new Set<number>();
  /** Visible, unblocked trackers of the target by source. */
  readonly watched = new Map<number, TrackerRow>();
  /** Every visible tracker of the target (blocked ones too) by id: for lifecycle events. */
  private known = new Map<number, { source: number; blocked: boolean }>();
  private listing: object | undefined;
  private sentStatus = new Map<number, ConnectionStatus>();
  private lastStatusCheck = 0;
  private timer: NodeJS.Timeout | undefined;
  private building = false;
  private stopped = false;

  constructor(
    readonly client: LiveClient,
    readonly type: EventType,
    readonly target: TargetSpec,
    readonly format: Format,
    readonly periodMs: number,
  ) {}

  /** The subscribe response's map: each tracker of the target and whether its states will come. */
  async start(): Promise<Record<string, TrackerStatus>> {
    await this.sync(false);
    const value: Record<string, TrackerStatus> = {};
    if (this.target.type === 'selected') for (const id of this.target.ids) value[id] = 'unknown';
    for (const [id, k] of this.known) value[id] = k.blocked ? 'blocked' : 'normal';
    // the current states at once, then at most one per tracker and period
    for (const source of this.watched.keys()) this.pending.add(source);
    // Stopped while the trackers were read (the socket closed): no timer.
    if (!this.stopped) this.timer = setInterval(() => void this.flush(), this.periodMs);
    return value;
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** Brings the watched set up to the owner's current trackers; lifecycle events for what changed since (not on the first look). */
  private async sync(announce: boolean): Promise<void> {
    const listing = await this.client.hub.services.store.data.trackers.listing(this.client.principal.owner.id);
    if (listing === this.listing) return;
    this.listing = listing;
    const selected = this.target.type === 'selected' ? new Set(this.target.ids) : undefined;
    const before = this.known;
    this.known = new Map();
    this.watched.clear();
    for (const t of listing.trackers) {
      if (t.corrupted || (selected && !selected.has(t.id))) continue;
      const blocked = !!t.blocked;
      this.known.set(t.id, { source: t.source_id, blocked });
      if (!blocked) this.watched.set(t.source_id, t);
      if (!announce) continue;
      const was = before.get(t.id);
      if (was?.blocked && !blocked) this.lifecycle(t.source_id, 'unblock');
      if (was && !was.blocked && blocked) this.lifecycle(t.source_id, 'block');
      // new and unblocked trackers: their current state at the next flush
      if (!blocked && (!was || was.blocked)) this.pending.add(t.source_id);
    }
    for (const [id, was] of before) if (announce && !this.known.has(id)) this.lifecycle(was.source, 'corrupt');
    for (const source of this.pending) if (!this.watched.has(source)) this.pending.delete(source);
  }

  private lifecycle(sourceId: number, event: 'block' | 'unblock' | 'corrupt'): void {
    this.client.sink.send(JSON.stringify({ type: 'event', event: 'lifecycle', data: { source_id: sourceId, lifecycle_event: event } }));
  }

  /** Time alone moves connection_status: such trackers join the pending set, looked at as often as the connection watcher looks. */
  private async checkStatuses(now: number): Promise<void> {
    if (now - this.lastStatusCheck < this.client.hub.statusCheckMs) return;
    this.lastStatusCheck = now;
    const hub = this.client.hub;
    for (const [source, sent] of this.sentStatus) {
      if (this.pending.has(source) || !this.watched.has(source)) continue;
      if (connectionStatus(await hub.deviceState(source), now, hub.lostMs) !== sent) this.pending.add(source);
    }
  }

  /**
   * One period: what changed goes out as one message (state_batch) or one per tracker (state).
   * Built STATES_PER_TURN states per event-loop turn, so a snapshot of thousands of trackers does
   * not hold the API up; a period that comes while one is being built is skipped (its changes wait).
   */
  async flush(): Promise<void> {
    const { client } = this;
    const hub = client.hub;
    if (this.building) return;
    // Held from the first read: a period that comes while one is read or built is skipped.
    this.building = true;
    try {
      hub.distribute();
      if (!(await client.check())) return;
      await this.sync(true);
      await this.checkStatuses(hub.services.now());
      if (!this.pending.size || client.sink.buffered() > MAX_BUFFERED) return;
      const sources = [...this.pending];
      this.pending.clear();
      const parts: string[] = [];
      let now = hub.services.now();
      for (let from = 0; from < sources.length; from += STATES_PER_TURN) {
        if (from) await new Promise((r) => setImmediate(r));
        if (this.stopped) return;
        now = hub.services.now();
        const end = Math.min(sources.length, from + STATES_PER_TURN);
        for (let i = from; i < end; i++) {
          const t = this.watched.get(sources[i]);
          if (!t) continue;
          const { json, status } = await hub.stateJson(t, client.tz, this.format, now);
          this.sentStatus.set(t.source_id, status);
          parts.push(json);
        }
      }
      this.send(parts, now);
    } finally {
      this.building = false;
    }
  }

  private send(parts: string[], now: number): void {
    if (!parts.length) return;
    const head = `{"type":"event","event":"${this.type}","user_time":"${formatDateTime(now, this.client.tz)}","data":`;
    if (this.type === 'state_batch') this.client.sink.send(`${head}[${parts.join(',')}]}`);
    else for (const p of parts) this.client.sink.send(`${head}${p}}`);
  }
}

/** A device's state as last read, and its JSON per format, time zone, protocol and connection status. */
interface CachedState {
  state: DeviceState | undefined;
  json: Map<string, string>;
}

export class LiveHub {
  private clients = new Set<LiveClient>();
  private dirty = new Set<number>();
  private subscriptions = 0;
  private cache = new Map<number, CachedState>();
  readonly lostMs: number;
  /** How often a subscription looks whether time alone changed a connection_status (FSM_CONNECTION_CHECK_SECONDS). */
  readonly statusCheckMs: number;

  constructor(readonly services: Services) {
    this.lostMs = lostMs(services);
    this.statusCheckMs = services.config.connection.checkSeconds * 1000;
  }

  /** The gateway committed records of this device (the writer's onStored hook). */
  readonly changed = (sourceId: number): void => {
    if (this.subscriptions) this.dirty.add(sourceId);
  };

  /** Open sockets with a session (tests and /metrics). */
  get size(): number {
    return this.clients.size;
  }

  connect(sink: LiveSink, hash: string, principal: Principal): LiveClient {
    const c = new LiveClient(this, sink, hash, principal);
    this.clients.add(c);
    return c;
  }

  /** Starts (or replaces: a resubscribe gets the current states again) the client's subscription of `type`. */
  async subscribe(client: LiveClient, type: EventType, target: TargetSpec, format: Format, periodMs: number): Promise<{ sub: Subscription; value: Record<string, TrackerStatus> }> {
    this.unsubscribe(client, type);
    const sub = new Subscription(client, type, target, format, periodMs);
    client.subs.set(type, sub);
    this.subscriptions++;
    return { sub, value: await sub.start() };
  }

  unsubscribe(client: LiveClient, type: EventType): boolean {
    const sub = client.subs.get(type);
    if (!sub) return false;
    sub.stop();
    client.subs.delete(type);
    this.subscriptions--;
    if (!this.subscriptions) {
      this.dirty.clear();
      this.cache.clear();
    }
    return true;
  }

  /** The socket closed (or the session ended). */
  drop(client: LiveClient): void {
    if (client.closed) return;
    client.closed = true;
    for (const type of [...client.subs.keys()]) this.unsubscribe(client, type);
    this.clients.delete(client);
  }

  /** Hands the devices changed since the last call to the subscriptions that watch them. */
  distribute(): void {
    if (!this.dirty.size) return;
    const dirty = this.dirty;
    this.dirty = new Set();
    for (const source of dirty) this.cache.delete(source);
    for (const c of this.clients) {
      for (const sub of c.subs.values()) {
        for (const source of dirty) if (sub.watched.has(source)) sub.pending.add(source);
      }
    }
  }

  /** The device's latest state, read once per change. */
  async deviceState(source: number): Promise<DeviceState | undefined> {
    return (await this.entry(source)).state;
  }

  private async entry(source: number): Promise<CachedState> {
    const cached = this.cache.get(source);
    if (cached) return cached;
    const state = await this.services.store.data.deviceState.get(source);
    // Another flush may have read it meanwhile: the first one read stays (its JSON may be built).
    let e = this.cache.get(source);
    if (!e) this.cache.set(source, (e = { state, json: new Map() }));
    return e;
  }

  /** The state as JSON, built once per change, format, time zone and connection status. */
  async stateJson(t: TrackerRow, tz: string, format: Format, now: number): Promise<{ json: string; status: ConnectionStatus }> {
    const e = await this.entry(t.source_id);
    const status = connectionStatus(e.state, now, this.lostMs);
    const key = `${format}|${status}|${t.protocol}|${tz}`;
    let json = e.json.get(key);
    if (json === undefined) {
      const full = sourceState(t, e.state, tz, now, this.lostMs);
      json = JSON.stringify(format === 'compact' ? compactState(full) : full);
      e.json.set(key, json);
    }
    return { json, status };
  }

  /** The server is closing: every socket ends. */
  close(): void {
    for (const c of [...this.clients]) {
      this.drop(c);
      c.sink.end('server shutting down');
    }
  }
}
