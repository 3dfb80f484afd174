/**
 * The ops endpoints on their own (src/api/ops.ts) over real HTTP, on a real SQLite file: /ready's
 * parts while starting, with a listener down, with the writer gone, stopping and with the store
 * closed; FSM_METRICS off and FSM_METRICS_TOKEN; two servers in one process keeping their own
 * figures; the telemetry backlog and lag and the forwarding backlog read from the database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { Ops } from '../../src/api/ops.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { BACKLOG_CAP } from '../../src/store/ops.ts';
import { openSql, type DB } from '../helpers/sql.ts';
import { parseExposition, valueOf } from './exposition.ts';

const dir = mkdtempSync(join(tmpdir(), 'fsm-ops-'));
const config = loadConfig({ FSM_DATA_DIR: dir });
let store: Store;
let sql: DB;
const apps: FastifyInstance[] = [];
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);

beforeAll(async () => {
  store = openStore(config.dbFile);
  sql = openSql(config.dbFile);
});

afterAll(async () => {
  for (const a of apps) await a.close();
  sql.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A bare HTTP server with only the ops routes, listening on an ephemeral port. */
async function serve(ops: Ops): Promise<string> {
  const app = Fastify();
  apps.push(app);
  ops.mount(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as unknown, type: res.headers.get('content-type') };
}

