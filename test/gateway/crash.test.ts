/**
 * An acknowledged fix is never lost (issue 3): simulated Teltonika trackers send over real TCP to
 * a real server process; the server is killed with SIGKILL mid-stream; after a restart every fix a
 * tracker saw acknowledged is in the store. Prints acknowledged vs stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSql } from '../helpers/sql.ts';
import { seedFleet, startChildServer, stopChildServers, streamFleet } from '../helpers/child-server.ts';

const dirs: string[] = [];
afterAll(async () => {
  await stopChildServers();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('kill -9 while trackers send', () => {
  it('keeps every acknowledged fix', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fsm-crash-'));
    dirs.push(dataDir);
    const { dbFile, deviceIds } = await seedFleet(dataDir, 'crash@example.com', 20);
    const { proc, port } = await startChildServer(dataDir);
    const fleet = streamFleet(port, deviceIds, 2);
    // Let data flow, then kill the server without warning while packets are in flight.
    await fleet.until(5000);
    proc.kill('SIGKILL');
    await new Promise((r) => proc.once('exit', r));
    const ackedSnapshot = fleet.snapshot();
    await fleet.stop();

    // Restart: the server opens the same file (WAL recovery), then we count.
    const again = await startChildServer(dataDir);
    const sql = openSql(dbFile);
    let ackedCount = 0;
    let missing = 0;
    const has = sql.prepare('SELECT 1 FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ? AND f.time = ?').pluck();
    for (const [deviceId, times] of ackedSnapshot) {
      for (const t of times) {
        ackedCount++;
        if (!has.get(deviceId, t)) missing++;
      }
    }
    const stored = sql.prepare('SELECT COUNT(*) FROM fixes').pluck().get() as number;
    console.log(`kill -9: ${ackedCount} fixes acknowledged before the kill, ${stored} stored after restart, ${missing} acknowledged but missing`);
    sql.close();
    again.proc.kill('SIGKILL');
    expect(ackedCount).toBeGreaterThan(1000);
    expect(missing).toBe(0);
    expect(stored).toBeGreaterThanOrEqual(ackedCount);
  }, 300_000); // two server starts and a 5000-fix stream: room for a loaded machine (about 10 s alone)
});
