/**
 * The layer rules of docs/architecture.md (shared/design.md), checked by test/architecture.test.ts
 * on every `npm test`. A layer imports only the layers below it; type-only imports count too.
 *
 *   wiring      src/main.ts src/cli.ts src/config.ts  src/protocol-docs.ts src/server-process.ts src/simulator/
 *   adapters    src/api/ src/gateway/
 *   workers     workers/ (Piscina entry points)
 *   domain      src/accounts src/auth src/mail src/tasks src/imports src/lists src/telemetry src/tracks src/geocoder ...
 *   store       src/store/
 *   core        src/core/ (ground floor)
 *   protocols   protocols/ (pure bytes; beside the stack, used by the gateway, the simulator and domain parts)
 */
const PROJECT = '^(src|protocols|workers)/';
const WIRING = '^src/(main|cli|config|server-process|protocol-docs)\\.ts$|^src/simulator/';
const ADAPTERS = '^src/(api|gateway)/';

module.exports = {
  forbidden: [
    {
      name: 'core-imports-nothing',
      comment: 'src/core is the ground floor: data shapes and pure helpers that import nothing of the project.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: PROJECT, pathNot: '^src/core/' },
    },
    {
      name: 'store-imports-only-core',
      comment: 'src/store holds all SQL and knows nothing above the ground floor.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: PROJECT, pathNot: '^src/(store|core)/' },
    },
    {
      name: 'domain-not-upwards',
      comment: 'Domain parts are usable from the API, the admin command and workers alike: they never import adapters, wiring or worker entry points.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(core|store)/|${ADAPTERS}|${WIRING}` },
      to: { path: `${ADAPTERS}|${WIRING}|^workers/` },
    },
    {
      name: 'workers-not-adapters',
      comment: 'Worker threads run domain code over the store: no HTTP, no sockets, no wiring.',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: `${ADAPTERS}|${WIRING}` },
    },
    {
      name: 'adapters-not-wiring',
      comment: 'Adapters receive their settings and services; they do not reach into main, the CLI or the simulator (config types excepted).',
      severity: 'error',
      from: { path: ADAPTERS },
      to: { path: WIRING, pathNot: '^src/config\\.ts$' },
    },
    {
      name: 'adapters-independent',
      comment: 'The HTTP and device adapters do not import each other: the API declares the interfaces it needs (e.g. ChatSender) and src/main.ts wires the gateway in.',
      severity: 'error',
      from: { path: '^src/(api|gateway)/' },
      to: { path: '^src/(api|gateway)/', pathNot: '^src/$1/' },
    },
    {
      name: 'protocols-pure',
      comment: 'protocols/ is pure code over bytes and imports only its own helpers.',
      severity: 'error',
      from: { path: '^protocols/' },
      to: { path: '^(src|workers)/' },
    },
    {
      name: 'no-circular',
      comment: 'Import cycles blur the layers.',
      severity: 'error',
      from: { path: PROJECT },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.mjs', '.js', '.json'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
