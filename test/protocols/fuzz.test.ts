/**
 * Robustness of every protocol (issue 3): random and mutated frames through framer and decoder.
 * No exception other than FrameError/DecodeError escapes, no single decode takes over 10 ms, and
 * memory stays flat. FUZZ_ITERATIONS (default 100000) sets the frames per protocol.
 * Also: a stream of real frames cut at random offsets yields the same frames as the whole stream.
 */
import { describe, expect, it } from 'vitest';
import { DecodeError, FrameError, type DecodeContext, type Protocol } from '../../protocols/types.ts';
import { loadProtocols } from './load.ts';
import { frameLines, messageLines, payloadBytes } from './harness.ts';

const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 100_000);
const WARMUP = Math.min(2000, ITERATIONS / 10);
const protocols = await loadProtocols();

/** Small deterministic PRNG so a failure can be replayed from its seed. */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
}

function mutate(src: Buffer, r: () => number): Buffer {
  const kind = Math.floor(r() * 6);
  const b = Buffer.from(src);
  const at = Math.floor(r() * Math.max(1, b.length));
  switch (kind) {
    case 0: // flip bits
      for (let i = 0; i < 1 + r() * 4; i++) b[Math.floor(r() * b.length)] ^= 1 << Math.floor(r() * 8);
      return b;
    case 1: // truncate
      return b.subarray(0, at);
    case 2: // random bytes in place
      for (let i = at; i < Math.min(b.length, at + 1 + r() * 8); i++) b[i] = Math.floor(r() * 256);
      return b;
    case 3: // extreme length-like values
      if (b.length) b[at] = r() < 0.5 ? 0xff : 0x00;
      return b;
    case 4: // duplicate a slice
      return Buffer.concat([b.subarray(0, at), b.subarray(Math.floor(r() * b.length)), b.subarray(at)]);
    default: // pure noise
      return Buffer.from(Array.from({ length: Math.floor(r() * 300) }, () => Math.floor(r() * 256)));
  }
}

const expected = (e: unknown) => e instanceof DecodeError || e instanceof FrameError;

