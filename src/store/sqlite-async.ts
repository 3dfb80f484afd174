/**
 * The SQLite engine behind the asynchronous contract (src/store/contract.ts, docs/store.md).
 *
 * One connection serves the process, and better-sqlite3 answers synchronously, so each contract
 * method runs its area method at once and answers the result as a promise. What needs care is the
 * transaction: its callback awaits between statements, and while it does other code of the process
 * may call the store. Those calls must not land inside the open transaction (they would be undone
 * by its rollback and see its uncommitted rows), so a gate serialises them: while a transaction
 * holds the connection, calls made outside it wait until it has committed or rolled back; calls
 * made through the transaction's own store (`tx`) go straight through.
 */
import type { DB } from './db.ts';
import { ENGINE_ONLY, type AreaClasses, type AreaName, type DataStore } from './contract.ts';

/** The connection's owner: at most one transaction (or snapshot) at a time, the rest in arrival order. */
class Gate {
  private holder = false;
  private readonly queue: Array<() => void> = [];

  get busy(): boolean {
    return this.holder;
  }

  /** Take the connection (waits for the transactions before). */
  async acquire(): Promise<void> {
    if (!this.holder && this.queue.length === 0) {
      this.holder = true;
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  /** Hand the connection to the next transaction in line, or free it. */
  release(): void {
    const next = this.queue.shift();
    if (next) next();
    else {
      this.holder = false;
      const waiting = this.idleWaiters.splice(0);
      for (const w of waiting) w();
    }
  }

  private readonly idleWaiters: Array<() => void> = [];

  /** Resolves when no transaction holds the connection and none waits for it. */
  idle(): Promise<void> {
    return new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }
}

const isGenerator = (fn: unknown) => typeof fn === 'function' && (fn as { constructor: { name: string } }).constructor.name === 'GeneratorFunction';

/** The methods of an area object (its class's prototype chain), as the contract offers them. */
function methodNames(area: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(area); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || (ENGINE_ONLY as readonly string[]).includes(name)) continue;
      const d = Object.getOwnPropertyDescriptor(proto, name);
      if (d && typeof d.value === 'function' && !isGenerator(d.value)) names.add(name);
    }
  }
  return [...names];
}

const AREAS = [
  'users', 'sessions', 'tariffs', 'trackers', 'tags', 'telemetry', 'fields', 'geocache', 'devices', 'chat', 'places', 'zones',
  'employees', 'departments', 'tasks', 'taskSchedules', 'deviceState', 'tracks', 'statuses', 'fieldApp', 'formTemplates', 'forms',
  'fileFacts', 'files', 'checkins', 'retranslators', 'mapLayers', 'ops', 'reports', 'reportData', 'retention', 'compaction',
  'events', 'reportSchedules', 'uploads', 'authVersions',
] as const satisfies readonly AreaName[];
/** Every area of the contract is listed above (a type error names the missing one). */
const everyArea: Exclude<AreaName, (typeof AREAS)[number]> extends never ? true : Exclude<AreaName, (typeof AREAS)[number]> = true;
void everyArea;

type AnyFn = (...args: unknown[]) => unknown;

/**
 * One face of the engine: `gated` for the store handed to callers (waits while a transaction holds
 * the connection), ungated for a transaction's own `tx`.
 */
function areasOf(store: AreaClasses, gate: Gate | undefined): Record<string, Record<string, AnyFn>> {
  const out: Record<string, Record<string, AnyFn>> = {};
  for (const name of AREAS) {
    const area = store[name] as unknown as Record<string, AnyFn>;
    const face: Record<string, AnyFn> = {};
    for (const m of methodNames(area)) {
      const fn = area[m].bind(area);
      face[m] = gate
        ? async (...args: unknown[]) => {
            while (gate.busy) await gate.idle();
            return fn(...args);
          }
        : async (...args: unknown[]) => fn(...args);
    }
    out[name] = face;
  }
  return out;
}

/** The asynchronous contract over an open SQLite store's areas (one per store: `Store.data`); `close` closes that store. */
export function sqliteDataStore(store: AreaClasses, db: DB, closeStore: () => void): DataStore {
  const gate = new Gate();
  const outside = areasOf(store, gate);
  const inside = areasOf(store, undefined);
  let savepoints = 0;

  /** `tx`: the areas straight through, nested transactions as savepoints, snapshots as itself. */
  const tx = {
    ...inside,
    async transaction<T>(fn: (t: DataStore) => Promise<T>): Promise<T> {
      const name = `fsm_sp_${++savepoints}`;
      db.exec(`SAVEPOINT ${name}`);
      try {
        const result = await fn(tx);
        db.exec(`RELEASE ${name}`);
        return result;
      } catch (e) {
        db.exec(`ROLLBACK TO ${name}`);
        db.exec(`RELEASE ${name}`);
        throw e;
      }
    },
    snapshot: <T>(fn: (t: DataStore) => Promise<T>): Promise<T> => fn(tx),
    analyze: async () => void db.exec('ANALYZE'),
    close: async () => {
      throw new Error('close the store, not a transaction');
    },
  } as unknown as DataStore;

  /** Runs `fn` on `tx` between `begin` and COMMIT, holding the gate; ROLLBACK when it throws. */
  async function hold<T>(begin: string, fn: (t: DataStore) => Promise<T>): Promise<T> {
    await gate.acquire();
    try {
      db.exec(begin);
      try {
        const result = await fn(tx);
        db.exec('COMMIT');
        return result;
      } catch (e) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw e;
      }
    } finally {
      gate.release();
    }
  }

  return {
    ...outside,
    // IMMEDIATE: the write lock is taken (waiting up to busy_timeout) before the first read, so a
    // transaction never fails with SQLITE_BUSY when another connection committed after it read.
    transaction: <T>(fn: (t: DataStore) => Promise<T>) => hold('BEGIN IMMEDIATE', fn),
    snapshot: <T>(fn: (t: DataStore) => Promise<T>) => hold('BEGIN DEFERRED', fn),
    analyze: async () => {
      while (gate.busy) await gate.idle();
      db.exec('ANALYZE');
    },
    close: async () => {
      while (gate.busy) await gate.idle();
      closeStore();
    },
  } as unknown as DataStore;
}
