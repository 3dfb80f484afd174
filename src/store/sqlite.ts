/**
 * The SQLite binding, chosen by the Node version we run on. better-sqlite3 12 is a classic addon
 * built from source; on Node 24 its statements derive from a node::ObjectWrap whose destructor
 * asserts when V8 collects them outside a context (a worker thread's exit aborts the process:
 * `Assertion failed: (env) != nullptr`). better-sqlite3 13 is a Node-API module without that
 * problem (and ships prebuilt binaries) but needs Node 22 or later, so Node 20 keeps 12.
 * Both have the same API: the rest of the store imports the binding from here only.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** Which package is loaded: reported by `npm run fsm -- version` and the startup log. */
export const SQLITE_BINDING = nodeMajor >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3';

const Database = require(SQLITE_BINDING) as typeof BetterSqlite3;
export default Database;
export type { Database as DatabaseHandle, Statement } from 'better-sqlite3';
