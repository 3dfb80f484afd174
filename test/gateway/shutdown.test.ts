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
import { createUser } from '../../src/accounts/accounts.ts';
import { loadConfig } from '../../src/config.ts';
import { createMailer } from '../../src/mail/mailer.ts';
import { runSimulation } from '../../src/simulator/index.ts';
import { openStore } from '../../src/store/index.ts';
import { openSql } from '../helpers/sql.ts';
import { startChildServer, stopChildServers } from '../helpers/child-server.ts';

const dirs: string[] = [];
afterAll(async () => {
  await stopChildServers();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('SIGTERM while trackers send and API calls run', () => {
  it('acknowledges every frame it committed before closing, answers every call it took, and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fsm-shutdown-'));
    dirs.push(dataDir);
    const config = loadConfig({ FSM_DATA_DIR: dataDir });
    const trackers = 20;
    const deviceIds = Array.from({ length: trackers }, (_, i) => `35${String(i + 1).padStart(13, '0')}`);
    {
      const store = openStore(config.dbFile);
      const { id } = await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: 'stop@example.com', password: 'pw' });
      for (const d of deviceIds) store.trackers.add({ userId: id, deviceId: d, protocol: 'teltonika', label: d, tariffId: 1, now: Date.now() });
      store.close();
    }
    const server = await startChildServer(dataDir);
    const auth = (await (await fetch(`${server.apiUrl}/v2/fsm/user/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'stop@example.com', password: 'pw' }) })).json()) as { hash: string };
    expect(auth.hash).toBeTruthy();

    const acked = new Map<string, number[]>();
    const abort = new AbortController();
    const sim = runSimulation({
      protocol: 'teltonika',
      trackers,
      interval: 0,
      duration: 60,
      host: '127.0.0.1',
      port: server.port,
      deviceIds,
      recordsPerPacket: 20,
      signal: abort.signal,
      ackTimeout: 5,
      drainTimeout: 0,
      onAck: (deviceId, records) => {
        const list = acked.get(deviceId) ?? [];
        for (const r of records) list.push(r.time);
        acked.set(deviceId, list);
      },
    });

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

    const until = Date.now() + 20_000;
    while ([...acked.values()].reduce((n, l) => n + l.length, 0) < 5000 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const exited = new Promise<number | null>((r) => server.proc.once('exit', (code) => r(code)));
    const signalled = Date.now();
    server.proc.kill('SIGTERM');
    const code = await exited;
    const stopMs = Date.now() - signalled;
    calling = false;
    await Promise.all(callers);
    abort.abort();
    await sim.catch(() => undefined);
    const ackedSnapshot = new Map([...acked].map(([k, v]) => [k, [...v]]));

    const again = await startChildServer(dataDir);
    const sql = openSql(config.dbFile);
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
  }, 120_000);
});
