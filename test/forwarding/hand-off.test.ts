/**
 * The writer's hand-off to the forwarding engine (docs/retranslators.md "Hand-off"): a commit's log
 * entries with their fixes, as the writer packed them, are the rows the store read would give; commits
 * that merged or were late are not handed off; the engine's kept blocks take hand-offs without
 * overlapping what it read; and an engine fed from memory (with hand-offs missing here and there, as
 * when the bounded channel drops them) sends every receiver the same messages, in the same order per
 * tracker, as one reading everything from the store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { FLAG, ROW, ROW_WIDTH } from '../../src/core/point.ts';
import { ForwardingEngine } from '../../src/forwarding/engine.ts';
import { LogReader, firstAfter } from '../../src/forwarding/log-reader.ts';
import { bindTracker, createRetranslator } from '../../src/forwarding/retranslators.ts';
import { openFixStore } from '../../src/store/fixes.ts';
import { openStore, type Store } from '../../src/store/index.ts';
import { logRowsOf, type CommittedLog, type LogRow } from '../../src/store/retranslators.ts';
import { waitFor } from './helpers.ts';
import { WialonReceiver } from './wialon-receiver.ts';

const T0 = Date.UTC(2026, 10, 20, 8);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A store with trackers (the first `bound` of them bound to the retranslators made by `make`). */
function setup(devices: string[], bound: number, make: (store: Store, user: NonNullable<ReturnType<Store['users']['get']>>) => number[] = () => []) {
  const dir = mkdtempSync(join(tmpdir(), 'fsm-handoff-'));
  dirs.push(dir);
  const dbFile = loadConfig({ FSM_DATA_DIR: dir }).dbFile;
  const store = openStore(dbFile);
  const userId = store.users.create({ login: 'ann@example.com', passwordHash: 'x', now: 1 });
  const user = store.users.get(userId)!;
  let rids = make(store, user);
  // a disabled retranslator: its bindings make the triggers log, nothing is sent
  if (!rids.length) rids = [createRetranslator(store, user, { name: 'R', protocol_id: 3, address: 'http://127.0.0.1:9/', enabled: false })];
  const sources: number[] = [];
  devices.forEach((d, i) => {
    const tid = store.trackers.add({ userId, deviceId: d, protocol: 'wialon', label: d, tariffId: 1, now: 1 });
    const t = store.trackers.get(userId, tid)!;
    sources.push(t.source_id);
    if (i < bound) for (const r of rids) bindTracker(store, userId, r, t, null, 1);
  });
  const writer = openFixStore(dbFile, 'NORMAL');
  writer.fixes.handOff = true;
  return { store, writer, sources };
}

/** One fix per (source, second) with varied members: nulls, attributes or none, flags. */
function rows(sources: number[], seconds: number[]) {
  return sources.flatMap((source, si) =>
    seconds.map((k) => {
      const v = new Float64Array(ROW_WIDTH).fill(NaN);
      v[ROW.source] = source;
      v[ROW.time] = T0 + k * 1000 + si;
      if (k % 5) {
        v[ROW.lat] = 55.7 + k * 1e-4;
        v[ROW.lng] = -37.1 - k * 1e-4;
        v[ROW.alt] = k % 3 ? 120.5 : NaN;
      }
      v[ROW.speed] = k % 4 ? 40 + k : NaN;
      v[ROW.course] = (k * 7) % 360;
      v[ROW.satellites] = 9;
      v[ROW.hdop] = k % 2 ? 0.9 : NaN;
      v[ROW.odometer] = k % 6 ? 1000 * k : NaN;
      v[ROW.flags] = FLAG.valid | (k % 3 ? 0 : FLAG.archive);
      return { values: v, attrs: [k % 4 ? JSON.stringify({ n: k, driverUniqueId: `d;${k}`, in1: k % 2 === 0 }) : null], latest: null };
    }),
  );
}

