/**
 * No secret reaches the log (issue 10, item 12): a real server with request logging on (debug)
 * is driven through every way a password or a session hash can arrive, and its whole log is then
 * scanned for them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/accounts/accounts.ts';
import { DEFAULT_PROTOCOL_PORTS, loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { buildApi } from '../../src/api/server.ts';
import { defineCall, type CallDef, type Services } from '../../src/api/kernel.ts';
import { openStore } from '../../src/store/index.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const PASSWORD = 'Pw-7f3kQ9zX';
const LOGIN = 'logs@example.com';
let dir: string;
let proc: ChildProcess | undefined;
let out = '';
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fsm-logs-'));
  // the user exists before the server starts (no first-master password in the output)
  const config = loadConfig({ FSM_DATA_DIR: dir });
  const store = openStore(config.dbFile);
  try {
    await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: LOGIN, password: PASSWORD });
    await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: 'new@example.com', password: PASSWORD, unactivated: true });
  } finally {
    store.close();
  }
  const portsOff = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
  proc = spawn(process.execPath, [...SERVER_NODE_ARGS], { cwd: root, env: { ...process.env, ...portsOff, FSM_DATA_DIR: dir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_LOG_LEVEL: 'trace', FSM_TELEMETRY_THREADS: '1', FSM_ACTIVATION_INTERVAL_MINUTES: '0' } });
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${out}`)), 30_000);
    proc!.stdout!.on('data', () => {
      const m = /API listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${m[1]}`);
      }
    });
    proc!.once('exit', (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
});

afterAll(async () => {
  if (proc && proc.exitCode === null && proc.signalCode === null) await new Promise((r) => { proc!.once('exit', r); proc!.kill('SIGKILL'); });
  rmSync(dir, { recursive: true, force: true });
});

const json = (path: string, body: unknown, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const form = (path: string, body: string) => fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

describe('the debug log of a run through every authentication path', () => {
  it('carries no password and no session hash', async () => {
    const hashes: string[] = [];
    const login = async (res: Response) => {
      const b = await res.json();
      expect(b.success, JSON.stringify(b)).toBe(true);
      hashes.push(b.hash);
      return b.hash as string;
    };
    // user/auth: JSON body, form body, query string (plain, percent-encoded and upper-case names), multipart
    const h1 = await login(await json('/v2/fsm/user/auth', { login: LOGIN, password: PASSWORD }));
    await login(await form('/api-v2/user/auth', `login=${encodeURIComponent(LOGIN)}&password=${PASSWORD}`));
    await login(await fetch(`${url}/v2/fsm/user/auth?login=${LOGIN}&password=${PASSWORD}`));
    await login(await fetch(`${url}/v2/user/auth?login=${LOGIN}&p%61ssword=${PASSWORD}`));
    await login(await fetch(`${url}/v2/fsm/user/auth/?login=${LOGIN}&%70%61%73%73%77%6F%72%64=${PASSWORD}`));
    const mp = new FormData();
    mp.set('login', LOGIN);
    mp.set('password', PASSWORD);
    // a wrong password is a secret too (it may be the right one with a typo)
    expect((await (await json('/v2/fsm/user/auth', { login: LOGIN, password: `${PASSWORD}x` })).json()).status.code).toBe(102);
    expect((await (await fetch(`${url}/v2/fsm/user/auth?login=${LOGIN}&password[]=${PASSWORD}y`)).json()).success).toBe(false);
    // the session hash: query (plain, percent-encoded name, list form), JSON, form, header
    await fetch(`${url}/v2/fsm/user/get_info?hash=${h1}`);
    await fetch(`${url}/v2/fsm/user/get_info?h%61sh=${h1}`);
    await fetch(`${url}/v2/fsm/user/get_info?%68ash=${h1}&x=1`);
    await fetch(`${url}/v2/fsm/user/get_info?hash[]=${h1}`);
    await fetch(`${url}/v2/fsm/user/get_info?HASH=${h1}`);
    await json('/v2/fsm/tracker/list', { hash: h1 });
    await form('/v2/fsm/tracker/list', `hash=${h1}`);
    await fetch(`${url}/v2/fsm/tracker/list`, { method: 'POST', headers: { authorization: `NVX ${h1}` } });
    await fetch(`${url}/v2/fsm/tracker/list`, { method: 'POST', headers: { cookie: `session=${h1}` } });
    // unknown calls, with the hash in the path and in the query
    await fetch(`${url}/v2/fsm/no/such?hash=${h1}`);
    await fetch(`${url}/v2/fsm/no/such/${h1}`);
    await fetch(`${url}/v2/fsm/${h1}/tracker/list`);
    await fetch(`${url}/v2/fsm/user/get_info;hash=${h1}`);
    // error lines: malformed bodies that contain secrets, wrong content types, oversize
    await json('/v2/fsm/tracker/list', `{"hash":"${h1}", `);
    await json('/v2/fsm/user/auth', `{"login":"${LOGIN}","password":"${PASSWORD}"`);
    await form('/v2/fsm/tracker/list', `hash=${h1}&%zz`);
    await fetch(`${url}/v2/fsm/tracker/list?hash=${h1}`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: `<hash>${h1}</hash>` });
    // activation and logout
    const resend = await json('/v2/fsm/user/resend_activation', { login: 'new@example.com' });
    expect((await resend.json()).success).toBe(true);
    const mails = readdirSync(join(dir, 'outbox')).sort().map((f) => readFileSync(join(dir, 'outbox', f), 'utf8'));
    const activation = /user\/activate\?hash=([0-9a-f]+)/.exec(mails.at(-1)!.replace(/=\r?\n/g, '').replace(/=3D/g, '='))![1];
    hashes.push(activation);
    expect((await (await fetch(`${url}/v2/fsm/user/activate?hash=${activation}`)).json()).success).toBe(true);
    const h2 = await login(await json('/v2/fsm/user/auth', { login: LOGIN, password: PASSWORD }));
    await json('/v2/fsm/user/logout', { hash: h2 });
    await fetch(`${url}/v2/fsm/user/logout?hash=${h1}`);
    await new Promise((r) => setTimeout(r, 500));

    const logged = out.split('\n').filter((l) => l.startsWith('{'));
    expect(logged.join('\n')).toContain('incoming request');
    // what is no secret stays readable: call paths, other parameters, the shape of unknown paths
    expect(logged.join('\n')).toContain('"url":"/api-v2/user/auth"');
    expect(logged.join('\n')).toContain('"url":"/v2/fsm/user/get_info?%68ash=[redacted]&x=1"');
    expect(logged.join('\n')).toContain('"url":"/v2/fsm/no/such/[redacted]"');
    expect(logged.join('\n')).toContain(`"url":"/v2/fsm/user/auth?login=${LOGIN}&password=[redacted]"`);
    const leaks = logged.filter((l) => l.includes(PASSWORD) || hashes.some((h) => l.includes(h)));
    expect(leaks).toEqual([]);
  });
});

describe('error lines and request lines', () => {
  // A call that fails with an internal error quoting its parameters, as a library error might.
  const failing = defineCall({
    path: 'test/fail',
    summary: 'fails quoting its parameters',
    params: z.object({ note: z.string() }),
    handler: ({ request }) => {
      throw new Error(`cannot handle ${JSON.stringify(request.body)} ${String(request.url)}`);
    },
  });
  it('censor secrets in error messages and stacks, keep the rest', async () => {
    const config = loadConfig({ FSM_DATA_DIR: dir, FSM_LOG_LEVEL: 'debug' });
    const store = openStore(config.dbFile);
    const stream = new PassThrough();
    let log = '';
    stream.on('data', (d) => (log += d));
    const app = await buildApi({ config, store, mailer: createMailer(config.mail), now: Date.now } as Partial<Services> as Services, { calls: [failing] as CallDef[], logStream: stream });
    try {
      const hash = 'f00dfeed'.repeat(4);
      const r = await app.inject({ method: 'POST', url: `/v2/fsm/test/fail?h%61sh=${hash}&tracker_id=5`, payload: { note: 'visible note', password: PASSWORD, apn_password: 'apn-secret-9' } });
      // the session is not valid: 4 before the handler runs; log in a session for the handler to run
      expect(r.json().status.code).toBe(4);
      const session = store.sessions.create(store.users.findByLogin(LOGIN)!.id, 'user', Date.now());
      const r2 = await app.inject({ method: 'POST', url: `/v2/fsm/test/fail?h%61sh=${session}&tracker_id=5`, payload: { note: 'visible note', password: PASSWORD, apn_password: 'apn-secret-9' } });
      expect(r2.json().status.code).toBe(1);
      const r3 = await app.inject({ method: 'POST', url: `/v2/fsm/test/fail`, headers: { authorization: `NVX ${session}` }, payload: { note: `quoting ${session}` } });
      expect(r3.json().status.code).toBe(1);
      await new Promise((res) => setTimeout(res, 100));
      const lines = log.split('\n').filter(Boolean);
      const failed = lines.filter((l) => l.includes('call failed'));
      expect(failed).toHaveLength(2);
      expect(failed[0]).toContain('visible note');
      expect(failed[0]).toContain('tracker_id=5');
      expect(failed[0]).toContain('[redacted]');
      for (const secret of [hash, session, PASSWORD, 'apn-secret-9']) expect(lines.filter((l) => l.includes(secret))).toEqual([]);
    } finally {
      await app.close();
      store.close();
    }
  });
});
