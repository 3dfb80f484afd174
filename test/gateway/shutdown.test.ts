/**
 * Graceful stop (issue 15): simulated Teltonika trackers stream over real TCP and API calls run
 * while the server process gets SIGTERM. Every frame the server read is committed and its
 * acknowledgement reaches the device before the socket closes, so after a restart the store holds
 * exactly the fixes the trackers saw acknowledged: none missing, none that a tracker must send
 * again (which would store it twice). Every API call either got its whole answer or was refused
 * before it was taken.
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

describe('SIGTERM while trackers send and API calls run', () => {
  it('acknowledges every frame it committed before closing, answers every call it took, and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fsm-shutdown-'));
    dirs.push(dataDir);
    const trackers = 20;
    const { dbFile, deviceIds } = await seedFleet(dataDir, 'stop@example.com', trackers);
    const server = await startChildServer(dataDir);
    const auth = (await (await fetch(`${server.apiUrl}/v2/fsm/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'stop@example.com', password: 'pw' }) })).json()) as { hash: string };
    expect(auth.hash).toBeTruthy();

    const fleet = streamFleet(server.port, deviceIds);

    // API calls in a loop on four keep-alive clients: each either answered whole or refused.
    let answered = 0;
    let refused = 0;
    const bad: string[] = [];
    let calling = true;
    const callers = Array.from({ length: 4 }, async () => {
      while (calling) {
        try {
          const res = await fetch(`${server.apiUrl}/v2/fsm/tracker/list`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hash: auth.hash }) });
          const body = (await res.json()) as { success: boolean; list?: unknown[] };
          if (res.status === 200 && body.success && body.list?.length === trackers) answered++;
          else bad.push(`${res.status} ${JSON.stringify(body).slice(0, 200)}`);
        } catch {
          refused++; // the server stopped taking calls (connection refused or closed before an answer began)
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    });

    await fleet.until(5000);
    const exited = new Promise<number | null>((r) => server.proc.once('exit', (code) => r(code)));
    const signalled = Date.now();
    server.proc.kill('SIGTERM');
    const code = await exited;
    const stopMs = Date.now() - signalled;
    calling = false;
    await Promise.all(callers);
    const ackedSnapshot = fleet.snapshot();
    await fleet.stop();

    const again = await startChildServer(dataDir);
    const sql = openSql(dbFile);
    const storedOf = sql.prepare('SELECT f.time FROM fixes f JOIN sources s ON s.id = f.source_id WHERE s.device_id = ? ORDER BY f.time').pluck();
    let ackedCount = 0;
    let missing = 0;
    let unacknowledged = 0;
    for (const d of deviceIds) {
      const stored = storedOf.all(d) as number[];
      const sent = new Set(ackedSnapshot.get(d) ?? []);
      ackedCount += sent.size;
      const have = new Set(stored);
      for (const t of sent) if (!have.has(t)) missing++;
      for (const t of stored) if (!sent.has(t)) unacknowledged++;
    }
    const duplicates = sql.prepare('SELECT COUNT(*) FROM (SELECT source_id, time FROM fixes GROUP BY source_id, time HAVING COUNT(*) > 1)').pluck().get() as number;
    sql.close();
    again.proc.kill('SIGKILL');
    console.log(`SIGTERM: exit ${code} after ${stopMs} ms; ${ackedCount} fixes acknowledged, ${missing} missing, ${unacknowledged} stored but never acknowledged, ${duplicates} duplicates; API: ${answered} answered, ${refused} refused, ${bad.length} bad`);
    expect(code).toBe(0);
    expect(stopMs).toBeLessThan(20_000); // FSM_SHUTDOWN_SECONDS (10 s) plus start-up of the stop
    expect(ackedCount).toBeGreaterThan(1000);
    expect(missing).toBe(0);
    // The point of the graceful stop: a committed frame is always acknowledged before its socket closes.
    expect(unacknowledged).toBe(0);
    expect(duplicates).toBe(0);
    expect(bad).toEqual([]);
    expect(answered).toBeGreaterThan(0);
  }, 300_000); // room for a loaded machine (about 12 s alone)
});