describe.each(protocols.map((p) => [p.name, p] as const))('%s fuzz', (name, protocol: Protocol) => {
  const seeds = messageLines(name)
    // MQTT lines: the PUBLISH bodies are what `decode` takes; a CONNECT's client id is no frame.
    .filter((l) => l.transport !== 'http' && l.mqtt?.type !== 'connect')
    .map(payloadBytes);
  const httpLines = messageLines(name).filter((l) => l.transport === 'http');

  it(`survives ${ITERATIONS} random and mutated frames`, async () => {
    const r = rng(0xc0ffee ^ name.length);
    let slowest = 0;
    const unexpected: string[] = [];
    globalThis.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    for (let i = 0; i < ITERATIONS; i++) {
      const seed = seeds.length ? seeds[Math.floor(r() * seeds.length)] : Buffer.alloc(0);
      const input = mutate(seed, r);
      const ctx: DecodeContext = { now: Date.now(), transport: 'tcp', config: {}, session: {}, deviceId: i % 2 ? '123456789012345' : undefined };
      const once = () => {
        const c = { ...ctx, session: {} };
        if (protocol.createFramer) protocol.createFramer().next(input);
        if (protocol.decodeMqttConnect && i % 4 === 0) protocol.decodeMqttConnect(input.toString('latin1'), c);
        else if (protocol.decode) protocol.decode(input, c);
        else if (protocol.decodeHttp) {
          const l = httpLines[i % Math.max(1, httpLines.length)];
          const text = input.toString('latin1');
          protocol.decodeHttp({ method: i % 2 ? 'GET' : 'POST', uri: l?.http?.body === 'payload' ? '/' : `/?${text}`, headers: { 'content-type': i % 3 ? 'application/json' : 'application/x-www-form-urlencoded' }, body: input }, c);
        }
      };
      const run = () => {
        try {
          once();
        } catch (e) {
          if (!expected(e) && unexpected.length < 5) unexpected.push(`${input.toString('hex').slice(0, 120)}: ${(e as Error)?.stack ?? e}`);
        }
      };
      // CPU time of this process, not wall time: on a shared machine the wall clock also counts
      // the time other processes had the core.
      const timed = () => {
        const c0 = process.cpuUsage();
        run();
        const d = process.cpuUsage(c0);
        return (d.user + d.system) / 1000;
      };
      // The wall clock first: it is far cheaper to read than the CPU time (two getrusage calls cost
      // about as much as a typical decode), and a decode's CPU time never exceeds its wall time. A
      // decode that took a millisecond or more of wall time is timed again by CPU, so every limit
      // check and the slowest figure printed are CPU times whenever they matter.
      const w0 = performance.now();
      run();
      let took = performance.now() - w0;
      if (took >= 1) took = timed();
      // A slow decode is timed again after yielding: on a shared 2-core machine one wall-clock
      // sample can be a scheduling or GC pause; a decoder really slow on this input is slow every time.
      for (let retry = 0; retry < 5 && took > 10; retry++) {
        await new Promise((r) => setTimeout(r, 20));
        took = Math.min(took, timed());
      }
      if (process.env.FUZZ_DEBUG && took > 2) console.log(`slow #${i}: ${took.toFixed(2)} ms, ${input.length} bytes ${input.toString('hex').slice(0, 60)}`);
      // The first frames also pay for compiling the decoder (once per process): not a decode cost.
      if (i >= WARMUP) slowest = Math.max(slowest, took);
    }
    globalThis.gc?.();
    const growth = process.memoryUsage().heapUsed - heapBefore;
    console.log(`fuzz ${name}: ${ITERATIONS} frames, slowest decode ${slowest.toFixed(2)} ms, heap growth ${(growth / 1048576).toFixed(1)} MiB`);
    expect(unexpected, unexpected.join('\n')).toEqual([]);
    expect(slowest).toBeLessThan(10);
    expect(growth).toBeLessThan(64 * 1048576);
  });

  const frames = frameLines(name).filter((l) => l.expect === 'frame');
  if (protocol.createFramer && frames.length) {
    it('yields the same frames whatever the chunking', () => {
      const r = rng(42);
      for (const l of frames) {
        const stream = Buffer.from(l.payload.repeat(3), 'hex');
        const whole = cut(protocol, stream, [stream.length], l.decoder_config);
        // The first chunk holds the first frame whole: some framers learn the frame size from it.
        const first = protocol.createFramer!(l.decoder_config).next(stream)?.consumed ?? 0;
        for (let k = 0; k < 20; k++) {
          const sizes = first ? [first] : [];
          for (let left = stream.length - first; left > 0; ) {
            const n = 1 + Math.floor(r() * Math.min(left, 64));
            sizes.push(n);
            left -= n;
          }
          expect(cut(protocol, stream, sizes, l.decoder_config)).toEqual(whole);
        }
      }
    });
  }
});

/** Feed `stream` to a framer in chunks of the given sizes, like a socket would; return the frames in hex. */
function cut(protocol: Protocol, stream: Buffer, sizes: number[], config?: Record<string, unknown>): string[] {
  const framer = protocol.createFramer!(config);
  const out: string[] = [];
  let pending = Buffer.alloc(0);
  let at = 0;
  try {
    for (const n of sizes) {
      pending = Buffer.concat([pending, stream.subarray(at, at + n)]);
      at += n;
      for (let f = framer.next(pending); f; f = framer.next(pending)) {
        out.push(f.frame.toString('hex'));
        pending = pending.subarray(f.consumed);
        if (f.consumed === 0) throw new Error('framer consumed nothing');
      }
    }
  } catch (e) {
    if (!expected(e)) throw e;
    out.push('error');
  }
  return out;
}
