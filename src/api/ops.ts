/**
 * What an operator's tools ask the server (docs/operations.md): `/metrics` in the Prometheus text
 * format, `/health` (the process answers) and `/ready` (the store is open, every listener is up, not
 * stopping). One registry per server, never prom-client's global one, so two servers in one process
 * keep their own figures.
 *
 * The hot paths never touch prom-client (its calls build label hashes): the gateway bumps plain
 * numbers (`DeviceCounters`), and a scrape turns them into counters. What the database knows
 * (telemetry backlog and lag, forwarding backlogs) and the database size are read on scrape too.
 * src/main.ts wires each source in as its part starts (`attach`).
 */
import { statSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Store } from '../store/index.ts';
import { answerCodeOf } from './errors.ts';
import { MOUNTS } from './kernel.ts';

/** One protocol's device traffic as the gateway counts it (totals since start, plus open connections). */
export interface DeviceCounters {
  connections: number;
  frames: number;
  fixes: number;
  acknowledged: number;
  framesAcknowledged: number;
  decodeErrors: number;
}

/** What the wiring hands in once each part runs. */
export interface OpsSources {
  /** Device traffic per protocol name (the gateway's). */
  devices: ReadonlyMap<string, DeviceCounters>;
  /** Submits waiting for the writer's commit. */
  writerQueue: () => number;
  /** Gateway parts not taking data: listeners as `protocol/transport`, `writer` (empty: all up). */
  gatewayDown: () => string[];
  /** Reports waiting or being built (the report queue wires it in). */
  reportQueue: () => number;
}

export interface OpsOptions {
  config: Readonly<Config>;
  store: Store;
  /** The clock (ms UTC). */
  now: () => number;
  /** Also show the process's CPU, memory, event-loop and GC figures (default true). */
  processMetrics?: boolean;
}

const WRITER_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const API_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Answers of paths that are not a call (scanners, typos) share one label value. */
const UNKNOWN_CALL = '(unknown)';

export class Ops {
  readonly registry = new Registry();
  private sources: Partial<OpsSources> = {};
  /** Set when a graceful stop begins: /ready answers 503 from then on. */
  private stopping = false;
  private readonly commitLatency: Histogram;
  private readonly apiRequests: Counter<'call' | 'code' | 'error'>;
  private readonly apiLatency: Histogram<'call'>;

  constructor(private opts: OpsOptions) {
    const registers = [this.registry];
    const devices = () => this.sources.devices ?? new Map<string, DeviceCounters>();
    new Gauge({
      name: 'fsm_device_connections',
      help: 'Open TCP device connections, by protocol.',
      labelNames: ['protocol'],
      registers,
      collect() {
        for (const [protocol, c] of devices()) this.set({ protocol }, c.connections);
      },
    });
    deviceCounter(registers, 'fsm_device_frames_received_total', 'Frames taken from devices for decoding (TCP frames, UDP datagrams, HTTP requests), by protocol.', devices, (c) => c.frames);
    deviceCounter(registers, 'fsm_device_frames_acknowledged_total', 'Of those frames, the ones answered after their records were committed (frames the protocol does not answer: once committed), by protocol.', devices, (c) => c.framesAcknowledged);
    deviceCounter(registers, 'fsm_device_fixes_received_total', 'Records (fixes and status records) decoded from registered devices and handed to the writer, by protocol.', devices, (c) => c.fixes);
    deviceCounter(registers, 'fsm_device_fixes_acknowledged_total', 'Records committed to the store whose acknowledgement went out to the device, by protocol.', devices, (c) => c.acknowledged);
    deviceCounter(registers, 'fsm_device_decode_errors_total', 'Frames that could not be framed or decoded (the connection is closed, the datagram or request refused), by protocol.', devices, (c) => c.decodeErrors);
    this.commitLatency = new Histogram({
      name: 'fsm_writer_commit_latency_seconds',
      help: 'Per group commit of the writer thread: how long its oldest record waited from submit to commit.',
      buckets: WRITER_BUCKETS,
      registers,
    });
    const sources = this.sources;
    new Gauge({
      name: 'fsm_writer_queue_depth',
      help: 'Submits (a frame\'s records each) waiting for the writer\'s commit.',
      registers,
      collect() {
        this.set(sources.writerQueue?.() ?? 0);
      },
    });
    const { store, now } = opts;
    let telemetry: { fixes: number; oldestReceived: number | null } | undefined;
    // Both telemetry gauges come from one read per scrape (the backlog gauge is collected first).
    new Gauge({
      name: 'fsm_telemetry_backlog',
      help: 'Fixes committed and not yet processed by the telemetry core (counted up to 100000).',
      registers,
      async collect() {
        telemetry = await store.data.ops.telemetryBacklog();
        this.set(telemetry.fixes);
      },
    });
    new Gauge({
      name: 'fsm_telemetry_lag_seconds',
      help: 'Age of the oldest fix waiting for the telemetry core (0 when none waits).',
      registers,
      async collect() {
        const t = telemetry ?? (await store.data.ops.telemetryBacklog());
        telemetry = undefined;
        this.set(t.oldestReceived === null ? 0 : Math.max(0, (now() - t.oldestReceived) / 1000));
      },
    });
    this.apiRequests = new Counter({
      name: 'fsm_api_requests_total',
      help: 'API requests answered, by call, HTTP status (code) and the spec\'s error code (error; 0: success).',
      labelNames: ['call', 'code', 'error'],
      registers,
    });
    this.apiLatency = new Histogram({
      name: 'fsm_api_request_duration_seconds',
      help: 'Time from a request\'s arrival to its answer, by call.',
      labelNames: ['call'],
      buckets: API_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'fsm_report_queue',
      help: 'Reports waiting or being built.',
      registers,
      collect() {
        this.set(sources.reportQueue?.() ?? 0);
      },
    });
    new Gauge({
      name: 'fsm_forwarding_backlog',
      help: 'Fixes waiting for a retranslator\'s receiver to acknowledge them, by retranslator id (counted up to 100000).',
      labelNames: ['retranslator'],
      registers,
      async collect() {
        const backlogs = await store.data.ops.forwardingBacklogs();
        this.reset(); // a deleted retranslator disappears
        for (const r of backlogs) this.set({ retranslator: String(r.id) }, r.backlog);
      },
    });
    const files = [opts.config.dbFile, `${opts.config.dbFile}-wal`];
    new Gauge({
      name: 'fsm_database_size_bytes',
      help: 'Size of the SQLite database on disk: the database file and its write-ahead log.',
      registers,
      collect() {
        let bytes = 0;
        for (const f of files) bytes += statSync(f, { throwIfNoEntry: false })?.size ?? 0;
        this.set(bytes);
      },
    });
  }

