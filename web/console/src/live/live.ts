/**
 * Live tracker states for the console, from the Navixy-compatible WebSocket
 * (/v2/event/subscription: `subscribe` with a `state_batch` request, target all, a rate_limit;
 * docs/console.md#live-updates). While the socket cannot be had (not offered by the server, or
 * closed), states are polled with tracker/get_states; where the server has no get_states either,
 * each tracker's last point is polled. The socket is tried again after each failure, backing off.
 */
import type { Api } from '../api/client.ts';
import { ApiError } from '../api/client.ts';
import type { SourceState, Tracker } from '../api/types.ts';
import { wallMs } from '../util/time.ts';

export type LiveMode = 'connecting' | 'socket' | 'polling';

export interface LiveOptions {
  /** The socket's `rate_limit`: at most one state per tracker per this period. */
  rateLimitSeconds: number;
  pollSeconds: number;
  /** The socket's address; tests and other hosts may change it. */
  socketUrl?: string;
}

type Listener = (states: ReadonlyMap<number, SourceState>, changed: readonly number[]) => void;

export class LiveStates {
  /** Tracker id -> its latest state. */
  readonly states = new Map<number, SourceState>();
  mode: LiveMode = 'connecting';
  private listeners = new Set<Listener>();
  private modeListeners = new Set<(m: LiveMode) => void>();
  private bySource = new Map<number, number>();
  private socket: WebSocket | null = null;
  private pollTimer: ReturnType<typeof setTimeout> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private retryMs = 2000;
  private stopped = false;

  constructor(
    private readonly api: Api,
    private trackers: Tracker[],
    private readonly opts: LiveOptions,
  ) {
    this.indexSources();
  }

  onChange(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  onMode(l: (m: LiveMode) => void): () => void {
    this.modeListeners.add(l);
    return () => this.modeListeners.delete(l);
  }

  start(): void {
    this.stopped = false;
    // States at once by polling; the socket takes over when it opens.
    void this.poll();
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.socket?.close();
    this.socket = null;
  }

  setTrackers(trackers: Tracker[]): void {
    this.trackers = trackers;
    this.indexSources();
  }

  private indexSources() {
    this.bySource = new Map(this.trackers.map((t) => [t.source.id, t.id]));
  }

  private setMode(m: LiveMode) {
    if (m === this.mode) return;
    this.mode = m;
    for (const l of this.modeListeners) l(m);
  }

  private publish(changed: number[]) {
    if (!changed.length) return;
    for (const l of this.listeners) l(this.states, changed);
  }

  private socketUrl(): string {
    if (this.opts.socketUrl) return this.opts.socketUrl;
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    // The Atmosphere parameters Navixy's clients send; a plain socket works the same.
    return `${scheme}//${location.host}/v2/event/subscription?X-Atmosphere-Transport=websocket&X-Atmosphere-Framework=2.3.6-javascript&X-atmo-protocol=true&Content-Type=application/json`;
  }

  private connect() {
    if (this.stopped || typeof WebSocket === 'undefined') return;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.socketUrl());
    } catch {
      this.retryLater();
      return;
    }
    this.socket = ws;
    let subscribed = false;
    ws.onopen = () => {
      ws.send(JSON.stringify({ action: 'subscribe', hash: this.api.session.hash, requests: [{ type: 'state_batch', target: { type: 'all' }, rate_limit: `${this.opts.rateLimitSeconds}s`, format: 'compact' }] }));
    };
    ws.onmessage = (ev) => {
      // Heartbeats ("X") and the Atmosphere handshake frame are not JSON: skipped.
      let msg: { type?: string; event?: string; action?: string; data?: unknown; status?: { code: number } };
      try {
        msg = JSON.parse(String(ev.data));
      } catch {
        return;
      }
      if (msg.type === 'response' && msg.action === 'subscription/subscribe') {
        subscribed = true;
        this.retryMs = 2000;
        this.stopPolling();
        this.setMode('socket');
      } else if (msg.type === 'event' && msg.event === 'state_batch' && Array.isArray(msg.data)) {
        this.take(msg.data as SourceState[], 'socket');
      } else if (msg.type === 'event' && msg.event === 'logout') {
        // The session ended: the next API call reports it to the application.
        void this.api.call('user/get_info').catch(() => {});
      } else if (msg.type === 'error' && msg.status?.code === 4) {
        void this.api.call('user/get_info').catch(() => {});
      }
    };
    ws.onclose = () => {
      if (this.socket === ws) this.socket = null;
      if (this.stopped) return;
      if (subscribed || this.mode !== 'polling') {
        this.setMode('polling');
        void this.poll();
      }
      this.retryLater();
    };
  }

  private retryLater() {
    if (this.stopped) return;
    this.retryTimer = setTimeout(() => this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 60_000);
  }

  private stopPolling() {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
  }

  /**
   * Source states (the socket's and get_states' shape) into the map, keyed by tracker. A poll that
   * was under way when the socket took over is dropped, and no state replaces a newer one.
   */
  private take(list: SourceState[], from: 'socket' | 'poll') {
    if (from === 'poll' && this.mode === 'socket') return;
    const changed: number[] = [];
    for (const s of list) {
      const id = this.bySource.get(s.source_id);
      if (id === undefined) continue;
      const prev = this.states.get(id)?.last_update;
      if (prev && s.last_update && wallMs(s.last_update) < wallMs(prev)) continue;
      this.states.set(id, s);
      changed.push(id);
    }
    this.publish(changed);
  }

  private async poll(): Promise<void> {
    this.stopPolling();
    if (this.stopped || this.mode === 'socket') return;
    if (this.mode === 'connecting' && this.socket === null) this.setMode('polling');
    try {
      await this.pollStates();
    } catch (e) {
      // A failed poll (network, server restarting) is tried again at the next period.
      if (!(e instanceof ApiError)) console.warn('tracker/get_states failed', e);
    }
    // The socket may have taken over while this poll ran.
    if (!this.stopped && (this.mode as LiveMode) !== 'socket') this.pollTimer = setTimeout(() => void this.poll(), this.opts.pollSeconds * 1000);
  }

  private async pollStates() {
    const ids = this.trackers.filter((t) => !t.source.blocked).map((t) => t.id);
    // The spec allows 2,000 trackers per request.
    for (let i = 0; i < ids.length; i += 2000) {
      const r = await this.api.call<{ states: Record<string, SourceState> }>('tracker/get_states', { trackers: ids.slice(i, i + 2000), list_blocked: true, allow_not_exist: true });
      this.take(Object.values(r.states), 'poll');
    }
  }

}
