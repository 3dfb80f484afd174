/**
 * An acknowledged fix is never lost (issue 3): simulated Teltonika trackers send over real TCP to
 * a real server process; the server is killed with SIGKILL mid-stream; after a restart every fix a
 * tracker saw acknowledged is in the store. Prints acknowledged vs stored.
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

describe('kill -9 while trackers send', () => {
  it('keeps every acknowledged fix', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fsm-crash-'));
    dirs.push(dataDir);
    const config = loadConfig({ FSM_DATA_DIR: dataDir });
    const trackers = 20;
    const deviceIds = Array.from({ length: trackers }, (_, i) => `35${String(i + 1).padStart(13, '0')}`);
    {
      const store = openStore(config.dbFile);
      const { id } = await createUser({ store, config, mailer: createMailer(config.mail), now: Date.now }, { login: 'crash@example.com', password: 'pw' });
      for (const d of deviceIds) store.trackers.add({ userId: id, deviceId: d, protocol: 'teltonika', label: d, tariffId: 1, now: Date.now() });
      store.close();
    }
    const { proc, port } = await startChildServer(dataDir);
    const acked = new Map<string, number[]>();
    const abort = new AbortController();
    const sim = runSimulation({
      protocol: 'teltonika',
      trackers,
      interval: 0,
      duration: 30,
      host: '127.0.0.1',
      port,
      deviceIds,
      recordsPerPacket: 20,
      signal: abort.signal,
      ackTimeout: 2,
      drainTimeout: 0,
      onAck: (deviceId, records) => {
        const list = acked.get(deviceId) ?? [];
        for (const r of records) list.push(r.time);
        acked.set(deviceId, list);
      },
    });
    // Let data flow, then kill the server without warning while packets are in flight.
    const until = Date.now() + 20_000;
    while ([...acked.values()].reduce((n, l) => n + l.length, 0) < 5000 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    proc.kill('SIGKILL');
    await new Promise((r) => proc.once('exit', r));
    const ackedSnapshot = new Map([...acked].map(([k, v]) => [k, [...v]]));
    abort.abort();
    await sim.catch(() => undefined);

    // Restart: the server opens the same file (WAL recovery), then we count.
    const again = await startChildServer(dataDir);
    const sql = openSql(config.dbFile);
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
  });
});
