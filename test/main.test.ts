/** `npm start` as a new user runs it: a real process on a fresh data directory (issue 2). */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PROTOCOL_PORTS } from '../src/config.ts';
import { SERVER_NODE_ARGS } from '../src/server-process.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const portsOff = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
const procs: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(procs.splice(0).map((p) => (p.exitCode === null && p.signalCode === null ? new Promise((r) => { p.once('exit', r); p.kill('SIGKILL'); }) : undefined)));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};
/** Login and password of the first master user: the path is printed, the password is in the file. */
function firstAccount(output: string): { login: string; password: string; file: string } {
  const [, login, file] = /Login: (\S+)\s+Password: in (\S+)/.exec(output)!;
  const [, password] = /^password: (\S+)$/m.exec(readFileSync(file, 'utf8'))!;
  return { login, password, file };
}

/** Start the server as `npm start` does (SERVER_NODE_ARGS) and wait until it listens. */
function startServer(dataDir: string, env: Record<string, string> = {}) {
  const p = spawn(process.execPath, [...SERVER_NODE_ARGS], { cwd: root, env: { ...process.env, FSM_DATA_DIR: dataDir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', ...portsOff, ...env } });
  procs.push(p);
  let out = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (out += d));
  return new Promise<{ url: string; output: () => string; stop: () => Promise<number | null> }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${out}`)), 30_000);
    p.stdout!.on('data', () => {
      const m = /API listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: `http://127.0.0.1:${m[1]}`,
          output: () => out,
          stop: () => new Promise((r) => { p.once('exit', (code) => r(code)); p.kill('SIGTERM'); }),
        });
      }
    });
    p.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

const post = async (url: string, path: string, body: unknown) => (await fetch(`${url}/v2/fsm/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();

describe('npm start', () => {
  it('runs the server with the node arguments the benchmarks and these tests use', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
    expect(pkg.scripts.start).toBe(`node ${SERVER_NODE_ARGS.join(' ')}`);
  });

  it('creates a master user on an empty data directory, writes its password to a file only its user reads, and it logs in', async () => {
    const dir = tempDir('fsm-start-');
    const a = await startServer(dir);
    const { login, password, file } = firstAccount(a.output());
    expect(file).toBe(join(dir, 'first-master-password.txt'));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(a.output()).not.toContain(password);
    const auth = await post(a.url, 'user/auth', { login, password });
    expect(auth.success).toBe(true);
    expect(await a.stop()).toBe(0);
    const b = await startServer(dir);
    expect(b.output()).not.toContain('Password:');
    expect((await post(b.url, 'user/auth', { login, password })).success).toBe(true);
  });

  it('never logs passwords or session hashes, even with request logging on', async () => {
    const dir = tempDir('fsm-log-');
    const s = await startServer(dir, { FSM_LOG_LEVEL: 'debug' });
    const { login, password } = firstAccount(s.output());
    const { hash } = await post(s.url, 'user/auth', { login, password });
    await fetch(`${s.url}/v2/fsm/user/get_info?hash=${hash}`);
    await fetch(`${s.url}/v2/fsm/user/auth?login=${login}&password=${password}`);
    await fetch(`${s.url}/v2/fsm/tracker/list`, { method: 'POST', headers: { authorization: `NVX ${hash}` } });
    await fetch(`${s.url}/v2/fsm/no/such?hash=${hash}`);
    await new Promise((r) => setTimeout(r, 300));
    const logged = s.output().split('\n').filter((l) => l.startsWith('{')).join('\n');
    expect(logged).toContain('incoming request');
    expect(logged).not.toContain(hash);
    expect(logged).not.toContain(password);
  });

  it('refuses a bad setting with a clear message', async () => {
    await expect(startServer(tempDir('fsm-bad-'), { FSM_HTTP_PORT: 'eighty' })).rejects.toThrow(/FSM_HTTP_PORT must be a whole number/);
  });
});