describe('the writer hands off what it committed', () => {
  it('gives the rows the store read gives, for the bound trackers only, in seq order', () => {
    const { store, writer, sources } = setup(['A', 'B', 'C'], 2);
    writer.fixes.write(rows(sources, [0, 1, 2, 3, 4, 5]), 1_000);
    const c = writer.fixes.logged!;
    expect(c.to - c.from).toBe(12);
    const fromStore = store.retranslators.entries(c.from, c.to, 1000).rows;
    expect(logRowsOf(c)).toEqual(fromStore);
    // a second commit goes on where the first ended
    writer.fixes.write(rows(sources, [6, 7]), 2_000);
    const d = writer.fixes.logged!;
    expect(d.from).toBe(c.to);
    expect(logRowsOf(d)).toEqual(store.retranslators.entries(d.from, d.to, 1000).rows);
  });

  it('hands off nothing for a commit that merged a repeated instant or took a late fix, nor for unbound trackers', () => {
    const { writer, sources } = setup(['A', 'B', 'C'], 2);
    writer.fixes.write(rows(sources, [10, 11]), 1_000);
    expect(writer.fixes.logged).not.toBeNull();
    writer.fixes.write(rows(sources.slice(0, 1), [11]), 2_000); // the same instant again: a merge
    expect(writer.fixes.logged).toBeNull();
    writer.fixes.write(rows(sources.slice(1, 2), [3]), 3_000); // older than the tracker's newest: late
    expect(writer.fixes.logged).toBeNull();
    writer.fixes.write(rows(sources.slice(2), [20]), 4_000); // unbound: nothing logged
    expect(writer.fixes.logged).toBeNull();
    writer.fixes.write(rows(sources, [21]), 5_000);
    expect(writer.fixes.logged?.attrs.length).toBe(2);
  });
});

describe('the engine keeps hand-offs beside what it reads', () => {
  const row = (seq: number) => [seq, 1, seq, 0, 0, null, null, null, null, null, null, 1, 0, null, null, null, null] as LogRow;
  const block = (from: number, to: number) => ({ from, to, rows: Array.from({ length: to - from }, (_, i) => row(from + 1 + i)) });
  function reader(maxSeq: () => number, keepRows = 1000) {
    const reads: Array<[number, number]> = [];
    const store = {
      retranslators: {
        maxSeq,
        entries(after: number, upTo: number, limit: number) {
          reads.push([after, upTo]);
          const b = block(after, Math.min(upTo, after + limit));
          return { rows: b.rows, to: b.to };
        },
      },
    } as unknown as Store;
    return { r: new LogReader(store, { blockRows: 100, keepRows }), reads };
  }
  const take = (r: LogReader, who: object, from: number) => {
    const seqs: number[] = [];
    for (let pos = from, b = r.next(pos, who); b; b = r.next(pos, who)) {
      for (const x of b.rows.slice(firstAfter(b.rows, pos))) seqs.push(x[0]);
      pos = b.to;
    }
    return seqs;
  };
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

  it('a caught-up reader takes handed-off entries without reading the store; a missed hand-off is read', () => {
    let max = 50;
    const { r, reads } = reader(() => max);
    const who = {};
    expect(take(r, who, 0)).toEqual(range(1, 50));
    expect(reads).toEqual([[0, 50]]);
    max = 80;
    expect(r.offer(block(50, 80))).toBe(true);
    max = 90; // (80, 90] was not handed off
    max = 120;
    expect(r.offer(block(90, 120))).toBe(true);
    expect(take(r, who, 50)).toEqual(range(51, 120));
    expect(reads).toEqual([[0, 50], [80, 90]]);
    expect(r.counts.offered).toBe(60);
  });

  it('cuts the head a read already has, refuses what a kept block covers, and over the budget drops passed blocks or refuses', () => {
    let max = 100;
    const { r } = reader(() => max, 150);
    const who = {};
    expect(take(r, who, 0)).toEqual(range(1, 100)); // read (0, 100] before the hand-off came
    max = 130;
    expect(r.offer(block(60, 130))).toBe(true); // kept from 100 on
    expect(r.offer(block(110, 120))).toBe(false);
    expect(take(r, who, 100)).toEqual(range(101, 130));
    // within the budget (150: the passed read block went to make room for the first hand-off)
    max = 250;
    expect(r.offer(block(130, 250))).toBe(true);
    // the reader has not passed what is kept now: refused
    expect(r.offer(block(250, 300))).toBe(false);
    expect(take(r, {}, 100)).toEqual(range(101, 250));
  });

  it('over the budget, a hand-off the caught-up reader is about to take is kept and the oldest block goes: only the reader behind reads the store', () => {
    let max = 150;
    const { r, reads } = reader(() => max, 150);
    const behind = {};
    const ahead = {};
    expect(take(r, behind, 0)).toEqual(range(1, 150));
    expect(reads).toEqual([[0, 100], [100, 150]]);
    reads.length = 0;
    expect(take(r, ahead, 0)).toEqual(range(1, 150)); // shared: nothing read
    expect(reads).toEqual([]);
    r.next(0, behind); // the reader behind is back at 0, the one ahead at 150
    max = 200;
    // 150 kept + 50 over the budget of 150: kept, the oldest block (0, 100] goes
    expect(r.offer(block(150, 200))).toBe(true);
    expect(take(r, ahead, 150)).toEqual(range(151, 200));
    expect(reads).toEqual([]);
    // it reads (0, 100] again; keeping that within the budget drops the oldest other block, (100, 150]
    expect(take(r, behind, 0)).toEqual(range(1, 200));
    expect(reads).toEqual([[0, 100], [100, 150]]);
  });
});

