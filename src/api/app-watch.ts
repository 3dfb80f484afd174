/**
 * `app/task/watch`: server-sent events that push the changes of the app's tasks (docs/field-app.md).
 * One hub per API: while watches are open it looks at the feed head and the token counter every
 * FSM_APP_WATCH_POLL_MS (two single-row reads, whoever wrote: API, telemetry workers, admin
 * command), pushes each watch the page of changes after its cursor, closes watches whose token
 * was revoked or whose tracker was blocked or deleted, and writes a heartbeat comment every
 * FSM_APP_HEARTBEAT_SECONDS so proxies and phones keep the connection open.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { FEED_KEEP_MS, hasChanges, taskChanges } from '../fieldapp/feed.ts';
import { tokenValid, type AppDevice } from '../fieldapp/activation.ts';
import type { Services } from './kernel.ts';

/** Open watches per tracker: a new one beyond this closes the oldest (a phone that changed networks leaves one behind). */
export const MAX_WATCHES_PER_TRACKER = 3;
/** A client that does not read: its watch is closed once this much waits unsent. */
const MAX_BUFFERED = 1024 * 1024;
/** Feed journal pruning runs at most this often. */
const PRUNE_EVERY_MS = 3_600_000;

interface Watch {
  trackerId: number;
  tokenId: number;
  cursor: number;
  tz: string;
  view: PageView;
  res: ServerResponse;
  heartbeat: NodeJS.Timeout;
}

/** Shapes one page of the feed as the app sees it (the same members as app/task/list). */
export type PageView = (page: ReturnType<typeof taskChanges>, tz: string) => Record<string, unknown>;

export class TaskWatchHub {
  private byTracker = new Map<number, Watch[]>();
  private timer: NodeJS.Timeout | undefined;
  private seenHead = -1;
  private seenTokens = -1;
  private seenTrackers = -1;
  private lastPrune = 0;

  constructor(private services: Services) {}

  /** Open watches (all trackers). */
  get size(): number {
    let n = 0;
    for (const list of this.byTracker.values()) n += list.length;
    return n;
  }

  /** Takes the connection over and starts the stream with the changes after `cursor` (the whole list without one). */
  open(reply: FastifyReply, device: AppDevice, cursor: number | undefined, tz: string, view: PageView): void {
    const { store, now, config } = this.services;
    // Computed before the connection is taken: a bad cursor is still an ordinary error answer.
    const first = taskChanges(store, device.tracker.id, cursor, now());
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    const list = this.byTracker.get(device.tracker.id) ?? [];
    this.byTracker.set(device.tracker.id, list);
    while (list.length >= MAX_WATCHES_PER_TRACKER) this.end(list[0], 'replaced', { reason: `at most ${MAX_WATCHES_PER_TRACKER} watches per tracker: a newer one replaced this` });
    const heartbeat = setInterval(() => this.write(w, ': heartbeat\n\n'), config.app.heartbeatSeconds * 1000);
    const w: Watch = { trackerId: device.tracker.id, tokenId: device.token.id, cursor: first.cursor, tz, view, res, heartbeat };
    list.push(w);
    res.on('close', () => this.remove(w));
    this.write(w, 'retry: 5000\n\n');
    this.push(w, first);
    this.timer ??= setInterval(() => this.tick(), config.app.watchPollMs);
  }

  /** Ends every watch (the server is closing). */
  close(): void {
    for (const list of [...this.byTracker.values()]) for (const w of [...list]) this.end(w, 'closing', { reason: 'the server is shutting down' });
    this.stop();
  }

  /** Prunes the feed journal when it was last pruned more than an hour ago (also called by app/task/list). */
  maybePrune(): void {
    const t = this.services.now();
    if (t - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = t;
    this.services.store.fieldApp.pruneFeed(t - FEED_KEEP_MS);
    this.services.store.fieldApp.pruneRequests(t - FEED_KEEP_MS);
  }

  private tick(): void {
    const { store } = this.services;
    try {
      const tokens = store.fieldApp.tokensVersion();
      const trackers = store.trackers.sourcesVersion();
      if (tokens !== this.seenTokens || trackers !== this.seenTrackers) {
        this.seenTokens = tokens;
        this.seenTrackers = trackers;
        for (const list of [...this.byTracker.values()]) {
          for (const w of [...list]) if (!tokenValid(store, w.tokenId, w.trackerId)) this.end(w, 'revoked', { reason: 'the device token was revoked or the tracker blocked or deleted' });
        }
      }
      const head = store.fieldApp.feedHead();
      if (head !== this.seenHead) {
        this.seenHead = head;
        for (const list of [...this.byTracker.values()]) for (const w of [...list]) this.advance(w, head);
      }
      this.maybePrune();
    } catch {
      // A busy database now and then: the next tick tries again.
    }
  }

  /** Pushes the watch what changed after its cursor, page by page. */
  private advance(w: Watch, head: number): void {
    if (w.cursor >= head) return;
    const { store, now } = this.services;
    if (!hasChanges(store, w.trackerId, w.cursor)) {
      w.cursor = head;
      return;
    }
    for (let more = true; more && this.isOpen(w); ) {
      const page = taskChanges(store, w.trackerId, w.cursor, now());
      this.push(w, page);
      more = page.more;
    }
  }

  private push(w: Watch, page: ReturnType<typeof taskChanges>): void {
    w.cursor = page.cursor;
    this.write(w, `id: ${page.cursor}\nevent: tasks\ndata: ${JSON.stringify(w.view(page, w.tz))}\n\n`);
  }

  private write(w: Watch, text: string): void {
    if (!this.isOpen(w)) return;
    w.res.write(text);
    if (w.res.writableLength > MAX_BUFFERED) this.end(w, null);
  }

  private isOpen(w: Watch): boolean {
    return !w.res.writableEnded && !w.res.destroyed;
  }

  /** Ends a watch, telling the app why (`event: <name>`) unless it stopped reading. */
  private end(w: Watch, event: string | null, data: Record<string, unknown> = {}): void {
    if (event && this.isOpen(w)) w.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    this.remove(w);
    if (event) w.res.end();
    else w.res.destroy();
  }

  private remove(w: Watch): void {
    clearInterval(w.heartbeat);
    const list = this.byTracker.get(w.trackerId);
    const i = list?.indexOf(w) ?? -1;
    if (i >= 0) list!.splice(i, 1);
    if (list && !list.length) this.byTracker.delete(w.trackerId);
    if (!this.byTracker.size) this.stop();
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.seenHead = -1;
  }
}

const hubs = new WeakMap<Services, TaskWatchHub>();

/** Creates the API's hub and ends its watches when the server closes (src/api/server.ts calls it once). */
export function attachTaskWatch(app: FastifyInstance, services: Services): TaskWatchHub {
  const hub = new TaskWatchHub(services);
  hubs.set(services, hub);
  app.addHook('preClose', (done) => {
    hub.close();
    done();
  });
  return hub;
}

/** The hub of the API these services belong to. */
export function watchHub(services: Services): TaskWatchHub | undefined {
  return hubs.get(services);
}
