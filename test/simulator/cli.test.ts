/** `npm run fsm -- simulate` as a real process against a fake Teltonika server (issue 3, simulator). */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { protocol as teltonika } from '../../protocols/teltonika/index.ts';
import { fsm } from '../helpers/cli.ts';
import { startFakeServer, type FakeServer } from './fake-server.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
let dataDir: string;
let server: FakeServer;

/** Runs the admin command without blocking the event loop (the fake server lives in this process). */
function fsmAsync(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env: { ...process.env, FSM_DATA_DIR: dataDir } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'fsm-sim-'));
  server = await startFakeServer(teltonika);
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run fsm -- simulate', () => {
  it('registers the trackers, prints progress and a summary', async () => {
    expect(fsm(dataDir, 'user', 'create', '--login', 'sim@example.com', '--password', 'pw').code).toBe(0);
    const args = ['simulate', '--protocol', 'teltonika', '--trackers', '2', '--interval', '0.2', '--duration', '2', '--port', String(server.port), '--device-id-prefix', '3520000000', '--progress', '0.5'];
    const r = await fsmAsync(...args, '--register', 'sim@example.com');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('registered 2 new tracker(s) to sim@example.com');
    expect(r.stdout).toMatch(/connected 2\/2 {2}sent \d+ {2}acked \d+/);
    expect(r.stdout).toMatch(/done: (\d+) of \1 records sent acknowledged/);
    expect([...server.received.keys()].sort()).toEqual(['352000000000001', '352000000000002']);
    expect(fsm(dataDir, 'tracker', 'add', '--user', 'sim@example.com', '--device-id', '352000000000001', '--protocol', 'teltonika').stderr).toContain('registered already');

    const again = await fsmAsync(...args.map((a) => (a === '2' ? '1' : a)), '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ trackers: 1, errors: 0, pending: 0, acked: expect.any(Number) });
  });

  it('bad options are usage errors', async () => {
    const r = fsm(dataDir, 'simulate', '--protocol', 'pigeon', '--trackers', '1', '--interval', '1', '--duration', '1');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--protocol: one of teltonika, gt06, wialon, osmand');
    expect(r.stderr).toContain('usage: npm run fsm -- simulate');
    expect(fsm(dataDir, 'simulate', '--protocol', 'gt06', '--trackers', 'many', '--interval', '1', '--duration', '1').stderr).toContain('--trackers takes a number');
  });
});
