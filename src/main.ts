/**
 * Starts everything: configuration, the store (migrations), the first master user on an empty
 * data directory, the HTTP API and the device gateway.
 */
import type { FastifyInstance } from 'fastify';
import { ensureFirstMaster } from './accounts/accounts.ts';
import { buildApi } from './api/server.ts';
import { LiveHub } from './api/live-hub.ts';
import { Ops } from './api/ops.ts';
import { writeFirstPassword } from './auth/first-password.ts';
import type { Services } from './api/kernel.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { ChatDelivery } from './gateway/chat.ts';
import { portError, PortUnavailable, startGateway, type Gateway } from './gateway/index.ts';
import { connectionLimits, parseOpenFileLimit } from './gateway/limits.ts';
import { createGeocoder, offlineTypes } from './geocoder/index.ts';
import { UploadPool } from './imports/upload-pool.ts';
import { EarlyXlsx } from './reports/render/early.ts';
import { RenderPool } from './reports/render/pool.ts';
import { createMailer } from './mail/mailer.ts';
import { TelemetryScheduler } from './telemetry/scheduler.ts';
import { TaskJudge } from './telemetry/task-judge.ts';
import { ConnectionWatcher } from './events/connection.ts';
import { openStore } from './store/index.ts';
import { discardUnfinishedUploads } from './imports/staging.ts';
import { BlobStore } from './files/blobs.ts';
import { TaskScheduleRunner } from './tasks/schedule-runner.ts';
import { FileSweeper } from './files/sweep.ts';
import { ForwardingService, HAND_OFF_ROWS } from './forwarding/service.ts';
import { boundedChannel } from './core/bounded-channel.ts';
import { ReportQueue } from './reports/queue.ts';
import { RetentionService } from './retention/retention.ts';
import { CompactionService } from './retention/compaction.ts';
import { ReportScheduleRunner } from './reports/schedule-runner.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How many descriptors the process holds (Linux /proc); 0 where that cannot be read. */
function descriptorsInUse(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

/** The process's soft open-file limit (Linux /proc); undefined where it cannot be read. */
export function openFileLimit(): number | undefined {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

/** What a start that failed part-way had opened, closed again (the process then exits cleanly). */
async function abandon(api: { close(): Promise<unknown> }, uploads: UploadPool, reportFiles: RenderPool, store: { close(): void }): Promise<void> {
  await api.close();
  await uploads.close();
  await reportFiles.close();
  store.close();
}

export interface Running {
  config: Readonly<Config>;
  apiUrl: string;
  /** The HTTP API itself: tests call it in process (`api.inject`) where the socket is not the point. */
  api: FastifyInstance;
  /** /metrics, /health, /ready; `ops.attach({ reportQueue })` wires the report queue's gauge. */
  ops: Ops;
  gateway: Gateway;
  telemetry: TelemetryScheduler;
  forwarding: ForwardingService;
  reports: ReportQueue;
  retention: RetentionService;
  compaction: CompactionService;
  reportSchedules: ReportScheduleRunner;
  close(): Promise<void>;
}

export async function start(config: Readonly<Config>, opts: { logger?: boolean; print?: (s: string) => void } = {}): Promise<Running> {
  const print = opts.print ?? ((s: string) => console.log(s));
  const store = openStore(config.dbFile);
  // Rows of uploads a crash cut short were never shown: delete them before anyone can call.
  await discardUnfinishedUploads(store);
  const chat = new ChatDelivery(store.chat);
  // File uploads are unzipped and parsed in their own worker, off the event loop (src/imports).
  const uploads = new UploadPool();
  // Report files (xlsx, pdf, csv) are rendered in their own worker too (src/reports/render).
  const reportFiles = new RenderPool();
  const services = { config, store, mailer: createMailer(config.mail), now: Date.now, chat, uploads, reportFiles, earlyXlsx: new EarlyXlsx(reportFiles), geocoder: createGeocoder(config.geocoder, { cache: store.geocache, warn: (m) => api.log.warn(m) }) };
  const first = await ensureFirstMaster(services);
  if (first) {
    const file = writeFirstPassword(config.dataDir, first);
    print(`Created the master user. Login: ${first.login}  Password: in ${file} (readable only by this user; delete it once kept)`);
  }
  // /metrics, /health, /ready on the API port (docs/operations.md); the gateway is wired in below.
  const ops = new Ops({ config, store, now: Date.now });
  // The live channel (docs/live.md): the gateway's writer tells it which devices have new data.
  const live = new LiveHub(services);
  const api = await buildApi(services, { logger: opts.logger, ops, live });
  // Device listeners open before the API does: a port that cannot be opened stops the start with one
  // line naming it and its setting (PortUnavailable), and nothing is left running.
  // Device connections must leave descriptors for the API and the database (docs/gateway.md): a
  // first estimate now, made exact below once every listener, database and thread is open.
  let gateway: Gateway;
  try {
    gateway = await startGateway(
      config,
      store,
      { ...chat.hooks(), log: (level, msg, data) => api.log[level](data ?? {}, msg) },
      { limits: connectionLimits(config.gateway, openFileLimit(), descriptorsInUse()).limits, now: Date.now },
    );
  } catch (e) {
    await abandon(api, uploads, reportFiles, store);
    throw e;
  }
  let address: string;
  try {
    address = await api.listen({ host: config.http.host, port: config.http.port });
  } catch (e) {
    await gateway.close();
    await abandon(api, uploads, reportFiles, store);
    throw portError(e, 'API', config.http.host, config.http.port, 'FSM_HTTP_PORT');
  }
  const port = (api.server.address() as { port: number }).port;
  print(`API listening on ${address} (docs at http://localhost:${port}/docs)`);
  // The telemetry core: processes what the gateway committed, in a worker pool (src/telemetry).
  // Outcomes after processing are judged in the workers; this timer covers time-based transitions.
  const judge = new TaskJudge(store.telemetry, store.trackers, Date.now, { log: (msg, error) => api.log.error({ err: error }, msg) });
  const telemetry = new TelemetryScheduler(store, {
    dbFile: config.dbFile,
    threads: config.telemetryThreads,
    nice: config.telemetryNice,
    log: (msg, data) => api.log.error(data ?? {}, msg),
  });
  // Retranslators: the forwarding engine in its own thread (src/forwarding, docs/retranslators.md).
  // The writer hands each commit's forwarding log entries to it in memory (bounded: what the engine is
  // too far behind to take, it reads from the store).
  const handOff = config.forwarding.handOff ? boundedChannel(HAND_OFF_ROWS) : null;
  const forwarding = new ForwardingService(config.dbFile, { ...config.forwarding, refreshMs: 1000, statusMs: 250 }, (m) => api.log.error(m), handOff?.receiver);
  if (handOff) gateway.core.writer.handOff(handOff.sender);
  await forwarding.ready;
  (services as Services).forwarding = forwarding;
  // The field app's positions (app/position/send) go through the same writer as every device's.
  (services as Services).fixes = { store: (sourceId, fixes) => gateway.core.writer.submit(sourceId, fixes.map((f) => ({ ...f, valid: true, attributes: {} })), Date.now()) };
  gateway.core.writer.onCommitted = () => telemetry.soon();
  gateway.core.writer.onCommitLatency = ops.observeCommit;
  gateway.core.writer.onStored = live.changed;
  ops.attach({ devices: gateway.core.byProtocol, writerQueue: () => gateway.core.writer.pending, gatewayDown: gateway.down });
  // Long track lines are simplified in the pool, off the event loop.
  (services as Services).simplify = (lat, lng, limit) => telemetry.simplify(lat, lng, limit);
  telemetry.start();
  judge.start();
  // Tracker reports: generated in their own small worker pool (src/reports/queue.ts, docs/reports.md).
  const reports = new ReportQueue(store, { dbFile: config.dbFile, threads: config.reports.threads, maxAttempts: config.reports.attempts, geocoder: services.geocoder, offlineTypes: offlineTypes(services.geocoder), log: (msg, data) => api.log.error(data ?? {}, msg) });
  (services as Services).reports = reports;
  await reports.start();
  ops.attach({ reportQueue: () => store.reports.pendingCount() });
  const connections = new ConnectionWatcher(store, config.connection, Date.now, (msg, data) => api.log.error(data ?? {}, msg));
  connections.start();
  // Expired uploads, unused avatars and unreferenced blobs go (docs/files.md).
  const fileSweeper = new FileSweeper({ store, blobs: new BlobStore(config.dataDir), now: Date.now }, config.files.sweepSeconds, (msg, data) => api.log.error(data ?? {}, msg));
  fileSweeper.start();
  // Task schedules create their tasks ahead of time (docs/schedules.md).
  const taskSchedules = new TaskScheduleRunner(services, (msg, error) => api.log.error({ err: error }, msg));
  taskSchedules.start();
  // Data older than each tracker's storage period goes, in small steps (docs/operations.md#retention).
  const retention = new RetentionService({ store, now: Date.now, mediaDir: join(config.dataDir, 'media') }, config.retention, (level, msg, data) => api.log[level](data ?? {}, msg));
  retention.start();
  // Old processed fixes move into compact chunks, in small steps (docs/storage.md).
  const compaction = new CompactionService({ store, now: Date.now }, config.compaction, (level, msg, data) => api.log[level](data ?? {}, msg));
  compaction.start();
  // Report schedules queue their reports and mail them once ready, rendered by the render pool (docs/schedules.md).
  const reportSchedules = new ReportScheduleRunner({ ...services, reports }, (msg, error) => api.log.error({ err: error }, msg));
  reportSchedules.start();
  const { limits, notes } = connectionLimits(config.gateway, openFileLimit(), descriptorsInUse());
  Object.assign(gateway.core.limits, limits);
  notes.forEach(print);
  const listening = Object.entries(gateway.ports).map(([name, p]) => `${name} ${Object.entries(p).map(([t, n]) => `${t}:${n}`).join('/')}`);
  if (listening.length) print(`Gateway listening: ${listening.join(', ')}`);
  return {
    config,
    apiUrl: `http://127.0.0.1:${port}`,
    api,
    ops,
    gateway,
    telemetry,
    forwarding,
    reports,
    retention,
    compaction,
    reportSchedules,
    async close() {
      // Stop taking calls and device connections at once; in-flight calls and frames finish
      // (every frame already read is committed and acknowledged before its socket closes).
      // One time budget for the whole stop (FSM_SHUTDOWN_SECONDS).
      const until = Date.now() + config.gateway.shutdownSeconds * 1000;
      ops.stop(); // /ready answers 503 on connections still open
      const apiClosed = api.close();
      await gateway.close();
      await forwarding.close();
      await judge.stop();
      connections.stop();
      await apiClosed;
      await fileSweeper.stop();
      await taskSchedules.stop();
      await reportSchedules.stop();
      await reports.close(Math.max(1000, until - Date.now()));
      await retention.stop();
      await compaction.stop();
      await telemetry.close(Math.max(1000, until - Date.now()));
      await uploads.close();
      await reportFiles.close();
      store.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`configuration error: ${e.message}`);
      process.exit(2);
    }
    throw e;
  }
  // Signals are handled from the first moment: one arriving during start-up stops once started.
  let running: Running | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    if (!running) return; // start() is still running: it stops right after
    await running.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    running = await start(config);
  } catch (e) {
    // A port in use is the operator's to fix: one line, no stack trace (docs/gateway.md).
    if (e instanceof PortUnavailable) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
  if (stopping) {
    await running.close();
    process.exit(0);
  }
}
