/**
 * The server as a real child process (as `npm start` runs it) on a data directory, with only the
 * Teltonika listener on an ephemeral port: for tests that kill or stop it. `stopChildServers`
 * (afterAll) kills what is still running, also when a test failed. `seedFleet` and `streamFleet`
 * give it trackers and their traffic.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createUser } from '../../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { runSimulation } from '../../src/simulator/index.ts';
import { openStore } from '../../src/store/index.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const procs: ChildProcess[] = [];

export interface ChildServer {
  proc: ChildProcess;
  /** The Teltonika TCP port. */
  port: number;
  apiUrl: string;
  output(): string;
}

export function startChildServer(dataDir: string, env: Record<string, string> = {}): Promise<ChildServer> {
  const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  const proc = spawn(process.execPath, [...SERVER_NODE_ARGS], {
    cwd: root,
    env: { ...process.env, ...off, FSM_DATA_DIR: dataDir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_GATEWAY_HOST: '127.0.0.1', FSM_TELTONIKA_PORT: '0', FSM_LOG_LEVEL: 'warn', ...env },
  });
  procs.push(proc);
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 60_000);
    const look = (d: Buffer) => {
      out += d;
      const port = /teltonika tcp:(\d+)/.exec(out);
      const api = /API listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (port && api) {
        clearTimeout(timer);
        resolve({ proc, port: Number(port[1]), apiUrl: `http://127.0.0.1:${api[1]}`, output: () => out });
      }
    };
    proc.stdout!.on('data', look);
    proc.stderr!.on('data', look);
    proc.once('exit', (c) => reject(new Error(`exited ${c}:\n${out}`)));
  });
}

export async function stopChildServers(): Promise<void> {
  await Promise.all(procs.map((p) => (p.exitCode === null && p.signalCode === null ? new Promise((r) => { p.once('exit', r); p.kill('SIGKILL'); }) : undefined)));
}

/** A data directory with one user (password `pw`) and `n` Teltonika trackers registered. */
export async function seedFleet(dataDir: string, login: string, n: number): Promise<{ dbFile: string; deviceIds: string[] }> {
  const config = loadConfig({ FSM_DATA_DIR: dataDir });
  const deviceIds = Array.from({ length: n }, (_, i) => `35${String(i + 1).padStart(13, '0')}`);
  const store = openStore(config.dbFile);
  try {
    const { id } = await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login, password: 'pw' });
    for (const d of deviceIds) store.trackers.add({ userId: id, deviceId: d, protocol: 'teltonika', label: d, tariffId: 1, now: Date.now() });
  } finally {
    store.close();
  }
  return { dbFile: config.dbFile, deviceIds };
}

/**
 * Simulated trackers streaming as fast as acknowledgements come, recording the time of every record
 * each device saw acknowledged. `snapshot()` copies that record; `stop()` ends the simulation.
 */
export function streamFleet(port: number, deviceIds: string[], ackTimeout = 5) {
  const acked = new Map<string, number[]>();
  const abort = new AbortController();
  const sim = runSimulation({
    protocol: 'teltonika', trackers: deviceIds.length, interval: 0, duration: 60, host: '127.0.0.1', port, deviceIds,
    recordsPerPacket: 20, signal: abort.signal, ackTimeout, drainTimeout: 0,
    onAck: (deviceId, records) => {
      const list = acked.get(deviceId) ?? [];
      for (const r of records) list.push(r.time);
      acked.set(deviceId, list);
    },
  });
  const count = () => [...acked.values()].reduce((n, l) => n + l.length, 0);
  return {
    count,
    snapshot: () => new Map([...acked].map(([k, v]) => [k, [...v]])),
    /** Resolves once `n` records are acknowledged (or after 20 s). */
    async until(n: number) {
      const end = Date.now() + 20_000;
      while (count() < n && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    },
    async stop() {
      abort.abort();
      await sim.catch(() => undefined);
    },
  };
}
