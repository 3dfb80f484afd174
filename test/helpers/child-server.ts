/**
 * The server as a real child process (as `npm start` runs it) on a data directory, with only the
 * Teltonika listener on an ephemeral port: for tests that kill or stop it. `stopChildServers`
 * (afterAll) kills what is still running, also when a test failed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PROTOCOL_PORTS } from '../../src/config.ts';
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