  /** The exposition: this server's figures, then the process's (unless `processMetrics` is false). */
  async metrics(): Promise<string> {
    const own = await this.registry.metrics();
    return this.opts.processMetrics === false ? own : own + (await processRegistry().metrics());
  }

  /** Wire in what a part offers once it runs (the gateway after its listeners are up, the report queue). */
  attach(sources: Partial<OpsSources>): void {
    Object.assign(this.sources, sources);
  }

  /** The writer's `onCommitLatency`. */
  readonly observeCommit = (seconds: number): void => this.commitLatency.observe(seconds);

  /** A graceful stop began: /ready answers 503 so load balancers send nothing more. */
  stop(): void {
    this.stopping = true;
  }

  /** /ready's verdict: every part with `ok` or why it is not. */
  async readiness(): Promise<{ ready: boolean; body: { status: 'ready' | 'not ready' | 'stopping'; parts: Record<string, string> } }> {
    const parts: Record<string, string> = { store: 'ok', listeners: 'ok', writer: 'ok' };
    try {
      await this.opts.store.data.authVersions.read(); // one indexed read: the database is open and answers
    } catch (e) {
      parts.store = `unavailable: ${(e as Error).message}`;
    }
    const down = this.sources.gatewayDown;
    if (!down) parts.listeners = parts.writer = 'starting';
    else {
      const names = down();
      const listeners = names.filter((n) => n !== 'writer');
      if (listeners.length) parts.listeners = `not listening: ${listeners.join(', ')}`;
      if (names.includes('writer')) parts.writer = 'cannot commit';
    }
    const allOk = Object.values(parts).every((v) => v === 'ok');
    const status = this.stopping ? 'stopping' : allOk ? 'ready' : 'not ready';
    return { ready: status === 'ready', body: { status, parts } };
  }

  /** Counts a finished API request (an onResponse hook). */
  private onResponse(request: FastifyRequest, reply: FastifyReply): void {
    const url = request.routeOptions.url;
    let call = UNKNOWN_CALL;
    if (url !== undefined) {
      const mount = MOUNTS.find((m) => url.startsWith(m));
      if (!mount) return; // /docs, /metrics, /health, /ready: not API calls
      call = url.slice(mount.length);
    }
    this.apiRequests.inc({ call, code: String(reply.statusCode), error: String(answerCodeOf(request)) });
    this.apiLatency.observe({ call }, reply.elapsedTime / 1000);
  }

  /**
   * Routes outside the API's mounts: /health, /ready and (FSM_METRICS) /metrics, and the hook that
   * counts every call. Called by buildApi before the calls are mounted, so the hook covers them all.
   */
  mount(app: FastifyInstance): void {
    app.addHook('onResponse', async (request, reply) => this.onResponse(request, reply));
    app.get('/health', (_req, reply) => reply.code(200).send({ status: 'ok' }));
    app.get('/ready', async (_req, reply) => {
      const r = await this.readiness();
      return reply.code(r.ready ? 200 : 503).send(r.body);
    });
    const { enabled, token } = this.opts.config.metrics;
    if (!enabled) return;
    const expected = token ? Buffer.from(`Bearer ${token}`) : undefined;
    app.get('/metrics', async (request, reply) => {
      if (expected) {
        const given = Buffer.from(request.headers.authorization ?? '');
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
          return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').type('text/plain; charset=utf-8').send('a bearer token is required (FSM_METRICS_TOKEN)\n');
        }
      }
      const text = await this.metrics();
      return reply.code(200).type(this.registry.contentType).send(text);
    });
  }
}

/**
 * The process's CPU, memory, event-loop and GC figures. They belong to the process, not to a server,
 * and measuring them starts a timer and a GC observer that never stop: made once per process, on
 * the first scrape, and shown by every server's /metrics.
 */
let processFigures: Registry | undefined;
function processRegistry(): Registry {
  if (!processFigures) {
    processFigures = new Registry();
    collectDefaultMetrics({ register: processFigures });
  }
  return processFigures;
}

/** A counter whose value is a total the gateway keeps: each scrape adds what came since the last. */
function deviceCounter(registers: Registry[], name: string, help: string, devices: () => ReadonlyMap<string, DeviceCounters>, value: (c: DeviceCounters) => number): void {
  const reported = new Map<string, number>();
  new Counter({
    name,
    help,
    labelNames: ['protocol'],
    registers,
    collect() {
      for (const [protocol, c] of devices()) {
        const v = value(c);
        const last = reported.get(protocol) ?? 0;
        this.inc({ protocol }, Math.max(0, v - last)); // 0 shows the protocol's series from the start
        reported.set(protocol, Math.max(v, last));
      }
    },
  });
}
