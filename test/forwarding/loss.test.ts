/**
 * Nothing forwarded is lost (issue 13): simulated Teltonika trackers send over real TCP to a real
 * server process that forwards to a JSON receiver and a Wialon IPS 2.0 receiver written in the test.
 * Midway the receivers go down and come back on the same ports; then the server is killed with
 * SIGKILL while it forwards, and started again on the same data directory. In the end every fix the
 * trackers saw acknowledged reached both receivers (duplicates allowed and counted, none missing), and
 * each tracker's fixes first arrived in the order the tracker sent them. Prints the counts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../../src/config.ts';
import { bindTracker, createRetranslator } from '../../src/forwarding/retranslators.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';
import { runSimulation } from '../../src/simulator/index.ts';
import { openStore } from '../../src/store/index.ts';
import { FAST, waitFor } from './helpers.ts';
import { WialonReceiver } from './wialon-receiver.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const procs: ChildProcess[] = [];
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  await Promise.all(procs.map((p) => (p.exitCode === null && p.signalCode === null ? new Promise((r) => { p.once('exit', r); p.kill('SIGKILL'); }) : undefined)));
  for (const c of cleanups.reverse()) await c();
});

function startServer(dataDir: string): Promise<{ proc: ChildProcess; port: number }> {
  const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  const proc = spawn(process.execPath, [...SERVER_NODE_ARGS], {
    cwd: root,
    env: { ...process.env, ...off, ...FAST, FSM_DATA_DIR: dataDir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_TELTONIKA_PORT: '0', FSM_LOG_LEVEL: 'warn', FSM_TELEMETRY_THREADS: '1' },
  });
  procs.push(proc);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 60_000);
    const look = (d: Buffer) => {
      out += d;
      const m = /teltonika tcp:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]) });
      }
    };
    proc.stdout!.on('data', look);
    proc.stderr!.on('data', look);
    proc.once('exit', (c) => reject(new Error(`exited ${c}:\n${out}`)));
  });
}

/** The JSON receiver: every fix of every 2xx-answered batch, per device, in arrival order. */
class JsonReceiver {
  readonly got = new Map<string, number[]>();
  private server: Server | undefined;
  port = 0;
  async start(port = 0) {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        for (const f of JSON.parse(body).fixes as Array<{ device_id: string; time: string }>) {
          const list = this.got.get(f.device_id) ?? [];
          list.push(Date.parse(f.time));
          this.got.set(f.device_id, list);
        }
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
  }
  async stop() {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

/** Missing, duplicates and order of what a receiver got against what the trackers saw acknowledged. */
function judge(acked: Map<string, number[]>, received: (deviceId: string) => number[], key: (t: number) => number) {
  let missing = 0;
  let duplicates = 0;
  let outOfOrder = 0;
  let total = 0;
  for (const [deviceId, times] of acked) {
    const got = received(deviceId).map(key);
    const seen = new Set<number>();
    const firsts: number[] = [];
    for (const t of got) {
      if (seen.has(t)) duplicates++;
      else firsts.push(t);
      seen.add(t);
    }
    for (const t of times) if (!seen.has(key(t))) missing++;
    total += times.length;
    // the simulator's times grow with its sending order: first arrivals must grow too
    for (let i = 1; i < firsts.length; i++) if (firsts[i] < firsts[i - 1]) outOfOrder++;
  }
  return { total, missing, duplicates, outOfOrder };
}

describe('kill -9 while forwarding, receivers restarted midway', () => {
  it('every acknowledged fix reaches the receivers, in per-tracker order', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fsm-fwd-loss-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const config = loadConfig({ FSM_DATA_DIR: dataDir });
    const json = new JsonReceiver();
    await json.start();
    const wialon = new WialonReceiver('2.0');
    await wialon.start();
    cleanups.push(() => json.stop(), () => wialon.stop());
    const trackers = 10;
    const deviceIds = Array.from({ length: trackers }, (_, i) => `35${String(i + 1).padStart(13, '0')}`);
    {
      const store = openStore(config.dbFile);
      const owner = await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: 'loss@example.com', password: 'pw' });
      const user = store.users.get(owner.id)!;
      const j = createRetranslator(store, user, { name: 'json', protocol_id: 3, address: `http://127.0.0.1:${json.port}/`, enabled: true });
      const w = createRetranslator(store, user, { name: 'wialon', protocol_id: 1, address: '127.0.0.1', port: wialon.port, password: 'pw', enabled: true });
      for (const d of deviceIds) {
        const tid = store.trackers.add({ userId: owner.id, deviceId: d, protocol: 'teltonika', label: d, tariffId: 1, now: Date.now() });
        const t = store.trackers.get(owner.id, tid)!;
        bindTracker(store, owner.id, j, t, null, Date.now());
        bindTracker(store, owner.id, w, t, null, Date.now());
      }
      store.close();
    }
    let server = await startServer(dataDir);
    const acked = new Map<string, number[]>();
    const ackedCount = () => [...acked.values()].reduce((n, l) => n + l.length, 0);
    const abort = new AbortController();
    const sim = runSimulation({
      protocol: 'teltonika', trackers, interval: 0, duration: 120, host: '127.0.0.1', port: server.port, deviceIds, recordsPerPacket: 10,
      signal: abort.signal, ackTimeout: 2, drainTimeout: 0, backoff: [0.1, 0.5],
      onAck: (deviceId, records) => {
        const list = acked.get(deviceId) ?? [];
        for (const r of records) list.push(r.time);
        acked.set(deviceId, list);
      },
    });
    const until = (n: number) => waitFor(`${n} acknowledged`, () => ackedCount() >= n, 60_000);
    await until(2000);
    // the receivers go down for a while and come back on the same ports
    await json.stop();
    await wialon.stop();
    await until(4000);
    await json.start(json.port);
    await wialon.start(wialon.port);
    await until(6000);
    // kill -9 while trackers send and the engine forwards
    server.proc.kill('SIGKILL');
    await new Promise((r) => server.proc.once('exit', r));
    const ackedSnapshot = new Map([...acked].map(([k, v]) => [k, [...v]]));
    abort.abort();
    await sim.catch(() => undefined);
    server = await startServer(dataDir);
    const total = ackedCount();
    const all = (rx: (d: string) => number[], key: (t: number) => number) => judge(ackedSnapshot, rx, key).missing === 0;
    const sec = (t: number) => Math.floor(t / 1000);
    await waitFor('every acknowledged fix at both receivers', () => all((d) => json.got.get(d) ?? [], (t) => t) && all((d) => wialon.units(d).map((r) => r.time), sec), 90_000).catch(() => undefined);
    const j = judge(ackedSnapshot, (d) => json.got.get(d) ?? [], (t) => t);
    const w = judge(ackedSnapshot, (d) => wialon.units(d).map((r) => r.time), sec);
    console.log(`forwarding kill -9: ${total} fixes acknowledged before the kill; JSON receiver: ${j.missing} missing, ${j.duplicates} duplicates, ${j.outOfOrder} out of order; Wialon IPS receiver: ${w.missing} missing, ${w.duplicates} duplicates, ${w.outOfOrder} out of order`);
    expect(total).toBeGreaterThan(5000);
    expect(j).toMatchObject({ missing: 0, outOfOrder: 0 });
    expect(w).toMatchObject({ missing: 0, outOfOrder: 0 });
    expect(wialon.crcErrors).toEqual([]);
  }, 300_000);
});
