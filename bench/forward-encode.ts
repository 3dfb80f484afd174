/**
 * bench/forward-encode (issue 13): the forwarding encoders alone, in CPU µs per fix: a batch of
 * logged fixes (rows as the engine's shared read gives them, viewed under their bindings) encoded as
 * the JSON webhook's body (bytes, as it is posted) and as Wialon IPS 2.0 `#B#` packets (the bytes of
 * each tracker's share), repeated.
 * CPU time of this thread, so less sensitive to a loaded machine than wall rates.
 *   node --import tsx bench/forward-encode.ts [--fixes 2000] [--trackers 200] [--rounds 50]
 */
import { parseArgs } from 'node:util';
import { FLAG } from '../src/core/point.ts';
import { toForwardFix, type Bound } from '../src/forwarding/forwarder.ts';
import { BatchEncoder } from '../src/forwarding/protocols/json-webhook.ts';
import { MessageEncoder } from '../src/forwarding/protocols/wialon-ips.ts';
import type { LogRow } from '../src/store/retranslators.ts';

const { values } = parseArgs({ options: { fixes: { type: 'string', default: '2000' }, trackers: { type: 'string', default: '200' }, rounds: { type: 'string', default: '50' } } });
const n = Number(values.fixes);
const trackers = Number(values.trackers);
const rounds = Number(values.rounds);
const t0 = Date.UTC(2026, 10, 20);
const attrs = JSON.stringify({ input: 3, output: 0, fuel: 35.5, power: 12.7, ignition: true });
const bounds: Bound[] = Array.from({ length: trackers }, (_, i) => ({ trackerId: i + 1, deviceId: `88${String(i + 1).padStart(13, '0')}`, cursor: 0 }));
const rows: LogRow[] = Array.from({ length: n }, (_, k) => {
  const i = k % trackers;
  const round = Math.floor(k / trackers);
  return [k + 1, i + 1, t0 + round * 1000, 55.75 + i * 1e-3 + round * 1e-5, 37.61 + round * 1e-5, 120, 40, 90, 9, 0.9, null, FLAG.valid, t0 + round * 1000 + 512, attrs, null, null, null];
});

function measure(name: string, encode: () => number): void {
  const results: number[] = [];
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    bytes = encode();
    const c = process.cpuUsage(c0);
    results.push((c.user + c.system) / n);
  }
  results.sort((a, b) => a - b);
  // the first rounds warm up; the median of the rest
  const rest = results.slice(0, Math.max(1, results.length - 5));
  console.log(`${name.padEnd(10)} ${rest[Math.floor(rest.length / 2)].toFixed(2)} µs per fix (median of ${rounds} batches of ${n}; ${bytes.toLocaleString('en')} bytes a batch)`);
}

const encoder = new MessageEncoder();
const body = new BatchEncoder();
measure('json', () => body.batch(rows.map((r) => toForwardFix(r.slice() as LogRow, bounds[r[1] - 1]))).length);
measure('wialon', () => {
  const groups = new Map<string, ReturnType<typeof toForwardFix>[]>();
  for (const r of rows) {
    const f = toForwardFix(r.slice() as LogRow, bounds[r[1] - 1]);
    (groups.get(f.deviceId) ?? groups.set(f.deviceId, []).get(f.deviceId)!).push(f);
  }
  let bytes = 0;
  for (const list of groups.values()) bytes += encoder.blackBox(list).bytes.length;
  return bytes;
});
