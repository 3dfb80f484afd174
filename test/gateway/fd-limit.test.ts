/**
 * Idle device sockets cannot starve the API of file descriptors (issue 10, item 14): a real server
 * process under `prlimit --nofile=512` says how it lowered the connection limits, refuses device
 * connections beyond them, and its API keeps answering (a login, which also opens the database).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';
import { openStore } from '../../src/store/index.ts';

/**
 * The open-file limit, and more device connections than fit under it. 512, not 256: Node 24's
 * libuv holds an io_uring ring besides epoll and eventfd per event loop, and a started server holds
 * ~127 descriptors there (~89 on Node 20), which left nothing for devices under 256 less the 128 kept.
 */
const LIMIT = 512;
const DEVICES = 400;

const root = fileURLToPath(new URL('../..', import.meta.url));
const hasPrlimit = spawnSync('prlimit', ['--version']).status === 0;
let proc: ChildProcess | undefined;
const sockets: net.Socket[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'fsm-'));
afterAll(() => {
  sockets.forEach((s) => s.destroy());
  proc?.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

function startServer(): Promise<{ out: () => string; api: string; port: number }> {
  const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  proc = spawn('prlimit', [`--nofile=${LIMIT}`, process.execPath, ...SERVER_NODE_ARGS], {
    cwd: root,
    env: { ...process.env, ...off, FSM_DATA_DIR: dataDir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_GATEWAY_HOST: '127.0.0.1', FSM_TELTONIKA_PORT: '0', FSM_LOG_LEVEL: 'warn' },
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 60_000);
    const look = (d: Buffer) => {
      out += d;
      const api = /API listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      const port = /teltonika tcp:(\d+)/.exec(out);
      if (api && port) {
        clearTimeout(timer);
        resolve({ out: () => out, api: api[1], port: Number(port[1]) });
      }
    };
    proc!.stdout!.on('data', look);
    proc!.stderr!.on('data', look);
    proc!.once('exit', (c) => reject(new Error(`exited ${c}:\n${out}`)));
  });
}

describe.skipIf(!hasPrlimit)(`under an open-file limit of ${LIMIT}`, () => {
  it(`${DEVICES} idle device connections from one address: those beyond the limit are refused, the API answers`, async () => {
    const config = loadConfig({ FSM_DATA_DIR: dataDir });
    {
      const store = openStore(config.dbFile);
      await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: 'ops@example.com', password: 'pw-12345' });
      store.close();
    }
    const server = await startServer();
    expect(server.out()).not.toContain('FSM_GATEWAY_MAX_CONNECTIONS='); // not set: fits itself, no warning
    // What fits: the limit, less what the started server holds, less 128 kept for the API, the database and
    // threads started on demand.
    const note = new RegExp(`Device connections: at most (\\d+) in total, (\\d+) per address \\(open-file limit ${LIMIT}\\)`).exec(server.out());
    expect(note, server.out()).not.toBeNull();
    const fits = Number(note![1]);
    expect(note![2]).toBe(note![1]);
    expect(fits).toBeGreaterThan(0);
    expect(fits).toBeLessThanOrEqual(LIMIT - 128 - 40); // a started server holds at least 40 (threads, databases, listeners)

    let closed = 0;
    await Promise.all(
      Array.from(
        { length: DEVICES },
        () =>
          new Promise<void>((resolve) => {
            const s = net.connect(server.port, '127.0.0.1', () => resolve());
            s.on('error', () => resolve());
            s.on('close', () => closed++);
            sockets.push(s);
          }),
      ),
    );
    for (let i = 0; i < 250 && closed < DEVICES - fits; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(DEVICES - fits); // the rest stay open, idle

    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.api}/v2/fsm/user/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ login: 'ops@example.com', password: 'pw-12345' }),
        signal: AbortSignal.timeout(5000),
      }).catch((e: Error) => {
        throw new Error(`${e.message} (${String(e.cause)}); the server said:\n${server.out()}`);
      });
      expect(res.status, server.out()).toBe(200);
      expect((await res.json()).success).toBe(true);
    }
  });
});
