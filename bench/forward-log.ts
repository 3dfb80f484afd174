/**
 * bench/forward-log (issue 13): what the forwarding log costs the gateway's writer. The same fixes
 * (rounds of one fix per tracker, committed in groups of 50 per tracker as the writer thread commits
 * them) are written to a store whose trackers are not bound and to one where every tracker is bound to
 * two retranslators (the log triggers append one entry per fix), alternately; prints the writer's CPU
 * per fix for each. Nothing forwards meanwhile: this is the writer's side alone.
 *   node --import tsx bench/forward-log.ts [--trackers 200] [--fixes 100000] [--runs 3]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { FLAG, ROW, ROW_WIDTH } from '../src/core/point.ts';
import { bindTracker, createRetranslator } from '../src/forwarding/retranslators.ts';
import { openFixStore } from '../src/store/fixes.ts';
import { openStore } from '../src/store/index.ts';

const { values } = parseArgs({ options: { trackers: { type: 'string', default: '200' }, fixes: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' } } });
const trackers = Number(values.trackers);
const total = Number(values.fixes);
const attrs = JSON.stringify({ input: 3, output: 0, fuel: 35.5, power: 12.7, ignition: true });

function once(bound: boolean): number {
  const dir = mkdtempSync(join(tmpdir(), 'fsm-fwdlog-'));
  try {
    const dbFile = loadConfig({ FSM_DATA_DIR: dir }).dbFile;
    const store = openStore(dbFile);
    const userId = store.users.create({ login: 'bench@example.com', passwordHash: 'x', now: Date.now() });
    const user = store.users.get(userId)!;
    const sources: number[] = [];
    store.transaction(() => {
      const r = bound ? [1, 2].map((k) => createRetranslator(store, user, { name: `r${k}`, protocol_id: 1, address: '127.0.0.1', port: 20000 + k, password: 'pw', enabled: false })) : [];
      for (let i = 0; i < trackers; i++) {
        const tid = store.trackers.add({ userId, deviceId: `89${String(i + 1).padStart(13, '0')}`, protocol: 'teltonika', label: `t${i}`, tariffId: 1, now: Date.now() });
        const t = store.trackers.get(userId, tid)!;
        sources.push(t.source_id);
        for (const id of r) bindTracker(store, userId, id, t, null, Date.now());
      }
    });
    store.close();
    const writer = openFixStore(dbFile, 'NORMAL');
    const t0 = Date.UTC(2026, 10, 20);
    const perPacket = 50;
    let written = 0;
    const cpu0 = process.cpuUsage();
    for (let round = 0; written < total; round++) {
      const batches = [];
      for (let i = 0; i < trackers && written < total; i++) {
        const n = Math.min(perPacket, total - written);
        const v = new Float64Array(ROW_WIDTH * n).fill(NaN);
        for (let k = 0; k < n; k++) {
          const o = k * ROW_WIDTH;
          v[o + ROW.source] = sources[i];
          v[o + ROW.time] = t0 + (round * perPacket + k) * 1000;
          v[o + ROW.lat] = 55.75 + i * 1e-3 + k * 1e-5;
          v[o + ROW.lng] = 37.61 + k * 1e-5;
          v[o + ROW.speed] = 40;
          v[o + ROW.satellites] = 9;
          v[o + ROW.flags] = FLAG.valid;
        }
        written += n;
        batches.push({ values: v, attrs: Array(n).fill(attrs), latest: null });
      }
      writer.fixes.write(batches, Date.now());
    }
    const cpu = process.cpuUsage(cpu0);
    writer.close();
    return (cpu.user + cpu.system) / written;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Record<string, number[]> = { unbound: [], bound: [] };
for (let r = 0; r < Number(values.runs); r++) {
  results.unbound.push(once(false));
  results.bound.push(once(true));
}
const f = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
console.log(`writer CPU per fix (${trackers} trackers, ${total.toLocaleString('en')} fixes, µs): unbound ${f(results.unbound)}; bound to two retranslators ${f(results.bound)}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
