/**
 * bench/forward (issue 13): a real server process ingests simulated Teltonika trackers over loopback
 * TCP (paced at ~50,000 fixes/s by default) while it forwards every fix of every tracker to a local
 * Wialon IPS 2.0 receiver and a local JSON-over-HTTP receiver (minimal receivers in this process that
 * count and acknowledge). Prints, per second, the ingest rate, what each receiver got and the
 * backlogs; then the forwarding rates, the time to drain the backlog, and the ingest rate of the same
 * run without forwarding (same machine, same settings) with the ratio.
 * Targets: forwarding keeps pace (backlog bounded), ingest within 10 % of its rate without forwarding.
 *   node --import tsx bench/forward.ts [--trackers 1000] [--interval 0.02] [--seconds 15] [--per-packet 50] [--server-cpu-prof dir]
 * (--interval 0 floods: the most the server acknowledges.)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttp } from 'node:http';
import { createServer as createTcp } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { bindTracker, createRetranslator } from '../src/forwarding/retranslators.ts';
import { runSimulation } from '../src/simulator/index.ts';
import { openStore } from '../src/store/index.ts';
import { processCpuSeconds, rssMiB, startTeltonikaServer, statCpuSeconds } from './lib/server-process.ts';

const { values } = parseArgs({
  options: {
    trackers: { type: 'string', default: '1000' },
    interval: { type: 'string', default: '0.02' },
    seconds: { type: 'string', default: '15' },
    'per-packet': { type: 'string', default: '50' },
    // writes the server process's CPU profiles (main thread and worker threads) to this directory
    'server-cpu-prof': { type: 'string' },
    // both retranslators bound but disabled: what the forwarding log alone costs the writer
    disabled: { type: 'boolean', default: false },
    // internal: this file run as the receivers' child process
    receivers: { type: 'boolean', default: false },
    // internal: that child runs only this receiver (each receiver in a process of its own)
    'only-receiver': { type: 'string' },
  },
});
const trackers = Number(values.trackers);
const interval = Number(values.interval);
const seconds = Number(values.seconds);
const perPacket = Number(values['per-packet']);
const ids = (n: number) => Array.from({ length: n }, (_, i) => `87${String(i + 1).padStart(13, '0')}`);

// ---- receivers: count and acknowledge, nothing more. Each runs in a child process of its own so
// the simulated trackers (this process) and the two receivers do not share an event loop (a busy
// Wialon IPS receiver would otherwise hold up the JSON receiver's answers).
const got = { wialon: 0, json: 0 };
const receiverPorts = { wialon: 0, json: 0 };
/** The receivers' processes (their CPU time is printed: the machine's two cores are shared by all). */
let receiverPids: number[] = [];
if (values.receivers) {
  await receiversProcess();
} else {
  const children = ['wialon', 'json'].map((kind) => fork(fileURLToPath(import.meta.url), ['--receivers', '--only-receiver', kind], { execArgv: ['--import', 'tsx'] }));
  for (const child of children) {
    child.on('message', (m: { ports?: Partial<typeof receiverPorts>; got?: Partial<typeof got> }) => {
      if (m.ports) Object.assign(receiverPorts, m.ports);
      if (m.got) Object.assign(got, m.got);
    });
  }
  receiverPids = children.map((c) => c.pid!);
  process.once('exit', () => children.forEach((c) => c.kill()));
  while (!receiverPorts.json || !receiverPorts.wialon) await new Promise((r) => setTimeout(r, 50));
  await main();
  children.forEach((c) => c.kill());
  process.exit(0);
}

async function receiversProcess() {
  const counts = { wialon: 0, json: 0 };
  const wialonServer = createTcp((socket) => {
    let buf = '';
    socket.setEncoding('latin1');
    socket.on('error', () => undefined);
    socket.on('data', (d: string) => {
      buf += d;
      let i: number;
      let out = '';
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.startsWith('#L#')) out += '#AL#1\r\n';
        else if (line.startsWith('#D#')) {
          counts.wialon++;
          out += '#AD#1\r\n';
        } else if (line.startsWith('#B#')) {
          let n = 0;
          for (let k = line.indexOf('|'); k >= 0; k = line.indexOf('|', k + 1)) n++;
          counts.wialon += n;
          out += `#AB#${n}\r\n`;
        }
      }
      if (out) socket.write(out);
    });
  });
  // counts the fixes of a body by their first member instead of parsing it: JSON.parse took ~7.6 µs a
  // fix here, CPU the server under test lost on the shared cores (a real receiver runs elsewhere; the
  // body's shape is tested in test/forwarding/http.test.ts)
  const seqMember = Buffer.from('{"seq":');
  const jsonServer = createHttp((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      for (let i = body.indexOf(seqMember); i >= 0; i = body.indexOf(seqMember, i + seqMember.length)) counts.json++;
      res.writeHead(200).end();
    });
  });
  const only = values['only-receiver'];
  const port = (s: { address(): unknown }) => (s.address() as { port: number }).port;
  const ports: Partial<typeof receiverPorts> = {};
  if (only !== 'json') {
    await new Promise<void>((r) => wialonServer.listen(0, '127.0.0.1', r));
    ports.wialon = port(wialonServer);
  }
  if (only !== 'wialon') {
    await new Promise<void>((r) => jsonServer.listen(0, '127.0.0.1', r));
    ports.json = port(jsonServer);
  }
  process.send!({ ports });
  // only this process's receivers: the other process counts the other one
  setInterval(() => process.send!({ got: only ? { [only]: counts[only as keyof typeof counts] } : counts }), 200);
}

