/**
 * What the gateway benchmarks share about the server process they measure: starting it with the
 * Teltonika listener alone (exactly as `npm start` runs it), and reading its memory and CPU time from
 * Linux's /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PROTOCOL_PORTS } from '../../src/config.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A server on `dir` with only the Teltonika listener, on loopback; resolves with its port once it
 * listens. `nodeArgs` go before the server's own (e.g. `--cpu-prof`). It is killed when this
 * process exits, also when a bench fails (a server left running holds the bench's stderr open).
 */
export async function startTeltonikaServer(dir: string, nodeArgs: string[] = []): Promise<{ proc: ChildProcess; port: number; apiPort: number }> {
  const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  const proc = spawn(process.execPath, [...nodeArgs, ...SERVER_NODE_ARGS], {
    cwd: root,
    env: { ...process.env, ...off, FSM_DATA_DIR: dir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_GATEWAY_HOST: '127.0.0.1', FSM_TELTONIKA_PORT: '0', FSM_LOG_LEVEL: 'warn', FSM_GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '100000' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => proc.kill('SIGKILL'));
  let out = '';
  const [port, apiPort] = await new Promise<[number, number]>((resolve, reject) => {
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /teltonika tcp:(\d+)/.exec(out);
      const api = /API listening on \S+:(\d+)/.exec(out);
      if (m && api) resolve([Number(m[1]), Number(api[1])]);
    });
    proc.once('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  return { proc, port, apiPort };
}

/** The resident memory of a process, MiB (0 once it is gone). */
export function rssMiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  } catch {
    return 0;
  }
}

/** User + system CPU seconds of a /proc `stat` line (a process's or a thread's). */
export function statCpuSeconds(stat: string): number {
  const f = stat.split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** CPU seconds a process used so far, 0 once it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}
