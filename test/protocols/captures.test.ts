/**
 * Acceptance of every protocol against ../shared/captures (issue 3): every message line, every
 * frame line, every command line. Prints per-protocol counts. `PROTOCOL=gt06 npx vitest run
 * test/protocols/captures.test.ts` narrows the run while working on one protocol.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadProtocols } from './load.ts';
import { COMMAND_NOW, commandLines, frameLines, groups, messageLines, payloadBytes, replayGroup, stepProblems } from './harness.ts';

const protocols = await loadProtocols();

/**
 * Encoder settings of a command line: its `encoder_config`, plus `alternative: true` for lines of
 * a source test method named `...Alternative` (that test built its encoder in the alternative mode), and
 * `sms: true` for `...SmsEncode` (that test built the SMS form of the encoder).
 */
function encoderConfig(l: { group: string; encoder_config?: Record<string, unknown> }): Record<string, unknown> {
  return { ...(/Alternative$/.test(l.group) ? { alternative: true } : {}), ...(/SmsEncode$/.test(l.group) ? { sms: true } : {}), ...(l.encoder_config ?? {}) };
}
const counts: string[] = [];
afterAll(() => {
  if (counts.length) console.log(`capture replay per protocol:\n${counts.join('\n')}`);
});

describe.each(protocols.map((p) => [p.name, p] as const))('%s captures', (name, protocol) => {
  const lines = messageLines(name);
  const frames = frameLines(name);
  const commands = commandLines(name);
  let passed = 0;
  let framesOk = 0;
  let commandsOk = 0;
  afterAll(() => {
    counts.push(`  ${name.padEnd(10)} messages ${passed}/${lines.length}  frames ${framesOk}/${frames.length}  commands ${commandsOk}/${commands.length}`);
  });

  it('has captures', () => expect(lines.length).toBeGreaterThan(0));

  for (const group of groups(lines)) {
    it(`messages of ${group[0].group}`, () => {
      const steps = replayGroup(protocol, group);
      const failures = steps
        .map((s) => ({ s, problems: stepProblems(s) }))
        .filter((x) => x.problems.length)
        .map((x) => `seq ${x.s.line.seq} (${x.s.line.source?.split('#')[1]}) ${x.s.line.payload.slice(0, 80)}\n    ${x.problems.join('\n    ')}`);
      passed += steps.length - failures.length;
      expect(failures, failures.join('\n')).toEqual([]);
    });
  }

  if (frames.length) {
    it('frames', () => {
      const problems: string[] = [];
      // Lines noted "the SAME input buffer is passed to successive decode calls" continue one stream:
      // each takes the next frame from what the previous one left.
      let carry: { group: string; payload: string; rest: Buffer; framer: ReturnType<NonNullable<typeof protocol.createFramer>> } | undefined;
      for (const l of frames) {
        const sameBuffer = /SAME input buffer/.test(l.note ?? '') && carry?.group === l.group && carry.payload === l.payload;
        const framer = sameBuffer ? carry!.framer : protocol.createFramer!(l.decoder_config);
        const input = sameBuffer ? carry!.rest : Buffer.from(l.payload, 'hex');
        let got: string | null;
        try {
          const f = framer.next(input);
          got = f?.frame.toString('hex') ?? null;
          carry = { group: l.group, payload: l.payload, rest: f ? input.subarray(f.consumed) : input, framer };
        } catch (e) {
          got = `threw ${(e as Error).message}`;
          carry = undefined;
        }
        const want = l.expect === 'frame' ? l.frame! : null;
        if (got === want) framesOk++;
        else problems.push(`seq ${l.seq} ${l.payload.slice(0, 60)}: expected ${want}, got ${got}`);
      }
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }

  if (commands.length) {
    it('commands', () => {
      const problems: string[] = [];
      for (const l of commands) {
        let got: string;
        try {
          const bytes = protocol.encode!(l.command!, {
            deviceId: l.device_unique_id ?? '123456789012345',
            now: COMMAND_NOW,
            config: encoderConfig(l),
            // a source test method named `...Udp` encoded for a device on UDP
            ...(/Udp$/.test(l.group) ? { transport: 'udp' as const } : {}),
          });
          got = bytes.toString('hex');
        } catch (e) {
          got = `threw ${(e as Error).message}`;
        }
        const want = payloadBytes(l).toString('hex');
        if (got === want) commandsOk++;
        else problems.push(`seq ${l.seq} ${JSON.stringify(l.command)}: expected ${want}, got ${got}`);
      }
      expect(problems, problems.join('\n')).toEqual([]);
    });
  }
});
