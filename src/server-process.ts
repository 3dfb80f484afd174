/**
 * How the server process is started. `npm start` runs exactly this (test/main.test.ts keeps
 * package.json equal to it); benchmarks and tests that spawn a server use it too.
 *
 * --single-threaded-gc: V8 otherwise collects garbage with helper threads of its own, which on a
 * small machine compete for the same cores with the telemetry workers and the gateway writer
 * (bench/telemetry on 2 cores: the helpers took a fifth of all CPU time; with this flag throughput
 * rose by a quarter to a third, API p99 unchanged). It is a V8 flag: it cannot be set from inside.
 *
 * --max-semi-space-size=32 (MiB): a larger young generation, so short-lived objects (decoded records,
 * forwarded fixes, their wire text) are collected less often. The forwarding thread spent 15-16 µs per
 * forwarded fix and retranslator with the default and 10 µs with it (bench/forward at 20,000 fixes/s,
 * alternated runs), and then kept pace where it fell behind; ingest alone unchanged (bench/ingest
 * 41-43k against 42-44k fixes/s), server RSS +20-30 MiB. It applies to every thread's heap.
 */
export const SERVER_NODE_ARGS: readonly string[] = ['--single-threaded-gc', '--max-semi-space-size=32', '--import', 'tsx', 'src/main.ts'];
