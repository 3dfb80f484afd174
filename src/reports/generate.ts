/**
 * Generating one report, as a report worker runs it (workers/report.ts is its Piscina entry): the
 * report's row read through the thread's own connection, its plugin run over the store, `percent`
 * written as the plugin works through the trackers, and the body written gzip'd with the row marked
 * ready, all from this thread: the main thread only dispatches. A report deleted meanwhile is
 * dropped; a stop asked by the server (the shared `stop` flag) ends it between trackers.
 */
import type { MessagePort } from 'node:worker_threads';
import { gzipSync } from 'node:zlib';
import { formatDateTime } from '../core/time.ts';
import { offlineGeocoder, type GeocoderService } from '../geocoder/index.ts';
import type { DataStore } from '../store/contract.ts';
import { openStore, type Store } from '../store/index.ts';
import { Formatter } from './format.ts';
import type { LocaleInfo, ReportBody, TimeFilter } from './model.ts';
import { complete, gatherHelpers, helpWith, StoppedPart, takeTrackers, type PartEntry, type SplitTask } from './parts.ts';
import { PLUGINS, type PluginContext, type ReportPlugin, type ReportTracker } from './plugins/index.ts';
import type { PerTracker } from './plugins/types.ts';
import { timeWindows } from './time-filter.ts';

/** What report/tracker/generate stores with the report (`params`), also the list item's `parameters`. */
export interface StoredParams {
  geocoder: string;
  trackers: number[];
  employees?: number[];
  /** The plugin object as validated: plugin_id, show_seconds, hide_empty_tabs and its own members. */
  plugin: Record<string, unknown> & { plugin_id: number; show_seconds: boolean; hide_empty_tabs: boolean };
  time_filter: TimeFilter | null;
  locale_info: LocaleInfo;
}

/**
 * An address asked of the main thread's geocoder, and its answer. They cross in batches (arrays):
 * the asks a plugin makes in one synchronous run go in one message, the main thread answers a
 * slice at a time (src/reports/queue.ts).
 */
export interface AddressAsk {
  n: number;
  lat: number;
  lng: number;
  type: string;
  lang: string;
}
export interface AddressAnswer {
  n: number;
  address: string;
}

export interface ReportTask {
  dbFile: string;
  id: number;
  /**
   * Addresses come from the main thread's geocoder (its cache, its remote providers) over this port.
   * Absent: no addresses (coordinates are shown).
   */
  addresses?: MessagePort;
  /**
   * The geocoder types the main thread answers from the offline data alone: a report asking one of
   * them looks its addresses up in this thread (the data loaded once per thread), not over the port
   * (a month's trips ask 73,000: seconds of the event loop's time; bench/reports).
   */
  offlineTypes?: readonly string[];
  /** Shared with the queue: 1 when the server stops (the report is queued again). */
  stop?: Int32Array;
  /** Set when the report's trackers are shared among threads: this task's role (src/reports/parts.ts). */
  split?: SplitTask;
}

export type ReportOutcome = { kind: 'ready' } | { kind: 'gone' } | { kind: 'stopped' } | { kind: 'failed'; error: string };

const Stopped = StoppedPart;

/**
 * Answers kept by the thread's offline geocoder: none. A look-up (2-3 µs) costs less than keeping
 * its answer (a key and an LRU turn, ~12 µs), and a report asks each place once (the memo below).
 */
const OFFLINE_CACHE = 0;
/** The thread's offline geocoder, made on the first report that needs it and kept with the thread. */
let localGeocoder: GeocoderService | undefined;

/** The thread's connection, kept between reports. */
let cached: { dbFile: string; store: Store } | undefined;

function storeOf(dbFile: string): Store {
  if (cached?.dbFile !== dbFile) {
    cached?.store.close();
    cached = { dbFile, store: openStore(dbFile) };
  }
  return cached.store;
}

