/**
 * bench/ingest (issue 3): simulated Teltonika Codec 8 Extended trackers over loopback TCP against
 * a real server process. Prints
 *   - fixes/s acknowledged end to end (a fix counts once its ACK reached the tracker),
 *   - the indexed SQLite insert rate of the same rows through the same store code and durability,
 *     measured in the same run (the physical limit of this machine), and their ratio,
 *   - whether the telemetry pool keeps pace: fixes not yet processed at the end, and the drain time,
 *   - the server's RSS with 10,000 connections held open.
 *   - with --live N: N live-channel subscribers (state_batch of all trackers, rate_limit 1s, docs/live.md)
 *     watch during the run; the messages and states they got (at most one per tracker and second).
 * Targets on a 2-core machine: >= 100,000 acknowledged fixes/s (ratio >= 0.25); 10,000 connections in <= 1.5 GiB.
 *   node --import tsx bench/ingest.ts [--trackers 200] [--seconds 10] [--per-packet 50] [--connections 10000] [--interval 0] [--live 0]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.ts';
import { pack } from '../src/gateway/packing.ts';
import { runSimulation } from '../src/simulator/index.ts';
import { openDatabase } from '../src/store/db.ts';
import { FixStore } from '../src/store/fixes.ts';
import { openStore } from '../src/store/index.ts';
import type { DeviceRecord } from '../protocols/types.ts';
import { rssMiB, startTeltonikaServer } from './lib/server-process.ts';

const { values } = parseArgs({
  options: {
    trackers: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    'per-packet': { type: 'string', default: '50' },
    connections: { type: 'string', default: '10000' },
    // Seconds between a tracker's records; 0 floods (the most the server acknowledges).
    interval: { type: 'string', default: '0' },
    live: { type: 'string', default: '0' },
  },
});
const trackers = Number(values.trackers);
const seconds = Number(values.seconds);
const perPacket = Number(values['per-packet']);
const connections = Number(values.connections);
const interval = Number(values.interval);
const liveClients = Number(values.live);
const ids = (n: number) => Array.from({ length: n }, (_, i) => `86${String(i + 1).padStart(13, '0')}`);

/** A data directory with `n` registered Teltonika trackers, and a session of their user. */
function prepare(n: number): { dir: string; hash: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fsm-ingest-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const store = openStore(loadConfig({ FSM_DATA_DIR: dir }).dbFile);
  const user = store.users.create({ login: 'bench@example.com', passwordHash: 'x', now: Date.now() });
  store.transaction(() => {
    for (const d of ids(n)) store.trackers.add({ userId: user, deviceId: d, protocol: 'teltonika', label: d, tariffId: 1, now: Date.now() });
  });
  const hash = store.sessions.create(user, 'user', Date.now());
  store.close();
  return { dir, hash };
}

