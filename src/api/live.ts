/**
 * The live channel (issue 26, docs/live.md): Navixy's WebSocket at <mount>event/subscription under
 * every API mount (/v2/fsm/, /v2/, /api-v2/). Clients send `subscribe` and `unsubscribe` actions
 * with their session hash; the server answers `response` or `error` messages and sends `event`
 * messages (state_batch, state, lifecycle, logout) coalesced by src/api/live-hub.ts.
 * A bad message gets an error message and the socket stays open; nothing a client sends can throw
 * out of the handler.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { z } from 'zod';
import { DomainError, invalidParams } from '../core/errors.ts';
import { authorizeHash, MOUNTS, type Services } from './kernel.ts';
import { LiveHub, type EventType, type LiveClient, type LiveSink, type TargetSpec, type TrackerStatus } from './live-hub.ts';
import { issuesToErrors } from './params.ts';
import { id } from './schemas.ts';

export const LIVE_PATH = 'event/subscription';
/** A client message larger than this closes the socket (1009): subscribe messages are small. */
const MAX_MESSAGE_BYTES = 256 * 1024;
/** Ping (and, for Atmosphere clients, the "X" heartbeat frame) this often; a peer silent for two of them is gone. */
const HEARTBEAT_MS = 30_000;
/** Most messages a client may send per second; more get error 15 (a subscribe costs a snapshot of every tracker). */
const MAX_MESSAGES_PER_SECOND = 20;
/** Most trackers of a `selected` target. */
const MAX_SELECTED = 10_000;
/** rate_limit bounds and default, ms. */
export const RATE_LIMIT = { min: 100, max: 3_600_000, default: 1000 } as const;
/** `state` subscriptions have no rate_limit: they are coalesced over this period. */
const STATE_PERIOD_MS = 1000;

const SUPPORTED: readonly EventType[] = ['state_batch', 'state'];
/** Documented event types this server does not produce yet (docs/live.md). */
const NOT_YET = ['readings_batch', 'iot_monitor'];

/** Navixy timespans: "500ms", "5s", "1m", "1h"; a bare number is seconds. */
export function parseRateLimit(v: string): number | undefined {
  const m = /^\s*(\d{1,7})\s*(ms|s|m|h)?\s*$/.exec(v);
  if (!m) return undefined;
  const n = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return n >= RATE_LIMIT.min && n <= RATE_LIMIT.max ? n : undefined;
}

const target = z.discriminatedUnion('type', [z.object({ type: z.literal('all') }), z.object({ type: z.literal('selected'), tracker_ids: z.array(id).min(1).max(MAX_SELECTED) })]);
const request = z.object({
  type: z.string().min(1).max(50),
  target: target.optional(),
  // the `state` request names its trackers here
  trackers: z.array(id).min(1).max(MAX_SELECTED).optional(),
  rate_limit: z
    .string()
    .max(20)
    .refine((v) => parseRateLimit(v) !== undefined, `a timespan from ${RATE_LIMIT.min}ms to 1h such as "5s", "500ms" or "1m"`)
    .optional(),
  format: z.enum(['full', 'compact']).default('full'),
});
const message = z.object({ requests: z.array(request).min(1).max(10) });
/** The deprecated form: `trackers` and `events` (only "state") instead of `requests`. */
const deprecated = z.object({ trackers: z.array(id).min(1).max(MAX_SELECTED), events: z.array(z.literal('state')).min(1) });

type Request = z.infer<typeof request>;

function targetOf(r: Request, index: number): TargetSpec {
  if (r.type === 'state' && r.trackers) return { type: 'selected', ids: [...new Set(r.trackers)] };
  if (!r.target) throw invalidParams([{ parameter: `requests.${index}.target`, error: r.type === 'state' ? 'required (or trackers)' : 'required' }]);
  return r.target.type === 'all' ? { type: 'all' } : { type: 'selected', ids: [...new Set(r.target.tracker_ids)] };
}

