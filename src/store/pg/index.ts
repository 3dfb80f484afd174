/**
 * The PostgreSQL engine (docs/store.md#postgresql), built area by area behind the same contract as
 * the SQLite engine. `PG_AREAS` names the areas it has so far; the contract suite runs each area's
 * tests on every engine that has it. It becomes selectable (FSM_DATABASE_URL) once it has them all.
 */
import type { AreaName, DataStore } from '../contract.ts';
import { connectPostgres, type Sql } from './connect.ts';
import { migratePostgres } from './migrate.ts';
import { PgAuthVersions, PgSessionStore, PgTariffStore, PgUserStore } from './accounts.ts';
import { PgTagStore } from './tags.ts';
import { PgDeviceStateStore, PgDeviceStore, PgTrackerStore } from './trackers.ts';
import { PgChatStore } from './chat.ts';
import { PgFieldStore } from './fields.ts';
import { PgGeoCacheStore } from './geocache.ts';

/** The areas this engine has (the rest of `AreaName` follows, area by area). */
export const PG_AREAS = [
  'users', 'sessions', 'tariffs', 'authVersions', 'tags', 'trackers', 'devices', 'deviceState', 'chat', 'fields', 'geocache',
] as const satisfies readonly AreaName[];
export type PgAreaName = (typeof PG_AREAS)[number];
/** What the engine offers today: its areas and everything that works across them. */
export type PgDataStore = Pick<DataStore, PgAreaName | 'transaction' | 'snapshot' | 'analyze' | 'close'>;

/** The areas over one connection handle: the pool, or a transaction's own connection. */
function areasOver(sql: Sql) {
  return {
    users: new PgUserStore(sql),
    sessions: new PgSessionStore(sql),
    tariffs: new PgTariffStore(sql),
    authVersions: new PgAuthVersions(sql),
    tags: new PgTagStore(sql),
    trackers: new PgTrackerStore(sql),
    devices: new PgDeviceStore(sql),
    deviceState: new PgDeviceStateStore(sql),
    chat: new PgChatStore(sql),
    fields: new PgFieldStore(sql),
    geocache: new PgGeoCacheStore(sql),
  };
}

/** Savepoint-capable handle of an open transaction (postgres.js names it TransactionSql). */
type TxHandle = Sql & { savepoint<T>(fn: (sp: TxHandle) => Promise<T>): Promise<T> };

function bound(tx: TxHandle): PgDataStore {
  const self: PgDataStore = {
    ...areasOver(tx),
    transaction: (fn) => tx.savepoint((sp) => fn(bound(sp) as unknown as DataStore)),
    snapshot: (fn) => fn(self as unknown as DataStore),
    analyze: async () => void (await tx`ANALYZE`),
    close: async () => {
      throw new Error('close the store, not a transaction');
    },
  };
  return self;
}

export interface PostgresStore {
  data: PgDataStore;
  sql: Sql;
}

/** Connects, applies the engine's migrations, and answers the contract over the pool. */
export async function openPostgresStore(url: string, opts: { max?: number } = {}): Promise<PostgresStore> {
  const sql = connectPostgres(url, opts);
  try {
    await migratePostgres(sql);
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw e;
  }
  const data: PgDataStore = {
    ...areasOver(sql),
    // Each transaction on its own pooled connection: calls made outside it see the state before it.
    transaction: async <T>(fn: (tx: DataStore) => Promise<T>) => (await sql.begin((tx) => fn(bound(tx as unknown as TxHandle) as unknown as DataStore))) as T,
    // One snapshot: REPEATABLE READ fixes it at the first read; READ ONLY refuses writes through it.
    snapshot: async <T>(fn: (tx: DataStore) => Promise<T>) => (await sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', (tx) => fn(bound(tx as unknown as TxHandle) as unknown as DataStore))) as T,
    analyze: async () => void (await sql`ANALYZE`),
    close: async () => sql.end({ timeout: 5 }),
  };
  return { data, sql };
}
