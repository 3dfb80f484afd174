/**
 * bench/live-snapshot (issue 26, docs/live.md): what the live channel's hub costs the event loop
 * for a fleet of --trackers (default 5,000) with a state each: the first snapshot a subscribe sends
 * (cold: every state read and serialized; warm: a second client of another session, from the
 * cache), and one period in which every tracker changed, with --clients (default 10) subscribers.
 *   node --import tsx bench/live-snapshot.ts [--trackers 5000] [--clients 10]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { openStore } from '../src/store/index.ts';
import { openDatabase } from '../src/store/db.ts';
import { createMailer } from '../src/mail/mailer.ts';
import { LiveHub, type LiveSink } from '../src/api/live-hub.ts';
import type { Services } from '../src/api/kernel.ts';

const { values } = parseArgs({ options: { trackers: { type: 'string', default: '5000' }, clients: { type: 'string', default: '10' } } });
const n = Number(values.trackers);
const clients = Number(values.clients);
const dir = mkdtempSync(join(tmpdir(), 'fsm-live-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const config = loadConfig({ FSM_DATA_DIR: dir });
const store = openStore(config.dbFile);
const now = Date.now();
const userId = store.users.create({ login: 'live@example.com', passwordHash: 'x', now });
const user = store.users.get(userId)!;
const sources: number[] = [];
store.transaction(() => {
  for (let i = 0; i < n; i++) {
    const id = store.trackers.add({ userId, deviceId: `99${String(i).padStart(13, '0')}`, protocol: 'teltonika', label: `t${i}`, tariffId: 1, now });
    sources.push(store.trackers.getAny(id)!.source_id);
  }
});
const db = openDatabase(config.dbFile);
const put = db.prepare('INSERT INTO device_state (source_id, fix_time, lat, lng, alt, speed, course, satellites, precision, last_time, attrs, updated) VALUES (?, ?, ?, ?, 120, 42, 90, 9, NULL, ?, ?, ?)');
const attrs = JSON.stringify({ ignition: [true, now], power: [13.8, now], batteryLevel: [90, now], rssi: [4, now], in1: [true, now], out1: [false, now], odometer: [1234567, now] });
db.transaction(() => sources.forEach((source, i) => put.run(source, now - 1000, 54.6 + i * 1e-4, 25.2, now - 1000, attrs, now)))();
db.close();
const services = { config, store, mailer: createMailer(config.mail), now: Date.now } as unknown as Services;
const hub = new LiveHub(services);
let bytes = 0;
let messages = 0;
const sink: LiveSink = { send: (t) => ((bytes += t.length), messages++), buffered: () => 0, end: () => undefined };
const principal = { user, owner: user };
/** Runs `f` until `expected` messages were sent: total ms, and the longest the event loop was held in one go. */
async function measure(f: () => void, expected: number): Promise<{ total: number; longest: number; cpu: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let last = t0;
  let longest = 0;
  f();
  longest = performance.now() - t0;
  while (messages < expected) {
    await new Promise((r) => setImmediate(r));
    const t = performance.now();
    longest = Math.max(longest, t - last);
    last = t;
  }
  const cpu = process.cpuUsage(cpu0);
  return { total: performance.now() - t0, longest, cpu: (cpu.user + cpu.system) / 1000 };
}
// CPU time is the figure that does not depend on what else the machine runs
const fmt = (m: { total: number; longest: number; cpu: number }) => `${m.cpu.toFixed(0)} ms of CPU over ${m.total.toFixed(0)} ms (the event loop held at most ${m.longest.toFixed(0)} ms at a time)`;
const subs = Array.from({ length: clients }, (_, i) => hub.connect(sink, `h${i}`, principal));
// the clients' sessions are not real: check() would log them out; the bench measures the sending
for (const c of subs) c.check = async () => true;
const first: Awaited<ReturnType<typeof hub.subscribe>>['sub'][] = [];
for (const c of subs) first.push((await hub.subscribe(c, 'state_batch', { type: 'all' }, 'full', 3_600_000)).sub);
const cold = await measure(() => first[0].flush(), 1);
const firstBytes = bytes;
const warm = await measure(() => first[1].flush(), 2);
await measure(() => first.slice(2).forEach((s) => s.flush()), clients);
bytes = 0;
messages = 0;
for (const s of sources) hub.changed(s);
const period = await measure(() => first.forEach((s) => s.flush()), clients);
console.log(`${n.toLocaleString('en')} trackers: first snapshot ${fmt(cold)} cold (${(firstBytes / 1024 / 1024).toFixed(1)} MiB, one message), ${fmt(warm)} for another subscriber from the cache`);
console.log(`a period in which all ${n.toLocaleString('en')} changed, ${clients} subscribers: ${fmt(period)}, ${messages} messages, ${(bytes / clients / 1024 / 1024).toFixed(1)} MiB each`);
for (const c of subs) hub.drop(c);
store.close();
