/**
 * Table rebuilds the numbered SQL migrations cannot write generically: migration 040 gives every
 * entity table `id INTEGER PRIMARY KEY AUTOINCREMENT` (ids are never handed out twice; without it
 * SQLite hands the largest deleted id to the next row). A rebuild keeps each table's definition as
 * it stands in this database (columns added by ALTER TABLE included), its rows and ids, its indexes
 * and triggers; the full-text indexes, keyed by those ids, stay valid. docs/storage.md#ids.
 *
 * It runs with foreign keys off (SQLite's documented way to change a table's definition: dropping
 * a referenced table with them on would cascade into its children) and the legacy rename (triggers
 * of other tables that name the table are left as they are), and checks every foreign key before
 * the migration commits.
 */
// The handle type from the binding (db.ts imports this module: no cycle).
import type { DatabaseHandle as DB } from './sqlite.ts';

/** A change of a table's definition besides AUTOINCREMENT (its CREATE TABLE text in, out). */
export type DefinitionEdit = (createSql: string) => string;

/** What migration `version` does in code before its SQL file runs. */
export interface CodeStep {
  /** Foreign keys off (and checked before commit) while the migration runs. */
  foreignKeysOff: true;
  run(db: DB): void;
}

/** Rebuild `table` with AUTOINCREMENT on its `id` (a no-op when it has it or does not exist). */
export function rebuildWithAutoincrement(db: DB, table: string, edit?: DefinitionEdit): void {
  const sql = db.prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").pluck().get(table);
  if (sql === undefined) return;
  const columns = db.prepare<[string], { name: string; type: string; pk: number }>('SELECT name, type, pk FROM pragma_table_info(?)').all(table);
  const pk = columns.filter((c) => c.pk > 0);
  if (pk.length !== 1 || pk[0].name !== 'id' || pk[0].type.toUpperCase() !== 'INTEGER') throw new Error(`${table}: its primary key is not one INTEGER id`);
  const rebuilt = `${table}_rebuilt`;
  let create = sql.replace(/^CREATE TABLE\s+(?:"[^"]+"|\w+)/i, `CREATE TABLE ${rebuilt}`);
  if (!/AUTOINCREMENT/i.test(sql)) create = create.replace(/\bid\s+INTEGER\s+PRIMARY\s+KEY\b/i, 'id INTEGER PRIMARY KEY AUTOINCREMENT');
  if (!/AUTOINCREMENT/i.test(create)) throw new Error(`${table}: no "id INTEGER PRIMARY KEY" in its definition`);
  if (edit) create = edit(create);
  if (create.replace(rebuilt, table) === sql) return;
  // Indexes and triggers of the table go with it on DROP: their text is kept and run again.
  const extras = db.prepare<[string], string>("SELECT sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, rowid").pluck().all(table);
  const list = columns.map((c) => `"${c.name}"`).join(', ');
  db.exec(create);
  db.exec(`INSERT INTO ${rebuilt} (${list}) SELECT ${list} FROM "${table}"`);
  db.exec(`DROP TABLE "${table}"`);
  db.exec(`ALTER TABLE ${rebuilt} RENAME TO "${table}"`);
  for (const s of extras) db.exec(s);
  // Copying explicit ids set the sequence to the largest; an empty table gets its row too (floors: 040).
  db.prepare("INSERT INTO sqlite_sequence (name, seq) SELECT ?, 0 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)").run(table, table);
}

/** Run `fn` as a migration with foreign keys off, all of them checked before it commits. */
export function withForeignKeysOff(db: DB, fn: () => void): void {
  const fk = db.pragma('foreign_keys', { simple: true }) as number;
  const legacy = db.pragma('legacy_alter_table', { simple: true }) as number;
  // Both are no-ops inside a transaction: set before it opens.
  db.pragma('foreign_keys = OFF');
  db.pragma('legacy_alter_table = ON');
  try {
    db.transaction(() => {
      // Only what the migration broke fails it (a violation it found is not its doing).
      const before = new Set(foreignKeyViolations(db));
      fn();
      const broken = foreignKeyViolations(db).filter((v) => !before.has(v));
      if (broken.length) throw new Error(`foreign keys broken by the migration: ${broken.slice(0, 5).join(', ')}`);
    }).immediate();
  } finally {
    db.pragma(`legacy_alter_table = ${legacy ? 'ON' : 'OFF'}`);
    db.pragma(`foreign_keys = ${fk ? 'ON' : 'OFF'}`);
  }
}

function foreignKeyViolations(db: DB): string[] {
  return (db.prepare('PRAGMA foreign_key_check').all() as Array<{ table: string; rowid: number; parent: string }>).map((v) => `${v.table} row ${v.rowid} -> ${v.parent}`);
}

/**
 * The tables whose ids leave the store (API answers, files, exports, events): every table with an
 * `id INTEGER PRIMARY KEY` but the full-text indexes' own. `reports` has AUTOINCREMENT since 034.
 * test/store/ids.test.ts fails for a table with such an id that is not here.
 */
export const ENTITY_TABLES = [
  'tariffs', 'dealers', 'users', 'sources', 'trackers', 'vehicles', 'rules', 'tags', 'entity_fields',
  'departments', 'employees', 'places', 'zones', 'tasks', 'chat_messages', 'status_listings', 'statuses',
  'status_changes', 'form_templates', 'forms', 'checkins', 'files', 'app_tokens', 'retranslators',
  'map_layers', 'task_schedules', 'report_schedules', 'tracks', 'visits', 'events',
] as const;

/**
 * Places and zones written by an upload stay invisible until it commits: no owner yet
 * (`user_id` NULL, every query is scoped to an owner) and the upload's id (docs/places-zones.md).
 */
const stagedByUploads: DefinitionEdit = (sql) =>
  sql.replace(/\buser_id\s+INTEGER\s+NOT\s+NULL\b/i, 'user_id INTEGER').replace(/\s*\)\s*$/, ',\n  upload_id INTEGER                     -- uploads(id) while not committed; then NULL\n)');

/** Migrations with a step in code, run before their SQL file in the same transaction. */
export const CODE_STEPS: Record<number, CodeStep> = {
  40: {
    foreignKeysOff: true,
    run(db) {
      for (const t of ENTITY_TABLES) rebuildWithAutoincrement(db, t, t === 'places' || t === 'zones' ? stagedByUploads : undefined);
    },
  },
};
