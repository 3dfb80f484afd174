/**
 * bench/decode (issue 3): records/s of every decoder over its captures, on one core; and, side by
 * side in the same run, Teltonika against the npm package complete-teltonika-parser on the 35
 * captured Teltonika data packets (Codec 8, 8 Extended, 16). Target: all 35 decoded, >= 20x its speed.
 * The machine is shared, so the two run in alternating rounds after a warm-up: a change of load hits
 * both alike, and the ratio printed is the median of the rounds' ratios.
 *   node --import tsx bench/decode.ts [--seconds 1] [--rounds 9]
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { PROTOCOLS } from '../protocols/index.ts';
import type { DecodeContext, Protocol } from '../protocols/types.ts';
import { messageLines, payloadBytes } from '../test/protocols/harness.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' }, rounds: { type: 'string', default: '9' } } });
const seconds = Number(values.seconds);
const rounds = Math.max(1, Number(values.rounds));
const require = createRequire(import.meta.url);

function ctxFor(config: Record<string, unknown> = {}): DecodeContext {
  return { now: Date.now(), transport: 'tcp', config, session: {}, deviceId: '123456789012345' };
}

/** The frames `decode` decodes cleanly (at least one record, no exception). */
const decodable = (decode: (f: Buffer) => number, frames: Buffer[]) =>
  frames.filter((f) => {
    try {
      return decode(f) > 0;
    } catch {
      return false; // counted as not decoded
    }
  });

/** Records per second of `decode` over `frames`, decoded over and over for `ms` milliseconds. */
function rate(decode: (f: Buffer) => number, frames: Buffer[], ms: number): number {
  return throughput(frames.map((f) => () => decode(f)), ms).records;
}

/** Messages and records per second of `jobs` (each one message's decode, answering its record count), run over and over for `ms`. */
function throughput(jobs: Array<() => number>, ms: number): { messages: number; records: number } {
  if (!jobs.length) return { messages: 0, records: 0 };
  let records = 0;
  let messages = 0;
  const t0 = performance.now();
  const end = t0 + ms;
  while (performance.now() < end) {
    for (const job of jobs) records += job();
    messages += jobs.length;
  }
  const s = (performance.now() - t0) / 1000;
  return { messages: messages / s, records: records / s };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Two decoders over their decodable frames in alternating rounds of `seconds / 2` each, after one
 * warm-up round; the median records/s of each and the median of the per-round ratios a/b.
 */
function compare(a: (f: Buffer) => number, b: (f: Buffer) => number, frames: Buffer[]) {
  const goodA = decodable(a, frames);
  const goodB = decodable(b, frames);
  const ms = (seconds * 1000) / 2;
  const ra: number[] = [];
  const rb: number[] = [];
  for (let i = 0; i <= rounds; i++) {
    const x = rate(a, goodA, ms);
    const y = rate(b, goodB, ms);
    if (i === 0) continue; // warm-up: both compiled and their caches filled
    ra.push(x);
    rb.push(y);
  }
  return { a: { rps: median(ra), ok: goodA.length }, b: { rps: median(rb), ok: goodB.length }, ratio: median(ra.map((x, i) => x / rb[i])) };
}

/** Each captured frame with the decoder settings its capture line names (model, extended IO, ...). */
const configs = new WeakMap<Buffer, Record<string, unknown>>();
const ours = (p: Protocol) => (f: Buffer) => (p.decode!(f, ctxFor(configs.get(f))).records ?? []).length;
const framesOf = (name: string, keep: (l: ReturnType<typeof messageLines>[number]) => boolean) =>
  messageLines(name)
    .filter(keep)
    .map((l) => {
      const b = payloadBytes(l);
      configs.set(b, l.decoder_config ?? {});
      return b;
    });

/**
 * One job per captured message of a protocol that decodes without an error, over its own transport
 * (HTTP protocols through decodeHttp, as the HTTP listener calls them), each call with a session of
 * its own: a session kept across repeats would assemble the same photo parts over and over. Messages that carry no fix
 * (logins, heartbeats, media) count as messages, so every protocol has a rate.
 */
function jobsOf(p: Protocol): Array<() => number> {
  const jobs: Array<() => number> = [];
  for (const line of messageLines(p.name)) {
    const ctx = ctxFor(line.decoder_config ?? {});
    let job: () => number;
    if (line.transport === 'http') {
      const h = line.http;
      if (!h || !p.decodeHttp) continue;
      const body = h.body === 'payload' ? payloadBytes(line) : Buffer.alloc(0);
      const uri = h.body === 'payload' ? h.uri : line.payload;
      const headers = Object.fromEntries(Object.entries(h.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      ctx.transport = 'http';
      job = () => (p.decodeHttp!({ method: h.method, uri, headers, body }, { ...ctx, session: {} }).records ?? []).length;
    } else if (line.transport === 'tcp' || line.transport === 'udp' || (line.transport === 'mqtt' && line.mqtt?.type === 'publish')) {
      // MQTT: the PUBLISH bodies are what `decode` takes (connect lines carry only a client id).
      if (!p.decode) continue;
      const frame = payloadBytes(line);
      ctx.transport = line.transport;
      job = () => (p.decode!(frame, { ...ctx, session: {} }).records ?? []).length;
    } else continue;
    try {
      job();
      jobs.push(job);
    } catch {
      // a capture the decoder refuses (the captures' "expect: error" lines): not timed
    }
  }
  return jobs;
}

console.log('decoder rates over the captures (one core; messages that decode without an error, records among them)');
const warmMs = Math.min(200, seconds * 200);
for (const p of PROTOCOLS.values()) {
  const jobs = jobsOf(p);
  throughput(jobs, warmMs); // compiled before it is timed
  const r = throughput(jobs, seconds * 1000);
  const n = messageLines(p.name).length;
  console.log(`  ${p.name.padEnd(12)} ${Math.round(r.messages).toLocaleString('en').padStart(10)} messages/s ${Math.round(r.records).toLocaleString('en').padStart(10)} records/s  (${jobs.length}/${n} captured messages${p.transports.includes('http') ? ', http' : ''})`);
}

const teltonika = PROTOCOLS.get('teltonika')!;
const packets = framesOf('teltonika', (l) => l.transport === 'tcp' && l.payload.startsWith('00000000') && ['08', '8e', '10'].includes(l.payload.slice(16, 18)));
const { ProtocolParser } = require('complete-teltonika-parser') as { ProtocolParser: new (hex: string) => { Content?: { AVL_Datas?: unknown[] } } };
const theirs = (f: Buffer) => new ProtocolParser(f.toString('hex')).Content?.AVL_Datas?.length ?? 0;
const { a, b, ratio } = compare(ours(teltonika), theirs, packets);
console.log(`\nteltonika data packets: ${packets.length} (${rounds} alternating rounds of ${seconds / 2} s each, medians)`);
console.log(`  ours                      decodes ${a.ok}/${packets.length}  ${Math.round(a.rps).toLocaleString('en').padStart(12)} records/s`);
console.log(`  complete-teltonika-parser decodes ${b.ok}/${packets.length}  ${Math.round(b.rps).toLocaleString('en').padStart(12)} records/s`);
console.log(`  speed ratio ${ratio.toFixed(1)}x (target >= 20x, all ${packets.length} decoded)`);
