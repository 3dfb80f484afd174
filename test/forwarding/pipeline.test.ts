/**
 * The engine in-process over a real store (issue 13, docs/retranslators.md, "Per fix"): several batches
 * on the wire per connection, a receiver that drops connections mid-pipeline, and the one read of the
 * log shared by two retranslators of the same trackers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { FLAG, ROW, ROW_WIDTH } from '../../src/core/point.ts';
import { ForwardingEngine } from '../../src/forwarding/engine.ts';
import { bindTracker, createRetranslator } from '../../src/forwarding/retranslators.ts';
import { openFixStore } from '../../src/store/fixes.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { waitFor } from './helpers.ts';
import { WialonReceiver, type Received } from './wialon-receiver.ts';

const T0 = Date.UTC(2026, 10, 20, 8);
const TRACKERS = ['CAR-A', 'CAR-B', 'CAR-C'];
const ROUNDS = 300;

let dir: string;
let store: Store;
const receivers: WialonReceiver[] = [];
const rids: number[] = [];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fsm-pipeline-'));
  const dbFile = loadConfig({ FSM_DATA_DIR: dir }).dbFile;
  store = openStore(dbFile);
  const userId = store.users.create({ login: 'ann@example.com', passwordHash: 'x', now: Date.now() });
  const user = store.users.get(userId)!;
  for (let i = 0; i < 2; i++) {
    const rx = new WialonReceiver('2.0');
    await rx.start();
    receivers.push(rx);
    rids.push(createRetranslator(store, user, { name: `R${i}`, protocol_id: 1, address: '127.0.0.1', port: rx.port, password: 'pw', enabled: true }));
  }
  const sources: number[] = [];
  for (const d of TRACKERS) {
    const tid = store.trackers.add({ userId, deviceId: d, protocol: 'wialon', label: d, tariffId: 1, now: Date.now() });
    const t = store.trackers.get(userId, tid)!;
    sources.push(t.source_id);
    for (const r of rids) bindTracker(store, userId, r, t, null, Date.now());
  }
  // the backlog, committed as the gateway's writer commits (its triggers write the log)
  const writer = openFixStore(dbFile, 'NORMAL');
  for (let round = 0; round < ROUNDS; round += 30) {
    const batches = [];
    for (let k = round; k < round + 30; k++)
      for (const source of sources) {
        const v = new Float64Array(ROW_WIDTH).fill(NaN);
        v[ROW.source] = source;
        v[ROW.time] = T0 + k * 1000;
        v[ROW.lat] = 55 + k * 1e-4;
        v[ROW.lng] = 37;
        v[ROW.speed] = 40;
        v[ROW.flags] = FLAG.valid;
        batches.push({ values: v, attrs: [JSON.stringify({ n: k })], latest: null });
      }
    writer.fixes.write(batches, Date.now());
  }
  writer.close();
});
afterAll(async () => {
  for (const r of receivers) await r.stop();
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Each fix's first arrival, in arrival order. */
const firstArrivals = (got: Received[]) => [...new Set(got.map((r) => r.time))];
const sent = Array.from({ length: ROUNDS }, (_, k) => T0 + k * 1000);

describe('pipelined batches', () => {
  it('keep per-tracker order and lose nothing when the receiver drops connections mid-pipeline; one log read serves both retranslators', async () => {
    const [dropping, steady] = receivers;
    // batches of 60 fixes (20 per tracker: one #B# packet per tracker and batch), up to 4 on the wire
    dropping.dropAtPacket.set('CAR-A', 3);
    dropping.dropAtPacket.set('CAR-B', 7);
    const engine = new ForwardingEngine(store, { backoffMinMs: 20, backoffMaxMs: 100, timeoutMs: 5000, pollMs: 20, refreshMs: 200, batchLimit: 60, logReader: { blockRows: 50, keepRows: 1000 } });
    engine.start();
    try {
      for (const rx of receivers)
        await waitFor('every fix at both receivers', () => TRACKERS.every((u) => firstArrivals(rx.units(u)).length === ROUNDS), 30_000);
      await waitFor('backlogs counted empty', () => rids.every((id) => engine.status(id)?.backlog === 0 && engine.status(id)?.forwarded), 10_000);
    } finally {
      await engine.stop();
    }
    for (const rx of receivers) {
      expect(rx.crcErrors).toEqual([]);
      for (const u of TRACKERS) expect(firstArrivals(rx.units(u))).toEqual(sent);
    }
    // the drops happened (twice, each on a connection with later batches written) and cost resending only
    expect(dropping.dropAtPacket.size).toBe(0);
    expect(dropping.logins.length).toBeGreaterThanOrEqual(TRACKERS.length + 2);
    expect(steady.received.length).toBe(TRACKERS.length * ROUNDS);
    // nothing is acknowledged twice by the store: the cursors passed every entry
    for (const id of rids) expect(store.retranslators.backlog(id)).toBe(0);
    // both retranslators (and the restarts after the drops) took their fixes from the same blocks, kept
    // in memory here: every entry was read from the store once
    expect(engine.reader.counts.served).toBeGreaterThanOrEqual(2 * TRACKERS.length * ROUNDS);
    expect(engine.reader.counts.read).toBe(TRACKERS.length * ROUNDS);
  });
});
