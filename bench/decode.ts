/**
 * bench/decode (issue 3): records/s of every decoder over its captures, on one core; and, side by
 * side in the same run, Teltonika against the npm package complete-teltonika-parser on the 35
 * captured Teltonika data packets (Codec 8, 8 Extended, 16). Target: all 35 decoded, >= 20x its speed.
 *   node --import tsx bench/decode.ts [--seconds 1]
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { PROTOCOLS } from '../protocols/index.ts';
import type { DecodeContext, Protocol } from '../protocols/types.ts';
import { messageLines, payloadBytes } from '../test/protocols/harness.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '1' } } });
const seconds = Number(values.seconds);
const require = createRequire(import.meta.url);

function ctxFor(config: Record<string, unknown> = {}): DecodeContext {
  return { now: Date.now(), transport: 'tcp', config, session: {}, deviceId: '123456789012345' };
}

/** Decode `frames` over and over for `seconds`; records per second and how many frames decode cleanly. */
function measure(decode: (f: Buffer) => number, frames: Buffer[]): { rps: number; ok: number } {
  let ok = 0;
  for (const f of frames) {
    try {
      if (decode(f) > 0) ok++;
    } catch {
      /* counted as not decoded */
    }
  }
  const good = frames.filter((f) => {
    try {
      return decode(f) > 0;
    } catch {
      return false;
    }
  });
  if (!good.length) return { rps: 0, ok };
  let records = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) for (const f of good) records += decode(f);
  return { rps: records / ((performance.now() - t0) / 1000), ok };
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

console.log('decoder records/s over the captures (one core)');
for (const p of PROTOCOLS.values()) {
  if (!p.decode) continue;
  const frames = framesOf(p.name, (l) => l.transport === 'tcp' || l.transport === 'udp');
  const r = measure(ours(p), frames);
  console.log(`  ${p.name.padEnd(10)} ${Math.round(r.rps).toLocaleString('en').padStart(12)} records/s  (${frames.length} captured messages)`);
}

const teltonika = PROTOCOLS.get('teltonika')!;
const packets = framesOf('teltonika', (l) => l.transport === 'tcp' && l.payload.startsWith('00000000') && ['08', '8e', '10'].includes(l.payload.slice(16, 18)));
const { ProtocolParser } = require('complete-teltonika-parser') as { ProtocolParser: new (hex: string) => { Content?: { AVL_Datas?: unknown[] } } };
const theirs = (f: Buffer) => new ProtocolParser(f.toString('hex')).Content?.AVL_Datas?.length ?? 0;
const a = measure(ours(teltonika), packets);
const b = measure(theirs, packets);
console.log(`\nteltonika data packets: ${packets.length}`);
console.log(`  ours                      decodes ${a.ok}/${packets.length}  ${Math.round(a.rps).toLocaleString('en').padStart(12)} records/s`);
console.log(`  complete-teltonika-parser decodes ${b.ok}/${packets.length}  ${Math.round(b.rps).toLocaleString('en').padStart(12)} records/s`);
console.log(`  speed ratio ${(a.rps / b.rps).toFixed(1)}x (target >= 20x, all ${packets.length} decoded)`);