export async function runReport(task: ReportTask, now: () => number = Date.now): Promise<ReportOutcome> {
  const split = task.split;
  if (split?.role === 'helper') {
    let outcome: ReportOutcome = { kind: 'ready' };
    // The lead hears how the share ended and reports for the whole report.
    await helpWith(split, async () => {
      const job = await prepare(task);
      if (!('ctx' in job)) {
        outcome = job;
        return [];
      }
      return share(job, split.state);
    });
    task.addresses?.close();
    return outcome;
  }
  const job = await prepare(task);
  if (!('ctx' in job)) return job;
  const { row, p, plugin, ctx, store } = job;
  const tz = p.locale_info.time_zone;
  try {
    const body: ReportBody = {
      id: row.id,
      title: row.title,
      created: formatDateTime(row.created, tz),
      from: formatDateTime(row.from_time, tz),
      to: formatDateTime(row.to_time, tz),
      time_filter: p.time_filter,
      locale_info: p.locale_info,
      sheets: [],
    };
    let gz: Buffer;
    if (split?.role === 'lead' && plugin.perTracker) {
      const entries = [...(await share(job, split.state)), ...(await gatherHelpers(split, () => stopping(task)))].sort((x, y) => x.index - y.index);
      if (!complete(entries, p.trackers.length)) throw new Error('a report thread sharing the trackers ended without its part');
      gz = mergedBody(ctx, plugin.perTracker, p.plugin, body, entries);
    } else {
      body.sheets = await plugin.generate(ctx, p.plugin as never);
      gz = gzipSync(JSON.stringify(body), BODY_GZIP);
    }
    const done = await store.data.reports.finish(row.id, gz, now());
    return done ? { kind: 'ready' } : { kind: 'gone' };
  } catch (e) {
    if (e instanceof Stopped) return { kind: 'stopped' };
    return { kind: 'failed', error: (e as Error).message || String(e) };
  } finally {
    task.addresses?.close();
    if (split?.role === 'lead') for (const port of split.helpers) port.close();
  }
}

const stopping = (task: ReportTask) => task.stop !== undefined && Atomics.load(task.stop, 0) === 1;

interface Job {
  store: Store;
  row: NonNullable<ReturnType<Store['reports']['byId']>>;
  p: StoredParams;
  plugin: ReportPlugin;
  ctx: PluginContext;
}

/** The trackers this thread takes of a shared report, each part with its sheet as JSON. */
async function share(job: Job, state: Int32Array): Promise<PartEntry[]> {
  const { ctx, p, plugin, store } = job;
  const parts = plugin.perTracker!;
  const entries: PartEntry[] = [];
  const count = p.trackers.length;
  await takeTrackers(
    state,
    count,
    async (index) => {
      const tracker = await trackerOf(store.data, p.trackers[index]);
      if (!tracker) {
        entries.push({ index, sheet: null, totals: null, gone: true });
        return;
      }
      const part = await parts.tracker(ctx, tracker, p.plugin);
      entries.push({ index, sheet: part.sheet ? gzipSync(JSON.stringify(part.sheet), BODY_GZIP) : null, totals: part.totals });
    },
    (finished) => ctx.progress(finished / count),
  );
  return entries;
}

/** Bodies are gzip'd at level 1: written once, read a few times; speed matters more than size. */
const BODY_GZIP = { level: 1 };
const GZ_COMMA = gzipSync(',', BODY_GZIP);
const GZ_END = gzipSync(']}', BODY_GZIP);

/**
 * The gzip'd body from the parts in tracker order: gzip members one after another (gunzip reads
 * them as one stream), which unzip to what JSON.stringify gives for the body with the summary and
 * the trackers' sheets (`sheets` is its last member). Each sheet was serialized and gzip'd by the
 * thread that made it: the lead neither parses a helper's sheets nor compresses the whole body
 * alone after every part is done.
 */
