/**
 * Every test removes what it created (issue 10, item 16). The run gets a temporary folder of its
 * own (TMPDIR, which os.tmpdir() and spawned servers follow), so runs of other checkouts on the
 * same machine cannot disturb the count; `fsm-*` entries left in it at the end fail the run, and
 * the folder is removed either way, so nothing reaches the system's temporary folder.
 *
 * The rule for tests: make temporary directories with mkdtempSync(join(tmpdir(), 'fsm-...')) and
 * remove them in afterEach/afterAll with rmSync(dir, { recursive: true, force: true }), after
 * stopping (and awaiting the exit of) every server or process that uses them; startTestServer's
 * close() removes its own directory.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  // vitest runs the global setup once per project (vitest.config.ts): the first makes the folder.
  if (process.env.FSM_TEST_RUN_TMP) return () => {};
  const systemTmp = tmpdir();
  const runTmp = mkdtempSync(join(systemTmp, 'vitest-fsm-run-'));
  process.env.TMPDIR = runTmp;
  process.env.FSM_TEST_RUN_TMP = runTmp;
  return () => {
    process.env.TMPDIR = systemTmp;
    delete process.env.FSM_TEST_RUN_TMP;
    const left = readdirSync(runTmp).filter((name) => name.startsWith('fsm-'));
    rmSync(runTmp, { recursive: true, force: true });
    if (left.length) {
      console.error(`\nFAIL: tests left ${left.length} temporary director${left.length === 1 ? 'y' : 'ies'} behind (removed now): ${left.join(', ')}.\nRemove what a test creates in afterEach/afterAll (rule: test/global-setup.ts).`);
      // A thrown error here is only printed by vitest; the exit code is what CI sees.
      process.exitCode = 1;
    }
  };
}