/** A data directory with the trackers; with `forward`, both retranslators bound to every tracker. */
function prepare(forward: boolean): { dir: string; retranslators: number[] } {
  const dir = mkdtempSync(join(tmpdir(), 'fsm-forward-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const store = openStore(loadConfig({ FSM_DATA_DIR: dir }).dbFile);
  const userId = store.users.create({ login: 'bench@example.com', passwordHash: 'x', now: Date.now() });
  const user = store.users.get(userId)!;
  const retranslators: number[] = [];
  store.transaction(() => {
    const tids = ids(trackers).map((d) => store.trackers.add({ userId, deviceId: d, protocol: 'teltonika', label: d, tariffId: 1, now: Date.now() }));
    if (!forward) return;
    retranslators.push(createRetranslator(store, user, { name: 'wialon', protocol_id: 1, address: '127.0.0.1', port: receiverPorts.wialon, password: 'pw', enabled: !values.disabled }));
    retranslators.push(createRetranslator(store, user, { name: 'json', protocol_id: 3, address: `http://127.0.0.1:${receiverPorts.json}/`, enabled: !values.disabled }));
    for (const tid of tids) for (const r of retranslators) bindTracker(store, userId, r, store.trackers.get(userId, tid)!, null, Date.now());
  });
  store.close();
  return { dir, retranslators };
}

/** CPU seconds the server used so far (Linux /proc; user + system): all threads, and the forwarding thread's. */
function cpuSeconds(pid: number): { all: number; forward: number } {
  try {
    let forward = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      if (stat.includes('(fsm-forward)')) forward += statCpuSeconds(stat);
    }
    return { all: statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8')), forward };
  } catch {
    return { all: NaN, forward: NaN };
  }
}

interface RunResult {
  ingest: number;
  wialon: number;
  json: number;
  /** The larger of the two backlogs: its maximum over the measured seconds, and how fast it grew over their second half (fixes/s). */
  maxBacklog: number;
  growth: number;
  /** After the trackers stopped: the backlog then (counted in the store), the seconds to empty it and the rate. */
  endBacklog: number;
  drainS: number;
  perCpu: number;
  load: string;
}

function loadText(): string {
  return loadavg().map((l) => l.toFixed(1)).join(' ');
}

async function run(forward: boolean): Promise<RunResult> {
  const { dir, retranslators } = prepare(forward);
  const { proc, port: p } = await startTeltonikaServer(dir, values['server-cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['server-cpu-prof']}`] : []);
  const watch = openStore(loadConfig({ FSM_DATA_DIR: dir }).dbFile);
  // counted in the store only to see the drain end: counting every second while ingesting would take CPU
  // from the server on the same cores; meanwhile the backlog is what the trackers saw acknowledged and a
  // receiver has not yet got (exact while nothing is sent twice, as in this run)
  const backlogs = () => retranslators.map((r) => watch.retranslators.backlog(r));
  const pending = () => [acked - got.wialon, acked - got.json];
  let acked = 0;
  const warmup = 3;
  const sim = runSimulation({ protocol: 'teltonika', trackers, interval, duration: seconds + warmup, host: '127.0.0.1', port: p, deviceIds: ids(trackers), recordsPerPacket: perPacket, drainTimeout: 5, connectConcurrency: 256, onAck: (_d, r) => (acked += r.length) });
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const start = { t: performance.now(), acked, wialon: got.wialon, json: got.json };
  const cpu0 = cpuSeconds(proc.pid!);
  const others0 = { trackers: process.cpuUsage(), receivers: receiverPids.map(processCpuSeconds) };
  let maxBacklog = 0;
  let rss = rssMiB(proc.pid!);
  const larger: number[] = [];
  let last = { ...start };
  console.log(forward ? '  s   ingest/s  wialon/s    json/s  backlog wialon  backlog json' : '  s   ingest/s');
  for (let s = 1; s <= seconds; s++) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = { t: performance.now(), acked, wialon: got.wialon, json: got.json };
    const dt = (now.t - last.t) / 1000;
    const rate = (k: 'acked' | 'wialon' | 'json') => Math.round((now[k] - last[k]) / dt).toLocaleString('en').padStart(9);
    if (forward) {
      const b = pending();
      maxBacklog = Math.max(maxBacklog, ...b);
      larger.push(Math.max(...b));
      console.log(`${String(s).padStart(3)} ${rate('acked')} ${rate('wialon')} ${rate('json')} ${b[0].toLocaleString('en').padStart(15)} ${b[1].toLocaleString('en').padStart(13)}`);
    } else console.log(`${String(s).padStart(3)} ${rate('acked')}`);
    last = now;
    rss = Math.max(rss, rssMiB(proc.pid!));
  }
  const el = (last.t - start.t) / 1000;
  const cpu1 = cpuSeconds(proc.pid!);
  const cpu = { all: cpu1.all - cpu0.all, forward: cpu1.forward - cpu0.forward };
  const trackersCpu = process.cpuUsage(others0.trackers);
  const receivers = receiverPids.map((pid, i) => processCpuSeconds(pid) - others0.receivers[i]);
  const others = { trackers: (trackersCpu.user + trackersCpu.system) / 1e6, receivers: receivers[0] + receivers[1] };
  const ingested = last.acked - start.acked;
  const us = (s: number, n: number) => (n ? `${Math.round((s * 1e6) / n)} µs` : '-');
  const fwdPart = forward ? `; the forwarding thread ${cpu.forward.toFixed(1)} s (${us(cpu.forward, last.wialon - start.wialon + last.json - start.json)} per forwarded fix and retranslator)` : '';
  const load = loadText();
  console.log(`server CPU ${cpu.all.toFixed(1)} s over ${el.toFixed(1)} s: ${us(cpu.all - cpu.forward, ingested)} per ingested fix outside the forwarding thread${fwdPart}; RSS at most ${Math.round(rss)} MiB; load average ${load}`);
  // the two cores hold el * 2 CPU seconds: what the server leaves is what the simulated trackers and the receivers use
  const total = cpu.all + others.trackers + (forward ? others.receivers : 0);
  console.log(`the machine's CPU over those seconds: server ${cpu.all.toFixed(1)} s, simulated trackers ${others.trackers.toFixed(1)} s${forward ? `, receivers ${others.receivers.toFixed(1)} s (Wialon IPS ${receivers[0].toFixed(1)}, JSON ${receivers[1].toFixed(1)})` : ''}: ${Math.round((total / (el * 2)) * 100)} % of the two cores`);
  // growth over the second half of the measured seconds: about 0 when forwarding keeps pace (the backlog then stays at what is in flight)
  const mid = Math.max(0, Math.floor(larger.length / 2) - 1);
  const growth = larger.length > 1 ? (larger[larger.length - 1] - larger[mid]) / (larger.length - 1 - mid) : 0;
  const result: RunResult = { ingest: (last.acked - start.acked) / el, wialon: (last.wialon - start.wialon) / el, json: (last.json - start.json) / el, maxBacklog, growth, endBacklog: 0, drainS: 0, perCpu: ingested / cpu.all, load };
  await sim;
  if (forward && !values.disabled) {
    const d0 = performance.now();
    result.endBacklog = Math.max(...backlogs());
    while (backlogs().some((b) => b > 0) && performance.now() - d0 < 180_000) await new Promise((r) => setTimeout(r, 250));
    result.drainS = (performance.now() - d0) / 1000;
  }
  watch.close();
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
  return result;
}

async function main() {
  const target = interval > 0 ? `${Math.round(trackers / interval).toLocaleString('en')} fixes/s offered` : 'flood';
  console.log(`without forwarding (${trackers} trackers, ${target}, ${perPacket} records per packet, ${seconds} s):`);
  const without = await run(false);
  console.log(`with forwarding to Wialon IPS 2.0 and JSON over HTTP, every tracker bound to both:`);
  const withF = await run(true);
  const f = (n: number) => Math.round(n).toLocaleString('en');
  console.log(`ingest without forwarding: ${f(without.ingest)} fixes/s; with forwarding: ${f(withF.ingest)} fixes/s; ratio ${(withF.ingest / without.ingest).toFixed(2)} (target >= 0.90)`);
  // the server's share of a shared machine's CPU changes from run to run; per CPU second it does much less
  console.log(`ingested per server CPU second: ${f(without.perCpu)} without, ${f(withF.perCpu)} with forwarding; ratio ${(withF.perCpu / without.perCpu).toFixed(2)}`);
  console.log(`forwarded while ingesting: Wialon IPS ${f(withF.wialon)} fixes/s, JSON ${f(withF.json)} fixes/s`);
  console.log(`backlog (the larger of the two): at most ${f(withF.maxBacklog)} fixes while ingesting, growing ${f(withF.growth)} fixes/s over the second half (${withF.growth <= 0.02 * withF.ingest ? 'about 0 or less: forwarding keeps pace' : 'forwarding falls behind'}); ${f(withF.endBacklog)} when the trackers stopped, empty ${withF.drainS.toFixed(1)} s later (${withF.drainS > 0 ? f(withF.endBacklog / withF.drainS) : '-'} fixes/s)`);
  console.log(`load average: ${without.load} (without), ${withF.load} (with forwarding), ${loadText()} (now)`);
}