/** Every commit of `plan` into a fresh store bound to a Wialon IPS and a JSON receiver, with or without hand-offs. */
async function forwardAll(handOff: (commit: number) => boolean) {
  const wialon = new WialonReceiver('2.0');
  await wialon.start();
  const json: Array<Record<string, unknown>> = [];
  const http: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      json.push(...(JSON.parse(body) as { fixes: Array<Record<string, unknown>> }).fixes);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const jsonPort = (http.address() as { port: number }).port;
  const { store, writer, sources } = setup(['CAR-A', 'CAR-B', 'CAR-C', 'CAR-D'], 3, (s, user) => [
    createRetranslator(s, user, { name: 'ips', protocol_id: 1, address: '127.0.0.1', port: wialon.port, password: 'pw', enabled: true }),
    createRetranslator(s, user, { name: 'json', protocol_id: 3, address: `http://127.0.0.1:${jsonPort}/`, enabled: true }),
  ]);
  const engine = new ForwardingEngine(store, { backoffMinMs: 20, backoffMaxMs: 100, timeoutMs: 3000, pollMs: 10, refreshMs: 100, batchLimit: 25 });
  engine.start();
  await engine.changed();
  let total = 0;
  let offered = 0;
  for (let commit = 0; commit < 40; commit++) {
    writer.fixes.write(rows(sources, [commit * 3, commit * 3 + 1, commit * 3 + 2]), 1_000 + commit);
    total += 9;
    const c: CommittedLog | null = writer.fixes.logged;
    if (c && handOff(commit)) {
      engine.offer(c);
      offered++;
    }
    // now and then the engine catches up before the next commit
    if (commit % 4 === 0) await new Promise((r) => setTimeout(r, 15));
  }
  await waitFor('every fix at both receivers', () => wialon.received.length >= total && json.length >= total);
  const counts = { ...engine.reader.counts };
  await engine.stop();
  await wialon.stop();
  await new Promise((r) => http.close(r));
  writer.close();
  store.close();
  // per tracker, in arrival order (the first arrival of each: a resend after a failure would repeat)
  const ips = new Map<string, string[]>();
  for (const m of wialon.received) (ips.get(m.unit) ?? ips.set(m.unit, []).get(m.unit)!).push(m.message);
  const js = new Map<string, string[]>();
  for (const f of json) (js.get(String(f.device_id)) ?? js.set(String(f.device_id), []).get(String(f.device_id))!).push(JSON.stringify(f));
  return { ips, js, counts, offered, total, wialon: wialon.received.length, jsonCount: json.length };
}

describe('forwarding from hand-offs and from the store', () => {
  it('sends the same messages in the same order per tracker, with hand-offs missing here and there', async () => {
    const fromStore = await forwardAll(() => false);
    const fromMemory = await forwardAll((commit) => commit % 7 !== 3);
    expect(fromStore.counts.offered).toBe(0);
    expect(fromMemory.offered).toBeGreaterThan(30);
    // most entries came from memory: the store was read for the missed ones (and a race now and then)
    expect(fromMemory.counts.offered).toBeGreaterThan(fromMemory.counts.read);
    for (const r of [fromStore, fromMemory]) {
      expect(r.wialon).toBe(r.total);
      expect(r.jsonCount).toBe(r.total);
    }
    expect([...fromMemory.ips.keys()].sort()).toEqual(['CAR-A', 'CAR-B', 'CAR-C']);
    for (const unit of fromStore.ips.keys()) {
      expect(fromMemory.ips.get(unit)).toEqual(fromStore.ips.get(unit));
      expect(fromMemory.js.get(unit)).toEqual(fromStore.js.get(unit));
      expect(fromStore.ips.get(unit)!.length).toBe(120);
    }
  }, 30_000);
});
