/**
 * The PostgreSQL engine's numbered migrations (src/store/pg/migrations/NNN_name.sql), each applied
 * once in its own transaction, under an advisory lock so two processes starting at once (server and
 * admin command) apply each once. Its own numbering: the SQLite engine's history is its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './connect.ts';

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** The advisory lock's key: any constant the application owns. */
const MIGRATION_LOCK = 0x46534d; // "FSM"

export async function migratePostgres(sql: Sql): Promise<number[]> {
  const files = readdirSync(migrationsDir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort((a, b) => parseInt(a) - parseInt(b));
  const done: number[] = [];
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied bigint NOT NULL)`;
    const applied = new Set((await tx<{ version: number }[]>`SELECT version FROM schema_migrations`).map((r) => r.version));
    for (const f of files) {
      const version = parseInt(f);
      if (applied.has(version)) continue;
      await tx.savepoint(async (sp) => {
        await sp.unsafe(readFileSync(join(migrationsDir, f), 'utf8'));
        await sp`INSERT INTO schema_migrations (version, name, applied) VALUES (${version}, ${f}, ${Date.now()})`;
      });
      done.push(version);
    }
  });
  return done;
}