/** The parsed requests of a subscribe or unsubscribe message; code 7 naming what is wrong. */
function requestsOf(msg: Record<string, unknown>): Request[] {
  if (msg.requests === undefined && msg.trackers !== undefined) {
    const d = deprecated.safeParse(msg);
    if (!d.success) throw invalidParams(issuesToErrors(d.error.issues, msg));
    return [{ type: 'state', trackers: d.data.trackers, format: 'full' }];
  }
  const parsed = message.safeParse(msg);
  if (!parsed.success) throw invalidParams(issuesToErrors(parsed.error.issues, msg));
  const types = parsed.data.requests.map((r) => r.type);
  const twice = types.find((t, i) => types.indexOf(t) !== i);
  if (twice) throw invalidParams([{ parameter: 'requests', error: `names ${twice} twice` }]);
  return parsed.data.requests;
}

const errorMessage = (action: string | null, e: DomainError) => JSON.stringify({ type: 'error', action, status: { code: e.code, description: e.message }, ...e.extra });

/** One WebSocket: its messages in, the hub's messages out. */
class LiveSocket {
  client: LiveClient | undefined;
  private window = { start: 0, count: 0 };
  /** The messages in handling, one after the other: answers go out in the order the messages came. */
  private handling: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private hub: LiveHub,
    private ws: WebSocket,
    readonly sink: LiveSink,
    private log: (e: unknown) => void,
  ) {}

  onMessage(text: string): void {
    if (text === 'X') return; // an Atmosphere client's heartbeat
    this.handling = this.handling.then(() => this.handle(text)).catch((e) => this.log(e));
  }

  private async handle(text: string): Promise<void> {
    if (this.closed) return;
    let action: string | null = null;
    try {
      const now = Date.now();
      if (now - this.window.start >= 1000) this.window = { start: now, count: 0 };
      if (++this.window.count > MAX_MESSAGES_PER_SECOND) throw new DomainError(15, {}, `Too many requests: at most ${MAX_MESSAGES_PER_SECOND} messages a second`);
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        throw invalidParams([{ parameter: '(message)', error: 'is not JSON' }]);
      }
      if (!msg || typeof msg !== 'object' || Array.isArray(msg)) throw invalidParams([{ parameter: '(message)', error: 'must be a JSON object' }]);
      const m = msg as Record<string, unknown>;
      if (typeof m.action !== 'string') throw invalidParams([{ parameter: 'action', error: 'required: "subscribe" or "unsubscribe"' }]);
      if (m.action !== 'subscribe' && m.action !== 'unsubscribe') throw new DomainError(3, {}, `Unknown action: ${m.action.slice(0, 50)} (subscribe or unsubscribe)`);
      action = `subscription/${m.action}`;
      // requests first: a bad message changes nothing, not even the socket's session
      const requests = requestsOf(m);
      const client = await this.authorize(m.hash);
      if (!client) return; // the socket closed meanwhile
      if (m.action === 'subscribe') await this.subscribe(client, requests);
      else this.unsubscribe(client, requests);
    } catch (e) {
      // an unexpected failure is a bug: logged and answered with code 1, the socket stays open
      if (!(e instanceof DomainError)) this.log(e);
      this.sink.send(errorMessage(action, e instanceof DomainError ? e : new DomainError(1)));
    }
  }

  /** The message's session: the socket's own, or a new one (a different hash replaces the socket's session and its subscriptions). */
  private async authorize(hash: unknown): Promise<LiveClient | undefined> {
    if (typeof hash !== 'string' || !hash) throw new DomainError(4, {}, 'Session hash is missing: pass hash in the message');
    if (this.client && !this.client.closed && this.client.hash === hash && (await this.client.check())) return this.client;
    const { user, owner } = (await authorizeHash({ access: 'session' }, this.hub.services, hash)) as { user: LiveClient['principal']['user']; owner: LiveClient['principal']['owner'] };
    if (this.closed) return undefined;
    if (this.client) this.hub.drop(this.client);
    this.client = this.hub.connect(this.sink, hash, { user, owner });
    return this.client;
  }

  private async subscribe(client: LiveClient, requests: Request[]): Promise<void> {
    const data: Record<string, unknown> = {};
    const started: Array<() => Promise<void>> = [];
    // validated first, started after: a bad request leaves the socket's subscriptions as they were
    const plans = requests.map((r, i) => {
      if (!SUPPORTED.includes(r.type as EventType)) {
        const why = NOT_YET.includes(r.type) ? 'not supported by this server yet' : 'unknown event type';
        return () => (data[r.type] = { success: false, status: { code: 7, description: `Invalid parameters: requests.${i}.type: ${r.type} is ${why}` } });
      }
      const type = r.type as EventType;
      const spec = targetOf(r, i);
      const period = type === 'state' ? STATE_PERIOD_MS : r.rate_limit === undefined ? RATE_LIMIT.default : parseRateLimit(r.rate_limit)!;
      return async () => {
        const { sub, value } = await this.hub.subscribe(client, type, spec, r.format, period);
        data[type] = { success: true, value };
        started.push(() => sub.flush());
      };
    });
    for (const p of plans) await p();
    this.sink.send(JSON.stringify({ type: 'response', action: 'subscription/subscribe', events: Object.keys(data), data }));
    // The first states are built in the background (a big snapshot over several turns): the next message is not held up.
    for (const first of started) first().catch((e) => this.log(e));
  }

  private unsubscribe(client: LiveClient, requests: Request[]): void {
    const data: Record<string, unknown> = {};
    for (const r of requests) {
      const sub = client.subs.get(r.type as EventType);
      const value: Record<string, TrackerStatus> = {};
      if (sub) {
        for (const t of sub.watched.values()) value[t.id] = 'normal';
        this.hub.unsubscribe(client, r.type as EventType);
      }
      data[r.type] = { success: true, value };
    }
    this.sink.send(JSON.stringify({ type: 'response', action: 'subscription/unsubscribe', events: Object.keys(data), data }));
  }

  close(): void {
    this.closed = true;
    if (this.client) this.hub.drop(this.client);
    this.ws.removeAllListeners('message');
  }
}

