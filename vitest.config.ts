import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Pure unit tests (parsers, geometry, forms, time): no server, process, timer or environment state
 * of their own, so one process may run many of them one after another without a fresh import of the
 * whole protocol table per file (isolate: false). The fuzz file stays isolated: it measures heap
 * growth and runs long. Everything else gets a fresh process per file.
 */
const unit = ['test/protocols/**/*.test.ts', 'test/core/**/*.test.ts', 'test/forms/**/*.test.ts', 'test/time.test.ts'];
const fuzz = 'test/protocols/fuzz.test.ts';

export default defineConfig({
  test: {
    // A private temporary folder per run; fsm-* directories left in it fail the run.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Forks, so tests that start servers, workers and native SQLite get a process each; gc exposed for the fuzz memory check.
    pool: 'forks',
    execArgv: ['--expose-gc'],
    // A file per core: most test time is spent waiting (sockets, child processes, deadlines), and
    // vitest's default (cores - 1) runs a 2-core machine one file at a time.
    maxWorkers: availableParallelism(),
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: unit, exclude: [fuzz], isolate: false } },
      { extends: true, test: { name: 'fuzz', include: [fuzz] } },
      { extends: true, test: { name: 'integration', include: ['test/**/*.test.ts'], exclude: unit } },
    ],
  },
});
