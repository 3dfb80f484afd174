/**
 * The asynchronous store contract (docs/store.md): what domain code, the API, the CLI and the
 * workers may ask of a database, whichever engine holds it. Every method answers a promise, so an
 * engine behind a network connection (PostgreSQL) fits the same interface as the embedded SQLite
 * file. Transactions hand a transaction-bound store to their callback.
 *
 * Each area's interface is the area's methods with their answers as promises. The SQLite engine's
 * area classes (src/store/*.ts) define the method set; `src/store/sqlite-async.ts` puts them behind
 * this contract, and every other engine implements the same `DataStore`.
 */
import type { Store as SqliteStore } from './index.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Method = (...args: any[]) => any;

/**
 * Members of an area class that are not part of the contract: their own transactions (a callback
 * run inside: use `DataStore.transaction`) and the connection's end (`DataStore.close`).
 */
export const ENGINE_ONLY = ['transaction', 'atomically', 'readSnapshot', 'close'] as const;
type EngineOnly = (typeof ENGINE_ONLY)[number];

/**
 * One area's contract: every method of the area, answering a promise of what it answers. Methods
 * answering a lazy iterator over a live statement (the report reads of a long fix range) stay on
 * the engine's narrow read path and are not part of it.
 */
export type Area<T> = {
  [K in keyof T as K extends EngineOnly ? never : T[K] extends (...a: never[]) => Iterator<unknown> ? never : T[K] extends Method ? K : never]: T[K] extends (...a: infer A) => infer R ? (...a: A) => Promise<Awaited<R>> : never;
};

/** The areas: users, sessions, trackers, tasks, forms, files, reports, retranslators, events, ... */
export type AreaName = Exclude<keyof SqliteStore, 'transaction' | 'snapshot' | 'analyze' | 'backup' | 'close' | 'data'>;

export type Areas = { [K in AreaName]: Area<SqliteStore[K]> };

/** The whole contract: the areas and what works across them. */
export interface DataStore extends Areas {
  /**
   * Runs `fn` in one write transaction with a store bound to it: everything `fn` does through `tx`
   * commits together when its promise resolves, and nothing of it when it rejects (the rejection is
   * passed on). A transaction inside another (`tx.transaction`) is a savepoint: its failure undoes
   * only its own writes. While it runs, calls made outside it wait (SQLite) or see the state before
   * it (PostgreSQL); never half of it. Keep it short and free of outside I/O.
   */
  transaction<T>(fn: (tx: DataStore) => Promise<T>): Promise<T>;
  /** Runs `fn` over one read snapshot: every read through `tx` sees the same committed state. */
  snapshot<T>(fn: (tx: DataStore) => Promise<T>): Promise<T>;
  /** Refresh the query planner's statistics (after a bulk load). */
  analyze(): Promise<void>;
  /** Close the connection(s); calls after it fail. */
  close(): Promise<void>;
}
