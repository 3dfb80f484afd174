/**
 * bench/forward-drain (issue 13): the forwarding engine's own capacity, apart from ingest. A store is
 * filled with a backlog (every tracker bound to a Wialon IPS 2.0 and a JSON-over-HTTP retranslator,
 * fixes written as the gateway's writer writes them, so the forwarding log fills through its
 * triggers); then the engine runs in this process (as in its thread) and forwards the backlog to the
 * receivers of bench/forward.ts (a child process that counts and acknowledges). Prints the time each
 * retranslator took to empty its backlog and the fixes/s, and the CPU time the engine used. On a
 * loaded machine compare figures of the same run (or runs back to back), not absolute numbers.
 *   node --import tsx bench/forward-drain.ts [--trackers 1000] [--fixes 200000] [--only wialon|json]
 * `--live <fixes/s>`: no backlog first; the gateway's writer thread (FixWriter) commits while the engine
 * runs (a fix per tracker in turn, submitted every 10 ms at that rate) and hands each commit off to the
 * engine in memory over the same bounded channel as in the server (`--hand-off off`: no hand-off, the
 * engine reads everything from the store); the fixes are packed and submitted in a thread of their own
 * (forward-drain-feed.ts), so the engine's CPU is this thread's (Linux). `--poll <ms>`: how often a
 * caught-up retranslator looks for new fixes (FSM_FORWARD_POLL_MS; the server's default is 100).
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
import { boundedChannel, receive } from '../src/core/bounded-channel.ts';
import { HAND_OFF_ROWS } from '../src/forwarding/service.ts';
import { startWorker } from '../src/gateway/worker-thread.ts';
import type { CommittedLog } from '../src/store/retranslators.ts';
import { readFileSync } from 'node:fs';

/** This (main) thread's CPU time in ms, user and system (the kernel's share: socket writes and reads), from its /proc task (clock ticks of 10 ms). */
function threadCpuMs(): { user: number; system: number } {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) * 10, system: Number(f[12]) * 10 };
}

const { values } = parseArgs({
  options: { trackers: { type: 'string', default: '1000' }, fixes: { type: 'string', default: '200000' }, only: { type: 'string' }, live: { type: 'string' }, 'hand-off': { type: 'string', default: 'on' }, poll: { type: 'string', default: '20' } },
});
const live = values.live ? Number(values.live) : 0;
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
/** The next `n` fixes: one per tracker in turn, a second apart per round. */
function nextFixes(n: number) {
  const batches = [];
  for (let k = 0; k < n && written < total; k++, written++) {
    const i = written % trackers;
    const round = Math.floor(written / trackers);
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
  return batches;
}
const fillStart = performance.now();
if (!live) {
  while (written < total) writer.fixes.write(nextFixes(trackers), Date.now());
  writer.close();
  console.log(`backlog: ${written.toLocaleString('en')} fixes of ${trackers} trackers written in ${((performance.now() - fillStart) / 1000).toFixed(1)} s; retranslators: ${kinds.join(', ')}`);
}

// forward: the engine over its own connection, as in its thread
const engineStore = openStore(dbFile);
const engine = new ForwardingEngine(engineStore, { backoffMinMs: 100, backoffMaxMs: 1000, timeoutMs: 30_000, pollMs: Number(values.poll), refreshMs: 1000 });
const handOff = values['hand-off'] !== 'off';
writer.fixes.handOff = handOff;
const cpu0 = process.cpuUsage();
const start = performance.now();
engine.start();
await engine.changed();
const done: Record<string, number> = {};
const base = { ...got };
let maxBehind = 0;
const thread0 = threadCpuMs();
if (live) {
  writer.close();
  const ch = handOff ? boundedChannel(HAND_OFF_ROWS) : null;
  if (ch) engine.reader.handOffFrom(receive<CommittedLog>(ch.receiver, (c) => c.attrs.length, (c) => engine.offer(c)).pending);
  const feed = startWorker(new URL('./forward-drain-feed.ts', import.meta.url), { dbFile, sources, rate: live, total, t0, attrs, handOff: ch?.sender }, { transferList: ch ? [ch.sender.port] : [] });
  const took = await new Promise<number>((resolve, reject) => {
    feed.on('error', reject);
    feed.on('message', (m: { written: number; done?: number }) => {
      written = m.written;
      for (const k of kinds) maxBehind = Math.max(maxBehind, written - (got[k as keyof typeof got] - base[k as keyof typeof got]));
      if (m.done !== undefined) resolve(m.done);
    });
  });
  await feed.terminate();
  console.log(`live: ${written.toLocaleString('en')} fixes of ${trackers} trackers committed at ${live.toLocaleString('en')} fixes/s in ${took.toFixed(1)} s, poll ${values.poll} ms, hand-off ${handOff ? 'on' : 'off'}; retranslators: ${kinds.join(', ')}; largest backlog seen ${maxBehind.toLocaleString('en')}`);
}
while (Object.keys(done).length < kinds.length && performance.now() - start < 300_000) {
  await new Promise((r) => setTimeout(r, 100));
  for (const k of kinds) if (done[k] === undefined && got[k as keyof typeof got] - base[k as keyof typeof got] >= written) done[k] = (performance.now() - start) / 1000;
}
// the engine's thread alone where the writer thread ran beside it (live)
const thread1 = threadCpuMs();
const cpu = live ? { user: (thread1.user - thread0.user) * 1000, system: (thread1.system - thread0.system) * 1000 } : process.cpuUsage(cpu0);
const counts = engine.reader.counts;
await engine.stop();
for (const k of kinds) console.log(`${k.padEnd(6)}: ${written.toLocaleString('en')} fixes in ${done[k]?.toFixed(1) ?? '>300'} s = ${done[k] ? Math.round(written / done[k]).toLocaleString('en') : '?'} fixes/s`);
const cpuS = (cpu.user + cpu.system) / 1e6;
console.log(`log entries: ${counts.read.toLocaleString('en')} read from the store, ${counts.offered.toLocaleString('en')} handed off (${counts.refused.toLocaleString('en')} refused)`);
console.log(`engine CPU: ${cpuS.toFixed(1)} s over ${((performance.now() - start) / 1000).toFixed(1)} s wall (${Math.round((cpuS * 1e6) / (written * kinds.length))} µs per forwarded fix and retranslator, of which system ${Math.round(cpu.system / (written * kinds.length))}); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
engineStore.close();
store.close();
child.kill();
process.exit(0);
