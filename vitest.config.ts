import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Pure unit tests (parsers, geometry, forms, time, telemetry stages and geofences, simulated
 * devices, report formats, backoff, offline geocoder): no process, timer or environment state of
 * their own (three protocol files start an in-process server and close it), so one process may run
 * many of them one after another without a fresh import of the whole protocol table per file
 * (isolate: false). A new test file is isolated unless added here. The fuzz file stays isolated: it measures heap
 * growth and runs long. Everything else gets a fresh process per file.
 */
const unit = [
  'test/protocols/**/*.test.ts',
  'test/core/**/*.test.ts',
  'test/forms/**/*.test.ts',
  'test/time.test.ts',
  'test/telemetry/geofence/**/*.test.ts',
  'test/telemetry/stages/**/*.test.ts',
  ...['events-stage', 'pipeline', 'points', 'sensors', 'task-outcome'].map((f) => `test/telemetry/${f}.test.ts`),
  'test/simulator/devices.test.ts',
  'test/simulator/vehicle.test.ts',
  'test/reports/format.test.ts',
  'test/forwarding/backoff.test.ts',
  'test/forwarding/log-reader.test.ts',
  'test/geocoder/offline.test.ts',
];
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
