/**
 * Opens the SQLite file (WAL, pragmas set once at open) and applies the numbered migrations
 * in src/store/migrations that it has not seen yet, each in its own transaction.
 */
import Database, { type DatabaseHandle } from './sqlite.ts';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODE_STEPS, withForeignKeysOff } from './rebuild.ts';

export type DB = DatabaseHandle;

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export function openDatabase(file: string): DB {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  // A new database gives the pages retention and compaction free back in small steps
  // (`PRAGMA incremental_vacuum`); on an existing one this changes nothing without a VACUUM
  // (docs/operations.md#space).
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // NORMAL is durable against process crashes in WAL mode (a kill -9 loses nothing committed);
  // the gateway asks for FULL on its own commits where it acknowledges fixes.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 64 MiB page cache and memory-mapped reads: list queries over 100,000 rows stay in memory.
  db.pragma('cache_size = -65536');
  db.pragma('mmap_size = 268435456');
  migrate(db);
  // Query-planner statistics for tables that lack or outgrew them (cheap when nothing changed):
  // without them the list queries can pick a full scan.
  db.pragma('optimize=0x10002');
  return db;
}

/** `until`: apply the migrations up to that version only (tests of a migration on older data). */
export function migrate(db: DB, opts: { until?: number } = {}): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as Array<{ version: number }>).map((r) => r.version));
  const files = readdirSync(migrationsDir)
    .filter((f) => /^\d+_.*\.sql$/.test(f))
    .sort((a, b) => parseInt(a) - parseInt(b));
  for (const f of files) {
    const version = parseInt(f);
    if (applied.has(version) || version > (opts.until ?? Infinity)) continue;
    const sql = readFileSync(join(migrationsDir, f), 'utf8');
    const step = CODE_STEPS[version];
    const apply = () => {
      const again = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(version);
      if (again) return;
      step?.run(db);
      db.exec(sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)').run(version, f, Date.now());
    };
    // IMMEDIATE: two processes starting at once (server and admin command) serialize here.
    if (step?.foreignKeysOff) withForeignKeysOff(db, apply);
    else db.transaction(apply).immediate();
  }
}
