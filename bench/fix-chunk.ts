/**
 * bench/fix-chunk (issue 15): the compact fix chunk codec (src/core/fix-chunk.ts) on rows stored as
 * the gateway stores them: bytes per fix, encode, full decode and track-columns decode (time, lat,
 * lng, flags) in fixes per second of CPU time (and of wall time), against the placeholder format 0
 * (JSON + brotli) in the same run. Targets: 15-25 bytes per fix, encode > 200k fixes/s, track
 * decode > 1M fixes/s.
 *   node --import tsx bench/fix-chunk.ts [--trackers 4] [--rounds 5]
 * Streams: the simulator's Teltonika trackers at 10 s, one chunk per tracker-day; the other
 * simulated protocols likewise; and the captures (../shared/captures), one chunk per device.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { decodeFixChunk, encodeFixChunk, encodeFixChunkJson, FIX_COLUMNS, type StoredFix } from '../src/core/fix-chunk.ts';
import { captureRows, RowSink, SIM_PROTOCOLS, writeSimulated } from '../test/core/fix-rows.ts';

const { values } = parseArgs({ options: { trackers: { type: 'string', default: '4' }, rounds: { type: 'string', default: '5' } } });
const TRACKERS = Number(values.trackers);
const ROUNDS = Number(values.rounds);
const DAY0 = Date.UTC(2025, 4, 17);
const TRACK = ['lat', 'lng', 'flags'] as const;

function simulatedDays(protocol: string, trackers: number): StoredFix[][] {
  const sink = new RowSink();
  for (let i = 1; i <= trackers; i++) writeSimulated(sink, i, { protocol, seed: i, start: DAY0, hours: 24, intervalS: 10 });
  return [...sink.rows().values()];
}

/** CPU and wall milliseconds of `f` run `ROUNDS` times (after one warm-up run), per run. */
function time(f: () => void): { cpu: number; wall: number } {
  f();
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  for (let r = 0; r < ROUNDS; r++) f();
  const c = process.cpuUsage(c0);
  return { cpu: (c.user + c.system) / 1000 / ROUNDS, wall: (performance.now() - w0) / ROUNDS };
}

const rate = (fixes: number, ms: number) => `${Math.round((fixes / ms) * 1000).toLocaleString('en')}`.padStart(10);

function measure(name: string, chunks: StoredFix[][]): void {
  const fixes = chunks.reduce((s, c) => s + c.length, 0);
  const rowBytes = chunks.reduce((s, c) => s + c.reduce((t, r) => t + (r.attrs?.length ?? 0) + 8 * 13, 0), 0);
  console.log(`\n${name}: ${chunks.length} chunks, ${fixes} fixes (attrs text + 13 numbers: ${(rowBytes / fixes).toFixed(0)} bytes per fix)`);
  const lines: Array<[string, number, Record<string, { cpu: number; wall: number }>]> = [];
  for (const [format, encode] of [['format 0 (JSON)', encodeFixChunkJson], ['format 1 (columns)', encodeFixChunk]] as const) {
    let encoded: Uint8Array[] = [];
    const enc = time(() => void (encoded = chunks.map((c) => encode(c))));
    const full = time(() => encoded.forEach((e) => decodeFixChunk(e)));
    const track = time(() => encoded.forEach((e) => decodeFixChunk(e, TRACK)));
    const bytes = encoded.reduce((s, e) => s + e.length, 0);
    lines.push([format, bytes, { enc, full, track }]);
  }
  console.log(`  ${'format'.padEnd(20)} ${'bytes/fix'.padStart(9)}  ${'encode/s'.padStart(10)} ${'decode/s'.padStart(10)} ${'track/s'.padStart(10)}   (fixes per CPU second; per wall second in brackets)`);
  for (const [format, bytes, t] of lines) {
    console.log(
      `  ${format.padEnd(20)} ${(bytes / fixes).toFixed(2).padStart(9)}  ${rate(fixes, t.enc.cpu)} ${rate(fixes, t.full.cpu)} ${rate(fixes, t.track.cpu)}   (${rate(fixes, t.enc.wall).trim()} ${rate(fixes, t.full.wall).trim()} ${rate(fixes, t.track.wall).trim()})`,
    );
  }
  const [a, b] = lines;
  console.log(`  format 1 / format 0: size ${(b[1] / a[1]).toFixed(2)}, encode ${(a[2].enc.cpu / b[2].enc.cpu).toFixed(2)}x, decode ${(a[2].full.cpu / b[2].full.cpu).toFixed(2)}x, track decode ${(a[2].track.cpu / b[2].track.cpu).toFixed(2)}x the speed`);
}

/** Per block of one chunk (layout 0, blocks compressed one by one): what each column costs. */
function columnSizes(rows: StoredFix[]): void {
  const data = encodeFixChunk(rows);
  let p = 2;
  const varint = () => {
    let v = 0;
    for (let s = 1; ; s *= 128) {
      if (p >= data.length) throw new Error('header ends early');
      const x = data[p++];
      v += (x & 0x7f) * s;
      if (x < 0x80) return v;
    }
  };
  if (data[1] !== 0) return;
  varint();
  const nb = varint();
  const names = ['time', ...FIX_COLUMNS];
  const parts: string[] = [];
  for (let i = 0; i < nb; i++) {
    const method = data[p++];
    const len = varint();
    if (method) varint();
    parts.push(`${names[i] ?? `attr#${i - names.length}`} ${(len / rows.length).toFixed(2)}`);
  }
  console.log(`  bytes per fix by block (one chunk): ${parts.join(', ')}`);
}

console.log(`fix chunk codec; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} (timings are CPU time; a busy machine still slows them)`);
const teltonika = simulatedDays('teltonika', TRACKERS);
measure(`simulator teltonika, 10 s, ${TRACKERS} tracker-days`, teltonika);
columnSizes(teltonika[0]);
for (const p of SIM_PROTOCOLS.filter((x) => x !== 'teltonika')) measure(`simulator ${p}, 10 s, 1 tracker-day`, simulatedDays(p, 1));
measure('captures, one chunk per device', captureRows().map((c) => c.rows));
