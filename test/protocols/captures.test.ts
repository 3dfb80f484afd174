/**
 * Acceptance of every protocol against ../shared/captures (issue 3): every message line, every
 * frame line, every command line. Prints per-protocol counts. `PROTOCOL=gt06 npx vitest run
 * test/protocols/captures.test.ts` narrows the run while working on one protocol.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadProtocols } from './load.ts';
import { COMMAND_NOW, commandLines, frameLines, groups, messageLines, payloadBytes, replayGroup, stepProblems } from './harness.ts';

const protocols = await loadProtocols();
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
      for (const l of frames) {
        const framer = protocol.createFramer!(l.decoder_config);
        let got: string | null;
        try {
          got = framer.next(Buffer.from(l.payload, 'hex'))?.frame.toString('hex') ?? null;
        } catch (e) {
          got = `threw ${(e as Error).message}`;
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
            config: l.encoder_config ?? {},
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
