import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A private temporary folder per run; fsm-* directories left in it fail the run.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Forks, so tests that start servers, workers and native SQLite get a process each; gc exposed for the fuzz memory check.
    pool: 'forks',
    execArgv: ['--expose-gc'],
    reporters: ['default'],
  },
});
