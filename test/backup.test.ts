/**
 * Online backup (issue 15): `npm run fsm -- backup <file>` while simulated trackers stream into a
 * real server process. A server started on the copy has every fix acknowledged before the backup
 * began, and the copy passes SQLite's integrity check. Bad input: no file named, an existing file.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fsm } from './helpers/cli.ts';
import { openSql } from './helpers/sql.ts';
import { seedFleet, startChildServer, stopChildServers, streamFleet } from './helpers/child-server.ts';


const root = fileURLToPath(new URL('..', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  await stopChildServers();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const tempDir = (p: string) => {
  const d = mkdtempSync(join(tmpdir(), p));
  dirs.push(d);
  return d;
};

/** The admin command as its own process, without blocking this thread (the simulator runs here). */
function fsmAsync(dataDir: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: root, env: { ...process.env, FSM_DATA_DIR: dataDir } });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  return new Promise((r) => p.once('exit', (code) => r({ code, stdout, stderr })));
}

describe('npm run fsm -- backup', () => {
  it('copies the live database during ingest; a server started on the copy has every fix acknowledged before it began', async () => {
    const dataDir = tempDir('fsm-backup-');
    const { deviceIds } = await seedFleet(dataDir, 'backup@example.com', 10);
    const server = await startChildServer(dataDir);
    const fleet = streamFleet(server.port, deviceIds);
    await fleet.until(3000);
    const before = fleet.snapshot();
    const atStart = fleet.count();
    const out = join(tempDir('fsm-backup-out-'), 'copy.sqlite');
    const r = await fsmAsync(dataDir, 'backup', out);
    const duringBackup = fleet.count() - atStart;
    await fleet.stop();
    expect(r.stderr).toMatch(/backup: 100% \(\d+\/\d+ pages\)/);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backup written to .*copy\.sqlite \([\d.]+ MiB in [\d.]+ s\); restore: docs\/operations\.md\n$/);
    expect(existsSync(`${out}.partial`)).toBe(false);

    // Restore as docs/operations.md says: the copy becomes fsm.sqlite of a new data directory.
    const restored = tempDir('fsm-restored-');
    copyFileSync(out, join(restored, 'fsm.sqlite'));
    const second = await startChildServer(restored);
    const sql = openSql(join(restored, 'fsm.sqlite'));
    expect(sql.pragma('integrity_check', { simple: true })).toBe('ok');
    const has = sql.prepare('SELECT 1 FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ? AND f.time = ?').pluck();
    let missing = 0;
    let checked = 0;
    for (const [d, times] of before) for (const t of times) (checked++, has.get(d, t) || missing++);
    sql.close();
    second.proc.kill('SIGKILL');
    console.log(`backup during ingest: ${checked} fixes acknowledged before it began, ${missing} missing from the copy; ${duringBackup} more acknowledged while it ran`);
    expect(checked).toBeGreaterThan(1000);
    expect(missing).toBe(0);
    expect(duringBackup).toBeGreaterThan(0); // ingest went on while the copy was made
  }, 120_000);

  it('refuses without a file and never overwrites one; nothing is written', () => {
    const dataDir = tempDir('fsm-backup-bad-');
    const none = fsm(dataDir, 'backup');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('name the file to write the copy to');
    const target = join(dataDir, 'exists.sqlite');
    writeFileSync(target, 'keep me');
    const exists = fsm(dataDir, 'backup', target);
    expect(exists.code).toBe(1);
    expect(exists.stderr).toContain('exists: name a new file');
    expect(readdirSync(dataDir).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });
});
