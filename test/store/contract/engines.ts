/**
 * The engines the store contract suite runs against (docs/store.md#contract-suite). Every test file
 * in this folder runs once per engine with `describe.each(engines())`, each test on a fresh store.
 */
import { afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { openStore } from '../../../src/store/index.ts';
import type { AreaName, DataStore } from '../../../src/store/contract.ts';
import { openPostgresStore, PG_AREAS } from '../../../src/store/pg/index.ts';
import { openSql } from '../../helpers/sql.ts';
import { copyMigratedDatabase } from '../../helpers/template-db.ts';

/**
 * SQL on the engine's own database for fixtures and checks no area offers (rows of tables another
 * area or the gateway's writer fills): one statement, portable SQL, `?` placeholders; answers the rows.
 */
export type FixtureSql = (statement: string, ...params: unknown[]) => Promise<Record<string, unknown>[]>;

export interface Engine {
  name: string;
  /** The areas the engine has (the PostgreSQL engine is built area by area). */
  has(area: AreaName): boolean;
  /** A new, empty store (migrated) and how to throw it away. */
  open(): Promise<{ data: DataStore; sql: FixtureSql; dispose(): Promise<void> }>;
}

/**
 * What a test file made once (the PostgreSQL template) goes after its last test: the run's check for
 * temporary directories left behind (test/global-setup.ts) comes before the worker exits.
 */
const afterFile: Array<() => unknown> = [];
afterAll(async () => {
  for (const step of afterFile.splice(0).reverse()) await step(); // last made, first gone
});

const sqlite: Engine = {
  name: 'sqlite',
  has: () => true,
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'fsm-contract-'));
    copyMigratedDatabase(join(dir, 'fsm.db')); // the run's migrated template (test/global-setup.ts)
    const store = openStore(join(dir, 'fsm.db'));
    const own = openSql(join(dir, 'fsm.db'));
    return {
      data: store.data,
      async sql(statement, ...params) {
        const stmt = own.prepare(statement);
        return stmt.reader ? (stmt.all(...params) as Record<string, unknown>[]) : (stmt.run(...params), []);
      },
      async dispose() {
        own.close();
        store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/**
 * PostgreSQL, when FSM_TEST_DATABASE_URL names a server the tests may create databases on (.ci/run
 * starts a scratch cluster: scripts/pg-scratch.sh). One migrated template database per test file;
 * each test gets its own copy (CREATE DATABASE ... TEMPLATE), dropped after it.
 */
function postgresEngine(url: string): Engine {
  const admin = postgres(url, { max: 1, onnotice: () => undefined });
  afterFile.push(() => admin.end());
  const prefix = `fsm_contract_${process.pid}_${Date.now().toString(36)}`;
  let template: Promise<string> | undefined;
  let n = 0;
  const dbUrl = (name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  const makeTemplate = async () => {
    const name = `${prefix}_template`;
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const { data } = await openPostgresStore(dbUrl(name), { max: 1 });
    await data.close();
    afterFile.push(async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
      template = undefined;
    });
    return name;
  };
  return {
    name: 'postgres',
    has: (area) => (PG_AREAS as readonly string[]).includes(area),
    async open() {
      template ??= makeTemplate();
      const name = `${prefix}_${++n}`;
      await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${await template}`);
      const { data, sql } = await openPostgresStore(dbUrl(name), { max: 4 });
      return {
        data: data as unknown as DataStore,
        async sql(statement, ...params) {
          let n = 0;
          return [...(await sql.unsafe(statement.replace(/\?/g, () => `$${++n}`), params as never[]))];
        },
        async dispose() {
          await data.close();
          await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        },
      };
    },
  };
}

const url = process.env.FSM_TEST_DATABASE_URL;
const all: Engine[] = url ? [sqlite, postgresEngine(url)] : [sqlite];

/** The engines to run a contract test on: those that have every area it uses. */
export function engines(...areas: AreaName[]): Engine[] {
  return all.filter((e) => areas.every((a) => e.has(a)));
}