function mergedBody(ctx: PluginContext, parts: PerTracker<unknown, unknown>, params: unknown, body: ReportBody, entries: PartEntry[]): Buffer {
  const present = entries.filter((e) => !e.gone);
  const head = JSON.stringify({ ...body, sheets: [] }).slice(0, -2); // up to "sheets":[
  const summary = present.length > 1 ? JSON.stringify(parts.summary(ctx, present.map((e) => e.totals), params)) : '';
  const out: Uint8Array[] = [gzipSync(head + summary, BODY_GZIP)];
  let first = !summary;
  for (const e of present) {
    if (e.sheet === null) continue;
    if (!first) out.push(GZ_COMMA);
    out.push(e.sheet);
    first = false;
  }
  out.push(GZ_END);
  return Buffer.concat(out);
}

async function trackerOf(data: DataStore, id: number): Promise<ReportTracker | undefined> {
  const t = await data.trackers.getAny(id);
  return t && !t.deleted ? { id, label: t.label, sourceId: t.source_id } : undefined;
}

/** The report's row, parameters, plugin and the context its plugin runs in; an outcome when there is nothing to run. */
async function prepare(task: ReportTask): Promise<Job | ReportOutcome> {
  const store = storeOf(task.dbFile);
  const data = store.data;
  const row = await data.reports.byId(task.id);
  if (!row || row.state !== 'running') return { kind: 'gone' };
  const p = JSON.parse(row.params) as StoredParams;
  const plugin = PLUGINS.get(row.plugin_id);
  if (!plugin) return { kind: 'failed', error: `report plugin ${row.plugin_id} not found` };
  const tz = p.locale_info.time_zone;
  const trackers: ReportTracker[] = [];
  for (const id of p.trackers) {
    const t = await trackerOf(data, id);
    if (t) trackers.push(t);
  }
  let shown = 0;
  const local = task.offlineTypes?.includes(p.geocoder) ? (localGeocoder ??= offlineGeocoder(OFFLINE_CACHE)) : undefined;
  const memo = new Map<string, Promise<string>>();
  const waiting = new Map<number, (address: string) => void>();
  task.addresses?.on('message', (answers: AddressAnswer[]) => {
    for (const a of answers) {
      waiting.get(a.n)?.(a.address);
      waiting.delete(a.n);
    }
  });
  // Asks wait here until the plugin's synchronous run ends, then go in one message: a month's
  // trips ask tens of thousands, and a message each costs both threads more than the look-up.
  const outbox: AddressAsk[] = [];
  const flush = () => task.addresses?.postMessage(outbox.splice(0));
  const ctx: PluginContext = {
    data,
    store,
    ownerId: row.owner_id,
    trackers,
    from: row.from_time,
    to: row.to_time,
    windows: p.time_filter ? timeWindows(row.from_time, row.to_time, p.time_filter, tz) : null,
    fmt: new Formatter(p.locale_info, p.plugin.show_seconds),
    locale: p.locale_info.locale,
    address(lat, lng) {
      const key = `${lat.toFixed(5)},${lng.toFixed(5)}`;
      let a = memo.get(key);
      if (!a && local) {
        // The same service rules as the main thread's for an offline type, answered here.
        let address = '';
        try {
          address = local.reverseOffline(lat, lng, { lang: p.locale_info.locale })?.address ?? '';
        } catch {
          // no address, as when the main thread's geocoder fails
        }
        a = Promise.resolve(address);
        memo.set(key, a);
      }
      const port = task.addresses;
      if (!a && !port) return Promise.resolve('');
      if (!a) {
        const n = memo.size;
        a = new Promise<string>((resolve) => waiting.set(n, resolve));
        if (!outbox.length) queueMicrotask(flush);
        outbox.push({ n, lat, lng, type: p.geocoder, lang: p.locale_info.locale });
        memo.set(key, a);
      }
      return a;
    },
    async progress(done) {
      if (task.stop && Atomics.load(task.stop, 0) === 1) throw new Stopped();
      // 100 only once the body is written: a client polling status then retrieves at once.
      const pct = Math.min(99, Math.floor(done * 100));
      if (pct > shown) {
        shown = pct;
        await data.reports.setPercent(task.id, pct);
      }
    },
  };
  return { store, row, p, plugin, ctx };
}