describe('/ready', () => {
  it('is 503 while starting, names a listener that is down or a writer that cannot commit, 200 when all are up, 503 stopping', async () => {
    const ops = new Ops({ config, store, now: () => NOW, processMetrics: false });
    const url = await serve(ops);
    let r = await get(`${url}/ready`);
    expect(r.status).toBe(503);
    expect(r.json()).toEqual({ status: 'not ready', parts: { store: 'ok', listeners: 'starting', writer: 'starting' } });

    let down = ['gt06/tcp', 'gt06/udp'];
    ops.attach({ gatewayDown: () => down });
    r = await get(`${url}/ready`);
    expect(r.status).toBe(503);
    expect(r.json()).toEqual({ status: 'not ready', parts: { store: 'ok', listeners: 'not listening: gt06/tcp, gt06/udp', writer: 'ok' } });

    down = ['writer'];
    r = await get(`${url}/ready`);
    expect(r.status).toBe(503);
    expect(r.json()).toEqual({ status: 'not ready', parts: { store: 'ok', listeners: 'ok', writer: 'cannot commit' } });

    down = [];
    r = await get(`${url}/ready`);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ status: 'ready', parts: { store: 'ok', listeners: 'ok', writer: 'ok' } });
    expect((await get(`${url}/health`)).json()).toEqual({ status: 'ok' });

    ops.stop();
    r = await get(`${url}/ready`);
    expect(r.status).toBe(503);
    expect(r.json()).toEqual({ status: 'stopping', parts: { store: 'ok', listeners: 'ok', writer: 'ok' } });
    // Alive all the same: /health is about the process.
    expect((await get(`${url}/health`)).status).toBe(200);
  });

  it('is 503 naming the store when the database is closed', async () => {
    const d = mkdtempSync(join(tmpdir(), 'fsm-ops-closed-'));
    try {
      const cfg = loadConfig({ FSM_DATA_DIR: d });
      const own = openStore(cfg.dbFile);
      const ops = new Ops({ config: cfg, store: own, now: Date.now, processMetrics: false });
      ops.attach({ gatewayDown: () => [] });
      const url = await serve(ops);
      expect((await get(`${url}/ready`)).status).toBe(200);
      own.close();
      const r = await get(`${url}/ready`);
      expect(r.status).toBe(503);
      const body = r.json() as { status: string; parts: Record<string, string> };
      expect(body.status).toBe('not ready');
      expect(body.parts.store).toMatch(/^unavailable: /);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('/metrics settings', () => {
  it('FSM_METRICS=off: no /metrics route; /health and /ready stay', async () => {
    const cfg = loadConfig({ FSM_DATA_DIR: dir, FSM_METRICS: 'off' });
    expect(cfg.metrics).toEqual({ enabled: false, token: null });
    const url = await serve(new Ops({ config: cfg, store, now: Date.now, processMetrics: false }));
    expect((await get(`${url}/metrics`)).status).toBe(404);
    expect((await get(`${url}/health`)).status).toBe(200);
  });

  it('FSM_METRICS accepts on/off (true/false, 1/0, yes/no) and refuses anything else', () => {
    expect(loadConfig({ FSM_METRICS: 'ON' }).metrics.enabled).toBe(true);
    expect(loadConfig({ FSM_METRICS: '0' }).metrics.enabled).toBe(false);
    expect(loadConfig({}).metrics).toEqual({ enabled: true, token: null });
    expect(() => loadConfig({ FSM_METRICS: 'maybe' })).toThrow(new ConfigError('FSM_METRICS must be on or off, got "maybe"'));
  });

  it('FSM_METRICS_TOKEN: a scrape without the bearer token, or with another, is 401; with it, 200', async () => {
    const cfg = loadConfig({ FSM_DATA_DIR: dir, FSM_METRICS_TOKEN: 's3cret-token' });
    const url = await serve(new Ops({ config: cfg, store, now: Date.now, processMetrics: false }));
    const none = await get(`${url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.text).toBe('a bearer token is required (FSM_METRICS_TOKEN)\n');
    expect((await get(`${url}/metrics`, { authorization: 'Bearer wrong-token!' })).status).toBe(401);
    expect((await get(`${url}/metrics`, { authorization: 'Bearer s3cret-token-and-more' })).status).toBe(401);
    const ok = await get(`${url}/metrics`, { authorization: 'Bearer s3cret-token' });
    expect(ok.status).toBe(200);
    parseExposition(ok.text);
    // Health and readiness never ask for it (a load balancer's probe carries none).
    expect((await get(`${url}/health`)).status).toBe(200);
  });
});

describe('figures', () => {
  it('two servers in one process keep their own registries', async () => {
    const a = new Ops({ config, store, now: Date.now });
    const b = new Ops({ config, store, now: Date.now });
    const counters = { connections: 2, frames: 7, framesAcknowledged: 6, fixes: 5, acknowledged: 5, decodeErrors: 0 };
    a.attach({ devices: new Map([['gt06', counters]]) });
    b.attach({ devices: new Map([['gt06', { ...counters, frames: 1 }]]) });
    const [ta, tb] = [parseExposition(await a.metrics()), parseExposition(await b.metrics())];
    // Both show the process's figures too, in a text that still parses (no family twice).
    expect(ta.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(tb.get('process_cpu_user_seconds_total')?.type).toBe('counter');
    expect(valueOf(ta, 'fsm_device_frames_received_total', 'fsm_device_frames_received_total', { protocol: 'gt06' })).toBe(7);
    expect(valueOf(tb, 'fsm_device_frames_received_total', 'fsm_device_frames_received_total', { protocol: 'gt06' })).toBe(1);
    // A counter follows the gateway's total: later scrapes add only what came since.
    counters.frames = 10;
    const again = parseExposition(await a.metrics());
    expect(valueOf(again, 'fsm_device_frames_received_total', 'fsm_device_frames_received_total', { protocol: 'gt06' })).toBe(10);
    expect(valueOf(again, 'fsm_device_connections', 'fsm_device_connections', { protocol: 'gt06' })).toBe(2);
  });

  it('the report queue gauge follows the callback wired in', async () => {
    const ops = new Ops({ config, store, now: Date.now, processMetrics: false });
    const read = async () => valueOf(parseExposition(await ops.registry.metrics()), 'fsm_report_queue', 'fsm_report_queue');
    expect(await read()).toBe(0);
    let queued = 3;
    ops.attach({ reportQueue: () => queued });
    expect(await read()).toBe(3);
    queued = 0;
    expect(await read()).toBe(0);
  });

  it('the telemetry backlog counts waiting fixes; the lag is the age of the oldest waiting one', async () => {
    const ops = new Ops({ config, store, now: () => NOW, processMetrics: false });
    const read = async () => {
      const m = parseExposition(await ops.registry.metrics());
      return [valueOf(m, 'fsm_telemetry_backlog', 'fsm_telemetry_backlog'), valueOf(m, 'fsm_telemetry_lag_seconds', 'fsm_telemetry_lag_seconds')];
    };
    expect(await read()).toEqual([0, 0]);
    // Source 1: fixes at t=1000..5000, processed up to 3000 (2 waiting: 4000 and 5000, received 90 s and 80 s ago).
    // Source 2: 3 fixes all waiting, the first received 30 s ago.
    const fix = sql.prepare('INSERT INTO fixes (source_id, time, lat, lng, received) VALUES (?, ?, 1, 2, ?)');
    for (const t of [1000, 2000, 3000]) fix.run(1, t, NOW - 200_000);
    fix.run(1, 4000, NOW - 90_000);
    fix.run(1, 5000, NOW - 80_000);
    for (const [i, t] of [7000, 8000, 9000].entries()) fix.run(2, t, NOW - 30_000 + i * 1000);
    sql.prepare('DELETE FROM telemetry_pending').run();
    sql.prepare('INSERT INTO telemetry_pending (source_id, from_time, version) VALUES (1, 3001, 1), (2, 0, 1)').run();
    expect(await read()).toEqual([5, 90]);
    sql.prepare('DELETE FROM telemetry_pending WHERE source_id = 1').run();
    expect(await read()).toEqual([3, 30]);
    sql.prepare('DELETE FROM telemetry_pending').run();
    sql.prepare('DELETE FROM fixes').run();
    expect(await read()).toEqual([0, 0]);
  });

  it('a scrape counts a backlog only up to BACKLOG_CAP (100000): never an unbounded scan', async () => {
    expect(BACKLOG_CAP).toBe(100_000);
    const ops = new Ops({ config, store, now: () => NOW, processMetrics: false });
    const fix = sql.prepare('INSERT INTO fixes (source_id, time, lat, lng, received) VALUES (?, ?, 1, 2, ?)');
    sql.transaction(() => {
      for (let i = 0; i < BACKLOG_CAP + 5; i++) fix.run(3 + (i % 2), i, NOW - 5000);
    })();
    sql.prepare('INSERT INTO telemetry_pending (source_id, from_time, version) VALUES (3, 0, 1), (4, 0, 1)').run();
    const m = parseExposition(await ops.metrics());
    expect(valueOf(m, 'fsm_telemetry_backlog', 'fsm_telemetry_backlog')).toBe(BACKLOG_CAP);
    expect(valueOf(m, 'fsm_telemetry_lag_seconds', 'fsm_telemetry_lag_seconds')).toBe(5);
    sql.prepare('DELETE FROM telemetry_pending').run();
    sql.prepare('DELETE FROM fixes').run();
  });

  it('the forwarding backlog per retranslator: fixes of its bound trackers past its cursors, and 0 once acknowledged', async () => {
    const { id: userId } = await createUser({ store, config, mailer: createMailer(config.mail), now: () => NOW }, { login: 'fwd@example.com', password: 'pw-123456' });
    const t1 = store.trackers.add({ userId, deviceId: '350000000000101', protocol: 'teltonika', label: 'a', tariffId: 1, now: NOW });
    const t2 = store.trackers.add({ userId, deviceId: '350000000000102', protocol: 'teltonika', label: 'b', tariffId: 1, now: NOW });
    const src = (tid: number) => sql.prepare('SELECT source_id FROM trackers WHERE id = ?').pluck().get(tid) as number;
    const fields = { name: 'r', protocolId: 1, address: 'example.com', port: 1, login: '', password: '', enabled: true };
    const r1 = store.retranslators.create(userId, { ...fields, name: 'one' });
    const r2 = store.retranslators.create(userId, { ...fields, name: 'two', port: 2 });
    store.retranslators.bind(r1, t1, src(t1), null, NOW);
    store.retranslators.bind(r1, t2, src(t2), null, NOW);
    store.retranslators.bind(r2, t2, src(t2), null, NOW);
    const fix = sql.prepare('INSERT INTO fixes (source_id, time, lat, lng, received) VALUES (?, ?, 1, 2, ?)');
    for (let i = 0; i < 4; i++) fix.run(src(t1), 1000 + i, NOW);
    for (let i = 0; i < 2; i++) fix.run(src(t2), 1000 + i, NOW);
    const ops = new Ops({ config, store, now: () => NOW, processMetrics: false });
    const backlogs = async () => Object.fromEntries(parseExposition(await ops.registry.metrics()).get('fsm_forwarding_backlog')!.samples.map((x) => [x.labels.retranslator, x.value]));
    expect(await backlogs()).toEqual({ [r1]: 6, [r2]: 2 });
    // r2's receiver acknowledged everything; r1 is deleted: its series goes.
    store.retranslators.advance(r2, new Map([[src(t2), store.retranslators.maxSeq()]]), 1001);
    store.retranslators.delete(userId, r1);
    expect(await backlogs()).toEqual({ [r2]: 0 });
  });
});