/** Upgrades <mount>event/subscription[/] to the live channel; any other upgrade request is refused (404). */
export function attachLive(app: FastifyInstance, services: Services, hub = new LiveHub(services)): LiveHub {
  const paths = new Set(MOUNTS.flatMap((m) => [`${m}${LIVE_PATH}`, `${m}${LIVE_PATH}/`]));
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const sockets = new Set<WebSocket>();
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = req.url ?? '';
    if (!paths.has(url.split('?')[0].replace(/\/{2,}/g, '/'))) {
      socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => open(ws, /[?&]X-atmo-protocol=true(&|$)/i.test(url)));
  };
  const open = (ws: WebSocket, atmosphere: boolean) => {
    sockets.add(ws);
    const sink: LiveSink = {
      send: (text) => {
        if (ws.readyState === ws.OPEN) ws.send(text);
      },
      buffered: () => ws.bufferedAmount,
      end: (reason) => ws.close(1000, reason),
    };
    const live = new LiveSocket(hub, ws, sink, (e) => app.log.error({ err: e }, 'live channel: message failed'));
    // Atmosphere's protocol negotiation: tracking id, heartbeat interval, heartbeat padding
    if (atmosphere) ws.send(`${randomUUID()}|${HEARTBEAT_MS}|X|`);
    let alive = true;
    ws.on('pong', () => (alive = true));
    const heartbeat = setInterval(() => {
      if (!alive) return ws.terminate();
      alive = false;
      ws.ping();
      if (atmosphere) sink.send('X');
    }, HEARTBEAT_MS);
    ws.on('message', (data, isBinary) => {
      alive = true;
      live.onMessage(isBinary ? '' : data.toString());
    });
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      clearInterval(heartbeat);
      sockets.delete(ws);
      live.close();
    });
  };
  app.server.on('upgrade', onUpgrade);
  // before the server closes: an upgraded socket would keep server.close() waiting
  app.addHook('preClose', async () => {
    app.server.off('upgrade', onUpgrade);
    hub.close();
    for (const ws of sockets) ws.terminate();
    wss.close();
  });
  return hub;
}
