/**
 * bench/forward-drain (issue 13): the forwarding engine's own capacity, apart from ingest. A store is
 * filled with a backlog (every tracker bound to a Wialon IPS 2.0 and a JSON-over-HTTP retranslator,
 * fixes written as the gateway's writer writes them, so the forwarding log fills through its
 * triggers); then the engine runs in this process (as in its thread) and forwards the backlog to the
 * receivers of bench/forward.ts (a child process that counts and acknowledges). Prints the time each
 * retranslator took to empty its backlog and the fixes/s, and the CPU time the engine used. On a
 * loaded machine compare figures of the same run (or runs back to back), not absolute numbers.
 *   node --import tsx bench/forward-drain.ts [--trackers 1000] [--fixes 200000] [--only wialon|json]
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { FLAG, ROW, ROW_WIDTH } from '../src/core/point.ts';
import { ForwardingEngine } from '../src/forwarding/engine.ts';
import { bindTracker, createRetranslator } from '../src/forwarding/retranslators.ts';
import { openFixStore } from '../src/store/fixes.ts';
import { openStore } from '../src/store/index.ts';

const { values } = parseArgs({ options: { trackers: { type: 'string', default: '1000' }, fixes: { type: 'string', default: '200000' }, only: { type: 'string' } } });
const trackers = Number(values.trackers);
const total = Number(values.fixes);

const child = fork(fileURLToPath(new URL('./forward.ts', import.meta.url)), ['--receivers'], { execArgv: ['--import', 'tsx'] });
const ports = { wialon: 0, json: 0 };
const got = { wialon: 0, json: 0 };
child.on('message', (m: { ports?: typeof ports; got?: typeof got }) => {
  if (m.ports) Object.assign(ports, m.ports);
  if (m.got) Object.assign(got, m.got);
});
process.once('exit', () => child.kill());
while (!ports.json) await new Promise((r) => setTimeout(r, 50));

const dir = mkdtempSync(join(tmpdir(), 'fsm-drain-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const dbFile = loadConfig({ FSM_DATA_DIR: dir }).dbFile;
const store = openStore(dbFile);
const userId = store.users.create({ login: 'bench@example.com', passwordHash: 'x', now: Date.now() });
const user = store.users.get(userId)!;
const kinds = values.only ? [values.only] : ['wialon', 'json'];
const ids: Record<string, number> = {};
const sources: number[] = [];
store.transaction(() => {
  const tids = Array.from({ length: trackers }, (_, i) => store.trackers.add({ userId, deviceId: `88${String(i + 1).padStart(13, '0')}`, protocol: 'teltonika', label: `t${i}`, tariffId: 1, now: Date.now() }));
  if (kinds.includes('wialon')) ids.wialon = createRetranslator(store, user, { name: 'wialon', protocol_id: 1, address: '127.0.0.1', port: ports.wialon, password: 'pw', enabled: true });
  if (kinds.includes('json')) ids.json = createRetranslator(store, user, { name: 'json', protocol_id: 3, address: `http://127.0.0.1:${ports.json}/`, enabled: true });
  for (const tid of tids) {
    const t = store.trackers.get(userId, tid)!;
    sources.push(t.source_id);
    for (const r of Object.values(ids)) bindTracker(store, userId, r, t, null, Date.now());
  }
});

// the backlog: rounds of one fix per tracker, committed in groups as the writer thread does
const writer = openFixStore(dbFile, 'NORMAL');
const t0 = Date.UTC(2026, 10, 20);
const attrs = JSON.stringify({ input: 3, output: 0, fuel: 35.5, power: 12.7, ignition: true });
let written = 0;
const fillStart = performance.now();
for (let round = 0; written < total; round++) {
  const batches = [];
  for (let i = 0; i < trackers && written < total; i++, written++) {
    const v = new Float64Array(ROW_WIDTH).fill(NaN);
    v[ROW.source] = sources[i];
    v[ROW.time] = t0 + round * 1000;
    v[ROW.lat] = 55.75 + i * 1e-3 + round * 1e-5;
    v[ROW.lng] = 37.61 + round * 1e-5;
    v[ROW.alt] = 120;
    v[ROW.speed] = 40;
    v[ROW.course] = 90;
    v[ROW.satellites] = 9;
    v[ROW.hdop] = 0.9;
    v[ROW.flags] = FLAG.valid;
    batches.push({ values: v, attrs: [attrs], latest: null });
  }
  writer.fixes.write(batches, Date.now());
}
writer.close();
console.log(`backlog: ${written.toLocaleString('en')} fixes of ${trackers} trackers written in ${((performance.now() - fillStart) / 1000).toFixed(1)} s; retranslators: ${kinds.join(', ')}`);

// forward: the engine over its own connection, as in its thread
const engineStore = openStore(dbFile);
const engine = new ForwardingEngine(engineStore, { backoffMinMs: 100, backoffMaxMs: 1000, timeoutMs: 30_000, pollMs: 20, refreshMs: 1000 });
const cpu0 = process.cpuUsage();
const start = performance.now();
engine.start();
const done: Record<string, number> = {};
const base = { ...got };
while (Object.keys(done).length < kinds.length && performance.now() - start < 300_000) {
  await new Promise((r) => setTimeout(r, 100));
  for (const k of kinds) if (done[k] === undefined && got[k as keyof typeof got] - base[k as keyof typeof got] >= written) done[k] = (performance.now() - start) / 1000;
}
const cpu = process.cpuUsage(cpu0);
await engine.stop();
for (const k of kinds) console.log(`${k.padEnd(6)}: ${written.toLocaleString('en')} fixes in ${done[k]?.toFixed(1) ?? '>300'} s = ${done[k] ? Math.round(written / done[k]).toLocaleString('en') : '?'} fixes/s`);
const cpuS = (cpu.user + cpu.system) / 1e6;
console.log(`engine CPU: ${cpuS.toFixed(1)} s over ${((performance.now() - start) / 1000).toFixed(1)} s wall (${Math.round((cpuS * 1e6) / (written * kinds.length))} µs per forwarded fix and retranslator); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
engineStore.close();
store.close();
child.kill();
process.exit(0);