/** `n` live-channel clients subscribed to every tracker's state_batch; counts what they get. */
async function liveSubscribers(n: number, apiPort: number, hash: string) {
  const got = { messages: 0, states: 0, maxStates: 0 };
  const sockets = await Promise.all(
    Array.from({ length: n }, async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${apiPort}/v2/event/subscription`);
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.on('message', (d) => {
        const m = JSON.parse(d.toString());
        if (m.event !== 'state_batch') return;
        got.messages++;
        got.states += m.data.length;
        got.maxStates = Math.max(got.maxStates, m.data.length);
      });
      ws.send(JSON.stringify({ action: 'subscribe', hash, requests: [{ type: 'state_batch', target: { type: 'all' }, rate_limit: '1s' }] }));
      return ws;
    }),
  );
  return { got, close: () => sockets.forEach((ws) => ws.terminate()) };
}


/** The same rows, straight into SQLite through the writer's store code, FULL durability, batches as the gateway commits them. */
function rawInsertRate(rows: number, batch: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'fsm-raw-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase(join(dir, 'fsm.sqlite'));
  db.pragma('synchronous = FULL');
  const store = new FixStore(db);
  const t0 = Date.now() - 86_400_000;
  const records = (source: number, k: number): DeviceRecord[] =>
    Array.from({ length: perPacket }, (_, i) => ({ time: t0 + (k * perPacket + i) * 1000, lat: 54.6 + i * 1e-4, lng: 25.2 + i * 1e-4, altitude: 120, speed: 42, course: 90, satellites: 9, valid: true, attributes: { ignition: true, power: 13.8, battery: 4.1, odometer: 1234567 + i, in1: true, fuel: 45 } }));
  let written = 0;
  const start = performance.now();
  for (let k = 0; written < rows; k++) {
    const batches = [];
    for (let s = 1; s <= batch / perPacket; s++) batches.push(pack(s, records(s, k), Date.now()));
    written += store.write(batches, Date.now());
  }
  const rate = written / ((performance.now() - start) / 1000);
  db.close();
  return rate;
}

// 1. acknowledged fixes/s end to end
{
  const { dir, hash } = prepare(trackers);
  const { proc, port, apiPort } = await startTeltonikaServer(dir, process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF] : []);
  const live = liveClients ? await liveSubscribers(liveClients, apiPort, hash) : undefined;
  let acked = 0;
  let t0 = 0;
  let ackedAtStart = 0;
  const warmup = 2;
  const sim = runSimulation({ protocol: 'teltonika', trackers, interval, duration: seconds + warmup, host: '127.0.0.1', port, deviceIds: ids(trackers), recordsPerPacket: perPacket, drainTimeout: 0, onAck: (_d, r) => (acked += r.length) });
  await new Promise((r) => setTimeout(r, warmup * 1000));
  t0 = performance.now();
  ackedAtStart = acked;
  const liveAtStart = live && { ...live.got };
  const rssBefore = rssMiB(proc.pid!);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const rate = (acked - ackedAtStart) / ((performance.now() - t0) / 1000);
  const liveGot = live && { messages: live.got.messages - liveAtStart!.messages, states: live.got.states - liveAtStart!.states, maxStates: live.got.maxStates };
  live?.close();
  const rss = rssMiB(proc.pid!);
  // Does the telemetry pool keep pace? The fixes stored but not yet processed (newer than each
  // device's processed tail) at the end of the run, and how long they take to drain once it stops.
  const watch = openDatabase(loadConfig({ FSM_DATA_DIR: dir }).dbFile);
  const unprocessed = () =>
    watch.prepare('SELECT COUNT(*) FROM fixes f LEFT JOIN telemetry_tail t ON t.source_id = f.source_id WHERE f.lat IS NOT NULL AND (t.time IS NULL OR f.time > t.time)').pluck().get() as number;
  const behind = unprocessed();
  await sim;
  const drain0 = performance.now();
  while ((watch.prepare('SELECT COUNT(*) FROM telemetry_pending').pluck().get() as number) > 0) await new Promise((r) => setTimeout(r, 50));
  const drained = (performance.now() - drain0) / 1000;
  const total = watch.prepare('SELECT COUNT(*) FROM fixes').pluck().get() as number;
  watch.close();
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  const raw = rawInsertRate(Math.max(200_000, Math.round(rate * 2)), trackers * perPacket);
  console.log(`acknowledged end to end: ${Math.round(rate).toLocaleString('en')} fixes/s (${trackers} trackers, ${perPacket} records per packet, ${seconds} s; server RSS ${rssBefore.toFixed(0)}-${rss.toFixed(0)} MiB)`);
  console.log(`raw indexed SQLite insert (same rows, same store code, synchronous=FULL): ${Math.round(raw).toLocaleString('en')} rows/s`);
  console.log(`ratio ${(rate / raw).toFixed(2)} (targets: >= 100,000 fixes/s, ratio >= 0.25)`);
  if (liveGot) console.log(`live channel: ${liveClients} subscribers got ${liveGot.messages} state_batch messages with ${liveGot.states.toLocaleString('en')} states in ${seconds} s (${(liveGot.messages / liveClients / seconds).toFixed(2)} messages/s each; at most ${liveGot.maxStates} states in one, ${trackers} trackers)`);
  console.log(`telemetry pool: ${behind.toLocaleString('en')} fixes not yet processed at the end of the run (${(behind / rate).toFixed(2)} s of ingest); all ${total.toLocaleString('en')} processed ${drained.toFixed(1)} s after the trackers stopped`);
}

// 2. RSS with many connections held open (--connections 0 skips it)
if (connections > 0) {
  const { dir } = prepare(connections);
  const { proc, port } = await startTeltonikaServer(dir, process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=' + process.env.BENCH_PROF] : []);
  const idle = rssMiB(proc.pid!);
  let connected = 0;
  const abort = new AbortController();
  const sim = runSimulation({ protocol: 'teltonika', trackers: connections, interval: 60, duration: 600, host: '127.0.0.1', port, deviceIds: ids(connections), signal: abort.signal, onProgress: (s) => (connected = s.connected), progressInterval: 1, connectConcurrency: 512 });
  const until = Date.now() + 120_000;
  while (connected < connections && Date.now() < until) await new Promise((r) => setTimeout(r, 500));
  await new Promise((r) => setTimeout(r, 2000));
  const rss = rssMiB(proc.pid!);
  console.log(`${connected.toLocaleString('en')} connections open: server RSS ${rss.toFixed(0)} MiB (idle ${idle.toFixed(0)} MiB; target <= 1536 MiB for 10,000)`);
  abort.abort();
  await sim.catch(() => undefined);
  proc.kill();
}
