/**
 * A port the server cannot open (issue 23): the server refuses to start with one line naming the port
 * and its setting, exit code 2, no stack trace, nothing left listening; the data directory is
 * untouched, and the next start on a free port serves it (docs/gateway.md).
 */
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROTOCOL_PORTS } from '../../src/config.ts';
import { SERVER_NODE_ARGS } from '../../src/server-process.ts';
import { startChildServer, stopChildServers } from '../helpers/child-server.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const off = Object.fromEntries(Object.keys(DEFAULT_PROTOCOL_PORTS).map((p) => [`FSM_${p.toUpperCase()}_PORT`, 'off']));
const cleanup: Array<() => unknown> = [];
afterAll(async () => {
  await stopChildServers();
  for (const c of cleanup.splice(0).reverse()) await c();
});

const dir = () => {
  const d = mkdtempSync(join(tmpdir(), 'fsm-port-'));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
};

/** Runs the server until it exits (it must, within 30 s): its exit code and output. */
function runToExit(dataDir: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, [...SERVER_NODE_ARGS], {
    cwd: root,
    env: { ...process.env, ...off, FSM_DATA_DIR: dataDir, FSM_HTTP_PORT: '0', FSM_HTTP_HOST: '127.0.0.1', FSM_GATEWAY_HOST: '127.0.0.1', ...env },
  });
  cleanup.push(() => p.exitCode === null && p.signalCode === null && p.kill('SIGKILL'));
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d) => (stdout += d));
  p.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still running after 30 s:\n${stdout}\n${stderr}`)), 30_000);
    p.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function occupyTcp(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise((r) => s.close(r)));
  return (s.address() as net.AddressInfo).port;
}

async function occupyUdp(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  cleanup.push(() => s.close());
  return s.address().port;
}

/** A TCP port free now (the server then binds its UDP twin too). */
async function freePort(udpTaken: number): Promise<boolean> {
  const s = net.createServer();
  const ok = await new Promise<boolean>((r) => {
    s.once('error', () => r(false));
    s.listen(udpTaken, '127.0.0.1', () => r(true));
  });
  if (ok) await new Promise((r) => s.close(r));
  return ok;
}

describe('a port in use at start', () => {
  it('a protocol TCP port: one line naming the port and FSM_<NAME>_PORT, exit 2, no stack; the data is kept and the next start serves it', async () => {
    const taken = await occupyTcp();
    const d = dir();
    const r = await runToExit(d, { FSM_TELTONIKA_PORT: String(taken) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`cannot start: teltonika tcp port ${taken} on 127.0.0.1 is already in use; set FSM_TELTONIKA_PORT to a free port, or to off to run without teltonika\n`);
    expect(r.stdout).not.toContain('API listening');
    expect(r.stdout).not.toMatch(/\n\s+at /);
    // Nothing was lost: the master user made on this first start logs in on the next one.
    const [, login, file] = /Login: (\S+)\s+Password: in (\S+)/.exec(r.stdout)!;
    const s = await startChildServer(d);
    expect(s.output()).not.toContain('Created the master user');
    const password = /^password: (\S+)$/m.exec(readFileSync(file, 'utf8'))![1];
    const auth = (await (await fetch(`${s.apiUrl}/v2/fsm/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login, password }) })).json()) as { success: boolean };
    expect(auth.success).toBe(true);
  }, 90_000);

  it('a protocol UDP port (its TCP twin free): the same line for udp, and the TCP listener it had opened is closed again', async () => {
    let taken = await occupyUdp();
    // The TCP port of the same number must be free for the UDP bind to be the one that fails.
    for (let i = 0; i < 5 && !(await freePort(taken)); i++) taken = await occupyUdp();
    const r = await runToExit(dir(), { FSM_TELTONIKA_PORT: String(taken) });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`cannot start: teltonika udp port ${taken} on 127.0.0.1 is already in use; set FSM_TELTONIKA_PORT to a free port, or to off to run without teltonika\n`);
    expect(await freePort(taken)).toBe(true);
  }, 60_000);

  it('the API port: one line naming FSM_HTTP_PORT, exit 2', async () => {
    const taken = await occupyTcp();
    const r = await runToExit(dir(), { FSM_HTTP_PORT: String(taken), FSM_TELTONIKA_PORT: '0' });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`cannot start: API port ${taken} on 127.0.0.1 is already in use; set FSM_HTTP_PORT to a free port\n`);
    expect(r.stdout).not.toContain('API listening');
  }, 60_000);
});
