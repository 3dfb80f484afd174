/**
 * How the server process is started. `npm start` runs exactly this (test/main.test.ts keeps
 * package.json equal to it); benchmarks and tests that spawn a server use it too.
 *
 * --single-threaded-gc: V8 otherwise collects garbage with helper threads of its own, which on a
 * small machine compete for the same cores with the telemetry workers and the gateway writer
 * (bench/telemetry on 2 cores: the helpers took a fifth of all CPU time; with this flag throughput
 * rose by a quarter to a third, API p99 unchanged). It is a V8 flag: it cannot be set from inside.
 */
export const SERVER_NODE_ARGS: readonly string[] = ['--single-threaded-gc', '--import', 'tsx', 'src/main.ts'];
