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
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../src/store/index.ts';

export default function setup(): () => void {
  // vitest runs the global setup once per project (vitest.config.ts): the first makes the folder.
  if (process.env.FSM_TEST_RUN_TMP) return () => {};
  const systemTmp = tmpdir();
  const runTmp = mkdtempSync(join(systemTmp, 'vitest-fsm-run-'));
  process.env.TMPDIR = runTmp;
  process.env.FSM_TEST_RUN_TMP = runTmp;
  // One migrated empty database for the whole run: test servers start from a copy of it
  // (test/helpers/template-db.ts) instead of running every migration.
  mkdirSync(join(runTmp, 'template'));
  const template = join(runTmp, 'template', 'fsm.sqlite');
  openStore(template).close(); // closing checkpoints the WAL into the file
  process.env.FSM_TEST_TEMPLATE_DB = template;
  return () => {
    process.env.TMPDIR = systemTmp;
    delete process.env.FSM_TEST_RUN_TMP;
    delete process.env.FSM_TEST_TEMPLATE_DB;
    const left = readdirSync(runTmp).filter((name) => name.startsWith('fsm-'));
    rmSync(runTmp, { recursive: true, force: true });
    if (left.length) {
      console.error(`\nFAIL: tests left ${left.length} temporary director${left.length === 1 ? 'y' : 'ies'} behind (removed now): ${left.join(', ')}.\nRemove what a test creates in afterEach/afterAll (rule: test/global-setup.ts).`);
      // A thrown error here is only printed by vitest; the exit code is what CI sees.
      process.exitCode = 1;
    }
  };
}
