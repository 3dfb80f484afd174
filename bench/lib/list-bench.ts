/**
 * What the API benchmarks share (bench/forms, bench/checkins, bench/lists; the server process also
 * bench/reports): the server in a process of its own, started as `npm start` starts it, and a client timing one call shape after another from a process
 * of its own too, so that neither the filling's nor the client's work (requests, parsing answers,
 * garbage) lands in the measured server's event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PROTOCOL_PORTS, loadConfig, type Config } from '../../src/config.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every tracker listener off: these benches measure the API alone. */
export const NO_LISTENERS = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));

export const loadAverage = () => loadavg().map((x) => x.toFixed(2)).join(', ');
/** The p-th percentile of sorted samples. */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * The filled database (in `keep` when given: filled there once and reused by later runs) and a fresh
 * copy of it to measure on, so every run measures the same data. `fill` fills an empty one;
 * `cleanup` removes the copy (and the filled directory when it was a temporary one).
 */
export async function filledCopy(name: string, keep: string | undefined, fill: (config: Config) => Promise<void>) {
  const filledDir = keep ?? mkdtempSync(join(tmpdir(), `fsm-bench-${name}-filled-`));
  mkdirSync(filledDir, { recursive: true });
  const config = loadConfig({ FSM_DATA_DIR: filledDir, FSM_HTTP_HOST: '127.0.0.1', FSM_HTTP_PORT: '0', FSM_LOG_LEVEL: 'silent', ...NO_LISTENERS });
  if (keep !== undefined && existsSync(config.dbFile)) console.log(`the database already filled in ${filledDir}; load average ${loadAverage()}`);
  else await fill(config);
  const dataDir = mkdtempSync(join(tmpdir(), `fsm-bench-${name}-`));
  const dbFile = join(dataDir, basename(config.dbFile));
  copyFileSync(config.dbFile, dbFile);
  const cleanup = () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (keep === undefined) rmSync(filledDir, { recursive: true, force: true });
  };
  return { dataDir, dbFile, cleanup };
}

/**
 * The server on `dataDir`, with `env` over the defaults and `nodeArgs` before its own (e.g. a CPU
 * profile); its pid, its API URL once it listens, and a stop that waits for its exit.
 */
export async function startServerProcess(dataDir: string, o: { env?: Record<string, string>; nodeArgs?: string[] } = {}): Promise<{ pid: number; apiUrl: string; stop(): Promise<void> }> {
  const proc: ChildProcess = spawn(process.execPath, [...(o.nodeArgs ?? []), ...SERVER_NODE_ARGS], {
    cwd: root,
    env: { ...process.env, ...NO_LISTENERS, FSM_DATA_DIR: dataDir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_LOG_LEVEL: 'warn', ...o.env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => proc.kill('SIGKILL'));
  const apiUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const api = /API listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (api) resolve(api[1]);
    });
    proc.once('exit', (c) => reject(new Error(`server exited ${c}:\n${out}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  return { pid: proc.pid!, apiUrl, stop };
}

/** Runs `script` (a bench file) with `args` in a process of its own and waits for it. */
export async function runClientProcess(script: string, args: string[]): Promise<void> {
  const client = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: 'inherit' });
  const code = await new Promise<number | null>((r) => client.once('exit', r));
  if (code !== 0) throw new Error(`the client exited ${code}`);
}

export type Shape = [name: string, params: Record<string, unknown>];

/**
 * Logs in and times `path` with each shape, one request at a time: ten warm-up rounds of every shape,
 * then `runs` timed calls per shape (after ten more untimed). Prints p50/p99 per shape with what
 * `describe` says of an answer, and the worst p99 against `targetMs`.
 */
export async function timeCalls(o: {
  apiUrl: string;
  path: string;
  login: { login: string; password: string };
  shapes: Shape[];
  runs: number;
  targetMs: number;
  describe: (answer: Record<string, unknown>) => string;
}): Promise<void> {
  const post = async (path: string, body: string) => {
    const json = await (await fetch(`${o.apiUrl}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json();
    if (!json.success) throw new Error(`${path}: ${JSON.stringify(json)}`);
    return json as Record<string, unknown>;
  };
  const hash = (await post('user/auth', JSON.stringify(o.login))).hash as string;
  const width = Math.max(...o.shapes.map(([name]) => name.length));
  for (let i = 0; i < 10; i++) for (const [, params] of o.shapes) await post(o.path, JSON.stringify({ hash, ...params }));
  let worst = 0;
  for (const [name, params] of o.shapes) {
    const body = JSON.stringify({ hash, ...params });
    const times: number[] = [];
    let last: Record<string, unknown> = {};
    for (let i = 0; i < o.runs + 10; i++) {
      const t0 = performance.now();
      last = await post(o.path, body);
      if (i >= 10) times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const p99 = percentile(times, 99);
    worst = Math.max(worst, p99);
    console.log(`${name.padEnd(width)}  p50 ${percentile(times, 50).toFixed(2).padStart(6)} ms  p99 ${p99.toFixed(2).padStart(6)} ms  (${o.describe(last)})`);
  }
  console.log(`worst p99 ${worst.toFixed(2)} ms (target < ${o.targetMs} ms); load average ${loadAverage()}`);
}

const WORDS = ['north', 'south', 'depot', 'store', 'office', 'clinic', 'school', 'bakery', 'garage', 'hotel'];
/** The same pseudo-random sequence on every run (the benches' data must not change between runs). */
export function seeded(seed = 42): { rnd: () => number; word: () => string } {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return { rnd, word: () => WORDS[Math.floor(rnd() * WORDS.length)] };
}
